/**
 * A bot process for the faults suite's kill -9 scenarios (test/faults/process.fault.ts): the
 * watcher (with the real Slack poster) or the bulk registration runner, on a store shared across
 * restarts (a SQLite file or Redis), against an emulator and a fake Slack in the parent process.
 *
 * Mode `replica` (test/faults/replicas.fault.ts, bench figure 7): one of several replicas of the
 * watcher on a shared Redis, on its own timer (system clock), watching every subscription the
 * parent created; it never creates subscriptions itself.
 *
 * Run: `node --import tsx dev/testing/fault-child.ts` with FAULT_CHILD_CONFIG = JSON of
 * `FaultChildConfig`. Talks to the parent on stdout, one line per event:
 *   READY                      the process is up (store open, clients built)
 *   TICK <n> base=<0|1> err=<kind|->  (watch) a poll tick finished; base=1 once a baseline exists
 *   STAT <json>                (replica) every statMs: { cpuMs, rssMb, polls, held, errors }
 *   DONE <json>                (register) the run finished: { status, counts }
 *   FAIL <message>             a start-up or run failure (no secrets)
 * On stderr (register mode), for diagnostics: `TRACE <pid> +<ms> POST <first name> x<n> start|ok|err`
 * for every registration POST and `TRACE ... SEARCH ...` for every recipient look-up.
 * It is killed with SIGKILL at random points; nothing it does may depend on a clean exit.
 * Never for production use: it exists only to be killed.
 */
import { WebClient } from '@slack/web-api';
import { createApi } from '../../src/api/index.js';
import type {
  NewRecipient,
  RecipientSearchQuery,
  WatermarkingClient,
  WorkspaceCredentials,
} from '../../src/api/types.js';
import { createLogger } from '../../src/log.js';
import { existingLookup } from '../../src/ops/recipients.js';
import { parseRecipientLines, planRegistration } from '../../src/ops/watermarking/registration/plan.js';
import {
  type RegistrationReport,
  reportCounts,
  resumeRegistration,
  runRegistration,
} from '../../src/ops/watermarking/registration/run.js';
import { blockRenderer } from '../../src/slack/features/watch/render-card.js';
import { watchWords } from '../../src/slack/kit/blocks/paused-reason.js';
import { createPoster } from '../../src/slack/poster.js';
import { createStore } from '../../src/store/index.js';
import { createWatcher } from '../../src/watch/index.js';
import { pollStateRepo } from '../../src/watch/poll-state.js';

interface Common {
  storeUrl: string;
  encryptionKey: string;
  namespace?: string;
  workspace: string;
  siteId: string;
  creds: WorkspaceCredentials;
}

export interface WatchChildConfig extends Common {
  mode: 'watch';
  holderId: string;
  channel: string;
  slackApiUrl: string;
  botToken: string;
  /** Poll interval (ms); the child ticks every `tickMs`. */
  intervalMs: number;
  tickMs: number;
  leaseTtlMs: number;
  channelIntervalMs?: number;
}

export interface RegisterChildConfig extends Common {
  mode: 'register';
  reportId: string;
  reportsNamespace: string;
  /** Recipient names, one per line (the same input on every start). */
  lines: string;
  concurrency: number;
}

export interface ReplicaChildConfig {
  mode: 'replica';
  storeUrl: string;
  encryptionKey: string;
  namespace: string;
  holderId: string;
  creds: WorkspaceCredentials;
  slackApiUrl: string;
  botToken: string;
  intervalMs: number;
  activeIntervalMs: number;
  concurrency: number;
  targetsCacheMs: number;
  channelIntervalMs: number;
  statMs: number;
}

export type FaultChildConfig = WatchChildConfig | RegisterChildConfig | ReplicaChildConfig;

const say = (line: string) => process.stdout.write(`${line}\n`);

async function runWatch(c: WatchChildConfig): Promise<void> {
  const logger = createLogger({ level: 'warn', destination: process.stderr });
  const store = await createStore({
    url: c.storeUrl,
    encryptionKey: c.encryptionKey,
    ...(c.namespace ? { namespace: c.namespace } : {}),
  });
  const api = createApi({ logger, retries: { max: 1, baseMs: 20 } });
  const client = new WebClient(c.botToken, {
    slackApiUrl: c.slackApiUrl,
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
  });
  const poster = createPoster(async () => client);
  const watcher = createWatcher({
    store,
    api,
    credentials: async () => c.creds,
    poster: () => poster,
    renderer: blockRenderer,
    words: watchWords,
    intervalMs: c.intervalMs,
    jitter: 0,
    holderId: c.holderId,
    leaseTtlMs: c.leaseTtlMs,
    logger,
    events: (e) => {
      if (e.type !== 'delivered') process.stderr.write(`EVENT ${JSON.stringify(e)}\n`);
    },
    ...(c.channelIntervalMs !== undefined ? { channelIntervalMs: c.channelIntervalMs } : {}),
  });
  await watcher.subscriptions.create(c.workspace, {
    channelId: c.channel,
    siteId: c.siteId,
    filters: { statuses: [], mode: 'all' },
    createdBy: 'U0FAULTS',
  });
  say('READY');
  let n = 0;
  for (;;) {
    await watcher.tick();
    // base=1 once a poll state exists (the baseline was taken by this or an earlier process).
    const site = (await watcher.status()).sites.find((x) => x.siteId === c.siteId);
    const base = (await pollStateRepo(store).get(c.workspace, c.siteId)) !== undefined;
    say(`TICK ${++n} base=${base ? 1 : 0} err=${site?.lastError ?? '-'}`);
    await new Promise((r) => setTimeout(r, c.tickMs));
  }
}

async function runReplica(c: ReplicaChildConfig): Promise<void> {
  const logger = createLogger({ level: 'warn', destination: process.stderr });
  const store = await createStore({
    url: c.storeUrl,
    encryptionKey: c.encryptionKey,
    namespace: c.namespace,
  });
  const api = createApi({ logger, retries: { max: 1, baseMs: 20 } });
  const client = new WebClient(c.botToken, {
    slackApiUrl: c.slackApiUrl,
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
  });
  const poster = createPoster(async () => client);
  let polls = 0;
  let errors = 0;
  const watcher = createWatcher({
    store,
    api,
    credentials: async () => c.creds,
    poster: () => poster,
    renderer: blockRenderer,
    words: watchWords,
    intervalMs: c.intervalMs,
    activeIntervalMs: c.activeIntervalMs,
    concurrency: c.concurrency,
    targetsCacheMs: c.targetsCacheMs,
    channelIntervalMs: c.channelIntervalMs,
    // Lots of sites in one workspace: the budget is not what this process is about.
    callBudgetPerMinute: 1_000_000,
    holderId: c.holderId,
    logger,
    events: (e) => {
      if (e.type === 'poll-failed') errors++;
      if (e.type !== 'delivered') process.stderr.write(`EVENT ${JSON.stringify(e)}\n`);
    },
  });
  watcher.start();
  say('READY');
  const seen = new Map<string, number>();
  for (;;) {
    await new Promise((r) => setTimeout(r, c.statMs));
    const st = await watcher.status();
    let held = 0;
    for (const s of st.sites) {
      if (s.leaseHeld) held++;
      const k = `${s.workspace}|${s.siteId}`;
      if (s.lastPollAt !== undefined && seen.get(k) !== s.lastPollAt) {
        seen.set(k, s.lastPollAt);
        polls++;
      }
    }
    const cpu = process.cpuUsage();
    say(
      `STAT ${JSON.stringify({ cpuMs: (cpu.user + cpu.system) / 1000, rssMb: process.memoryUsage.rss() / 2 ** 20, polls, held, errors, at: Date.now() })}`,
    );
  }
}

async function runRegister(c: RegisterChildConfig): Promise<void> {
  const logger = createLogger({ level: 'warn', destination: process.stderr });
  const store = await createStore({
    url: c.storeUrl,
    encryptionKey: c.encryptionKey,
    ...(c.namespace ? { namespace: c.namespace } : {}),
  });
  const api = createApi({ logger, retries: { max: 1, baseMs: 20 } });
  const client = traceRegistrations(api.watermarking(c.creds.watermarking!));
  const repo = store.docs<RegistrationReport>(c.reportsNamespace);
  say('READY');
  const onWarning = (m: string) => logger.warn(m);
  let report: RegistrationReport;
  if (await repo.get(c.workspace, c.reportId)) {
    // A restart after kill -9: the previous runner is dead, so take the report over at once.
    const r = await resumeRegistration(client, repo, c.workspace, c.reportId, {
      force: true,
      concurrency: c.concurrency,
      onWarning,
    });
    if (!r.ok) {
      if (r.reason === 'finished') {
        const done = (await repo.get(c.workspace, c.reportId))!;
        say(
          `DONE ${JSON.stringify({ status: done.status, counts: reportCounts(done), resumed: 'finished' })}`,
        );
        return;
      }
      say(`FAIL ${r.reason}: ${r.message}`);
      process.exitCode = 2;
      return;
    }
    report = r.report;
  } else {
    const plan = await planRegistration(parseRecipientLines(c.lines), existingLookup(client, c.siteId));
    report = await runRegistration(client, c.siteId, plan, {
      reportRepo: repo,
      workspaceKey: c.workspace,
      reportId: c.reportId,
      concurrency: c.concurrency,
      onWarning,
    });
  }
  say(`DONE ${JSON.stringify({ status: report.status, counts: reportCounts(report) })}`);
  await api.close();
  await store.close();
}

/**
 * Diagnostics on stderr (the parent prints them when a scenario fails): every registration POST
 * (first name, size, outcome) and every recipient look-up, with the process's clock, so a name
 * sent twice can be traced to the runner and the step that sent it.
 */
function traceRegistrations(client: WatermarkingClient): WatermarkingClient {
  const t0 = Date.now();
  const at = () => `+${Date.now() - t0}ms`;
  const log = (line: string) => process.stderr.write(`TRACE ${process.pid} ${at()} ${line}\n`);
  return new Proxy(client, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver) as unknown;
      if (typeof v !== 'function') return v;
      if (prop === 'registerRecipients') {
        return async (siteId: string, list: NewRecipient[]) => {
          const tag = `POST ${list[0]?.name ?? '-'} x${list.length}`;
          log(`${tag} start`);
          try {
            const r = await (v as WatermarkingClient['registerRecipients']).call(target, siteId, list);
            log(`${tag} ok ${r.length}`);
            return r;
          } catch (e) {
            log(`${tag} err ${e instanceof Error ? e.message.slice(0, 120) : 'unknown'}`);
            throw e;
          }
        };
      }
      if (prop === 'searchRecipients') {
        return async (siteId: string, q: RecipientSearchQuery = {}) => {
          const r = await (v as WatermarkingClient['searchRecipients']).call(target, siteId, q);
          log(
            `SEARCH kw=${q.keywords?.[0] ?? '-'}(${q.keywords?.length ?? 0}) p${q.pageIndex ?? 1} -> ${r.items.length}/${r.totalCount}`,
          );
          return r;
        };
      }
      return (v as (...a: unknown[]) => unknown).bind(target);
    },
  });
}

async function main(): Promise<void> {
  const raw = process.env.FAULT_CHILD_CONFIG;
  if (!raw) throw new Error('FAULT_CHILD_CONFIG is not set');
  const c = JSON.parse(raw) as FaultChildConfig;
  if (c.mode === 'watch') await runWatch(c);
  else if (c.mode === 'replica') await runReplica(c);
  else await runRegister(c);
}

main().catch((e: unknown) => {
  say(`FAIL ${e instanceof Error ? e.message.slice(0, 300) : 'unknown error'}`);
  process.exit(2);
});
