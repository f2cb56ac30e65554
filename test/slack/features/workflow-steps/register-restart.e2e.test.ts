/**
 * The Workflow Builder "Register recipients" step when the bot restarts mid-run: who is shown the
 * progress and the final report. The run starts from a signed `function_executed` event through
 * the real app; process A then dies mid-run (its report writes never return once a batch is done,
 * as after kill -9: it does nothing more); process B (new store connection, new app, its watcher)
 * resumes the run as main.ts does at start and completes the step. The report goes to the person
 * the run is for, stored with the run: "Requested by", else nobody (only the step's outputs), and
 * never the bot's own user. Also: a run record written before that field was stored.
 */

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { FakeCall } from '../../../../dev/fakeslack/index.js';
import {
  loadRun,
  REPORTS_NAMESPACE,
  reportRepo,
} from '../../../../src/ops/watermarking/registration/records.js';
import type { RegistrationReport } from '../../../../src/ops/watermarking/registration/run.js';
import { createSlackApp } from '../../../../src/slack/app.js';
import type { AppDeps } from '../../../../src/slack/deps.js';
import { FEATURES } from '../../../../src/slack/features/index.js';
import { resumePendingRegistrations } from '../../../../src/slack/features/register/index.js';
import { workflowUserOf } from '../../../../src/slack/kit/interactions/steps.js';
import { createWatchRuntime } from '../../../../src/slack/watch-runtime.js';
import { createStore } from '../../../../src/store/index.js';
import type { AtomicDocRepo, Store } from '../../../../src/store/types.js';
import { listWaits } from '../../../../src/watch/job-waits.js';
import { startTestBot, type TestBot } from '../../../harness/index.js';
import { storeInterruptedRun } from '../../../support/interrupted-run.js';

type Obj = Record<string, unknown>;

const SLACK_WRITES = [
  'chat.postMessage',
  'chat.update',
  'chat.postEphemeral',
  'files.completeUploadExternal',
];

/** Every message the bot wrote to a channel, after `seq`. */
function writes(bot: TestBot, seq = 0): FakeCall[] {
  return bot.fake.calls().filter((c) => c.seq > seq && SLACK_WRITES.includes(c.method));
}

/** Calls that wrote to the bot's own user or its DM. */
function toBotItself(bot: TestBot): FakeCall[] {
  const bu = bot.ws.botUserId;
  const dm = `D${bu.slice(1)}`;
  return bot.fake
    .calls()
    .filter(
      (c) =>
        SLACK_WRITES.includes(c.method) &&
        [c.args.channel, c.args.channel_id].some((ch) => ch === bu || ch === dm),
    );
}

/** Registration progress and report messages (anything in a DM that talks about registering). */
function registrationMessages(bot: TestBot, seq = 0): FakeCall[] {
  return writes(bot, seq).filter((c) => /^Regist(ering|ration|ered)/.test(String(c.args.text ?? '')));
}

function completion(bot: TestBot, executionId: string, timeoutMs = 30_000): Promise<FakeCall> {
  return bot.fake.waitFor(
    (c) =>
      (c.method === 'functions.completeSuccess' || c.method === 'functions.completeError') &&
      c.args.function_execution_id === executionId,
    timeoutMs,
  );
}

/**
 * Process A dies mid-run: once a report write would record a finished batch (its POST was
 * applied upstream), that write and every later one of the registration report never return, so
 * the runner does nothing more (no progress, no report, no completion), as after kill -9.
 */
function dieAfterFirstBatch(store: Store): { dead: () => boolean } {
  let dead = false;
  const docs = store.docs;
  store.docs = ((ns: string, schema?: never) => {
    const repo = docs.call(store, ns, schema);
    if (ns !== REPORTS_NAMESPACE) return repo;
    const atomic = repo as AtomicDocRepo<RegistrationReport>;
    const never = new Promise<never>(() => {});
    return {
      ...atomic,
      put: async (...a: Parameters<typeof atomic.put>) => (dead ? never : atomic.put(...a)),
      update: async (...a: Parameters<typeof atomic.update>) => {
        if (dead) return never;
        const [ws, id, fn] = a;
        const next = fn(structuredClone(await atomic.get(ws, id)));
        if (next?.batches.some((b) => b.state === 'done')) {
          dead = true;
          return never;
        }
        return atomic.update(...a);
      },
    };
  }) as typeof store.docs;
  return { dead: () => dead };
}

/** Process B: a new store connection and app on the same SQLite file, and its watch runtime. */
async function restart(bot: TestBot) {
  await bot.handle.stop();
  const store = await createStore({
    url: bot.config.storeUrl,
    encryptionKey: bot.config.encryptionKey,
    previousEncryptionKeys: bot.config.previousEncryptionKeys,
    namespace: bot.storeNamespace,
  });
  const deps: AppDeps = { ...bot.deps, store };
  const handle = createSlackApp(deps, { retryConfig: { retries: 0 } });
  await handle.start();
  const watch = createWatchRuntime(deps, handle.app, {
    features: FEATURES,
    holderId: 'process-b',
    watcher: { jitter: 0 },
  });
  return {
    deps,
    watch,
    async stop() {
      await watch.stop();
      await handle.stop();
      await store.close();
    },
  };
}

const NAMES = Array.from({ length: 160 }, (_, i) => `wf-mid-${String(i).padStart(3, '0')}`);

describe('Register recipients step: a restart mid-run shows the report to the person the run is for', () => {
  let bot: TestBot;
  beforeEach(async () => {
    bot = await startTestBot({
      credentials: 'env',
      store: 'sqlite',
      // WORKFLOW_UNATTENDED=all: a registration step may run with no person (Requested by empty).
      env: { REGISTRATION_INFLIGHT_GRACE_SECONDS: '1', WORKFLOW_UNATTENDED: 'all' },
    });
  });
  afterEach(async () => {
    await bot?.close();
  });

  async function runUntilDead(inputs: Obj) {
    const process = dieAfterFirstBatch(bot.deps.store);
    const r = await bot.functionExecuted({ callbackId: 'register_recipients', inputs });
    expect(r.status).toBe(200);
    await vi.waitFor(
      () => {
        if (!process.dead()) throw new Error('process A has not died mid-run yet');
      },
      { timeout: 30_000, interval: 20 },
    );
    const wait = (await listWaits(bot.store)).find((w) => w.executionId === r.executionId);
    expect(wait?.kind).toBe('registration');
    return { ...r, reportId: wait!.target, deadAt: bot.fake.calls().at(-1)?.seq ?? 0 };
  }

  it('with "Requested by": the resumed run updates the requester\'s DM progress message with the report; the bot is never written to', async () => {
    const member = bot.ws.member;
    const r = await runUntilDead({ site: 'DEMO', recipients: NAMES.join('\n'), requested_by: member });
    // The run record says whom the run is for.
    const run = await loadRun(bot.deps, bot.ws.teamId, r.reportId);
    expect(run).toMatchObject({ userId: member, dmUserId: member });
    const progress = bot.fake
      .calls('chat.postMessage')
      .find(
        (c) => c.args.channel === member && String(c.args.text).startsWith('Registering recipients on DEMO'),
      );
    expect(progress).toBeDefined();
    const { channel, ts } = progress!.response as { channel: string; ts: string };

    const b = await restart(bot);
    try {
      expect(
        (await resumePendingRegistrations(b.deps, { staleAfterMs: 0, retryDeferred: false })).resumed,
      ).toEqual([r.reportId]);
      await b.watch.watcher.pollOnce(bot.ws.teamId, 'DEMO');
      const c = await completion(bot, r.executionId);
      expect(c.method, String(c.args.error)).toBe('functions.completeSuccess');
      expect((c.args.outputs as Obj).registered_count).toBe(160);
      expect(String((c.args.outputs as Obj).report_link)).toContain(
        `/archives/${channel}/p${ts.replace('.', '')}`,
      );

      // The report replaced the requester's progress message (process B wrote it).
      const report = writes(bot, r.deadAt).filter(
        (u) =>
          u.args.channel === channel && /^Registered \d+ recipients? on DEMO\./.test(String(u.args.text)),
      );
      expect(report.length).toBeGreaterThan(0);
      expect(report.every((u) => u.method === 'chat.update' && u.args.ts === ts)).toBe(true);
      // Nothing about the registration went anywhere else, and nothing to the bot itself.
      expect(
        registrationMessages(bot).filter((m) => m.args.channel !== member && m.args.channel !== channel),
      ).toEqual([]);
      expect(toBotItself(bot)).toEqual([]);
      const entry = await vi.waitFor(
        async () => {
          const e = (await b.deps.store.audit.list(bot.ws.teamId, { limit: 50 })).find(
            (x) => x.action === 'recipient.register',
          );
          if (!e) throw new Error('no recipient.register audit entry yet');
          return e;
        },
        { timeout: 30_000, interval: 20 },
      );
      expect(entry).toMatchObject({ userId: member });
    } finally {
      await b.stop();
    }
  });

  it('with "Requested by" left empty: no DM before or after the restart, the step completes with its outputs only, the bot is never written to', async () => {
    const r = await runUntilDead({ site: 'DEMO', recipients: NAMES.join('\n') });
    const run = await loadRun(bot.deps, bot.ws.teamId, r.reportId);
    expect(run?.dmUserId).toBeNull();

    const b = await restart(bot);
    try {
      expect(
        (await resumePendingRegistrations(b.deps, { staleAfterMs: 0, retryDeferred: false })).resumed,
      ).toEqual([r.reportId]);
      await b.watch.watcher.pollOnce(bot.ws.teamId, 'DEMO');
      const c = await completion(bot, r.executionId);
      expect(c.method, String(c.args.error)).toBe('functions.completeSuccess');
      expect(c.args.outputs).toMatchObject({ registered_count: 160, failed_count: 0, report_link: '' });
      // The audit entry of the run is written after the report would have been shown: wait for
      // it, then nothing was posted about the registration to anyone, nor to the bot.
      await vi.waitFor(
        async () => {
          const audited = (await b.deps.store.audit.list(bot.ws.teamId, { limit: 50 })).some(
            (x) => x.action === 'recipient.register',
          );
          if (!audited) throw new Error('no recipient.register audit entry yet');
        },
        { timeout: 30_000, interval: 20 },
      );
      expect(registrationMessages(bot)).toEqual([]);
      expect(toBotItself(bot)).toEqual([]);
    } finally {
      await b.stop();
    }
  });

  it('with "Requested by" empty but the workflow started by a person (an interactivity input): that person gets the report', async () => {
    const person = bot.ws.admin;
    const r = await bot.functionExecuted({
      callbackId: 'register_recipients',
      inputs: {
        site: 'DEMO',
        recipients: 'wf-click-1\nwf-click-2',
        interactivity: { interactivity_pointer: '123.456.abc', interactor: { id: person, secret: 'x' } },
      },
    });
    const c = await completion(bot, r.executionId);
    expect(c.method, String(c.args.error)).toBe('functions.completeSuccess');
    expect(String((c.args.outputs as Obj).report_link)).toMatch(/\/archives\/D/);
    const reportId = (
      await bot.store.docs<{ reportId: string; dmUserId?: string | null }>('wm-reg-runs').list(bot.ws.teamId)
    )[0];
    expect(await loadRun(bot.deps, bot.ws.teamId, reportId!)).toMatchObject({
      userId: person,
      dmUserId: person,
    });
    expect(registrationMessages(bot).length).toBeGreaterThan(0);
    expect(
      registrationMessages(bot).every(
        (m) => m.args.channel === person || m.args.channel === `D${person.slice(1)}`,
      ),
    ).toBe(true);
    expect(toBotItself(bot)).toEqual([]);
  });

  it('a run taken over by another runner (a replica resumed it) leaves the report and the audit entry to that runner: one of each', async () => {
    const member = bot.ws.member;
    const ws = bot.ws.teamId;
    // Process A's first POST is slow: the run looks stale to process B, which resumes it.
    bot.emulator!.faults.add({ match: /^POST \/wm\/api\/recipient/, latencyMs: 4000, times: 1 });
    const r = await bot.functionExecuted({
      callbackId: 'register_recipients',
      inputs: { site: 'DEMO', recipients: 'wf-take-1\nwf-take-2\nwf-take-3', requested_by: member },
    });
    const wait = await vi.waitFor(
      async () => {
        const w = (await listWaits(bot.store)).find((x) => x.executionId === r.executionId);
        if (!w) throw new Error('the wait is not stored yet');
        return w;
      },
      { timeout: 30_000, interval: 20 },
    );
    const reportId = wait.target;
    await vi.waitFor(
      async () => {
        if ((await reportRepo(bot.deps).get(ws, reportId))?.batches[0]?.state !== 'sending')
          throw new Error('batch 0 is not in flight yet');
      },
      { timeout: 30_000, interval: 20 },
    );
    expect(
      (await resumePendingRegistrations(bot.deps, { staleAfterMs: 0, retryDeferred: false })).resumed,
    ).toEqual([reportId]);
    // The step completes when process A's runner ends (its settle reads the stored report, which
    // B finished): A saw it was taken over, and shows and audits nothing.
    const c = await completion(bot, r.executionId);
    expect(c.method, String(c.args.error)).toBe('functions.completeSuccess');
    expect((c.args.outputs as Obj).registered_count).toBe(3);
    const audits = (await bot.store.audit.list(ws, { limit: 50 })).filter(
      (e) => e.action === 'recipient.register' && e.detail.includes(reportId),
    );
    expect(audits).toHaveLength(1);
    expect(audits[0]).toMatchObject({ userId: member, result: 'ok' });
    const reports = registrationMessages(bot).filter((m) =>
      /^Registered \d+ recipients? on DEMO/.test(String(m.args.text)),
    );
    expect(reports.map((m) => String(m.args.text).slice(0, 40))).toEqual([
      expect.stringMatching(/^Registered \d+ recipients? on DEMO\./),
    ]);
    expect(
      bot.logs
        .entries()
        .some((e) => e.reportId === reportId && String(e.msg).startsWith('registration taken over')),
    ).toBe(true);
  });

  it('a run record stored before "whom to show it" was recorded: the bot\'s own user id in it gets nothing', async () => {
    const ws = bot.ws.teamId;
    const ex = bot.fake.startFunctionExecution(ws);
    const reportId = 'wf-legacy-report';
    // As the step wrote it for a workflow without "Requested by": the bot's user id, no DM message.
    await storeInterruptedRun(bot, {
      reportId,
      names: ['wf-old-1', 'wf-old-2'],
      userId: bot.ws.botUserId,
      step: { executionId: ex.executionId },
    });
    const seq = bot.fake.calls().at(-1)?.seq ?? 0;
    expect((await resumePendingRegistrations(bot.deps)).resumed).toEqual([reportId]);
    const watch = createWatchRuntime(bot.deps, bot.handle.app, {
      features: FEATURES,
      holderId: 'legacy',
      watcher: { jitter: 0 },
    });
    try {
      await watch.watcher.pollOnce(ws, 'DEMO');
      const c = await completion(bot, ex.executionId);
      expect(c.method).toBe('functions.completeSuccess');
      expect(registrationMessages(bot, seq)).toEqual([]);
      expect(toBotItself(bot)).toEqual([]);
    } finally {
      await watch.stop();
    }
  });

  it('a run record stored before that field, for a person with a DM progress message: still their report', async () => {
    const reportId = 'wf-legacy-person';
    const { progress } = await storeInterruptedRun(bot, {
      reportId,
      names: ['wf-old-3'],
      userId: bot.ws.member,
      progressDm: true,
    });
    expect((await resumePendingRegistrations(bot.deps)).resumed).toEqual([reportId]);
    const updates = bot.fake
      .calls('chat.update')
      .filter((u) => u.args.channel === progress?.channel && u.args.ts === progress?.ts);
    expect(String(updates.at(-1)?.args.text)).toMatch(/^Registered \d+ recipients? on DEMO\./);
  });
});

describe('the workflow user a step runs for when "Requested by" is empty', () => {
  it("is the event context user or an interactivity input's interactor, never the bot", () => {
    const bot = 'U0BOT00A';
    expect(workflowUserOf({}, { botUserId: bot })).toBeUndefined();
    expect(workflowUserOf({}, { userId: 'U0PERSON', botUserId: bot })).toBe('U0PERSON');
    expect(workflowUserOf({}, { userId: bot, botUserId: bot })).toBeUndefined();
    const interactivity = { interactivity_pointer: '1.2.abc', interactor: { id: 'U0CLICKER', secret: 's' } };
    expect(workflowUserOf({ interactivity, recipients: 'a' }, { botUserId: bot })).toBe('U0CLICKER');
    expect(
      workflowUserOf({ interactivity: { interactor: { id: bot } } }, { botUserId: bot }),
    ).toBeUndefined();
    expect(workflowUserOf({ interactivity: { interactor: { id: 'not a user' } } }, {})).toBeUndefined();
  });
});
