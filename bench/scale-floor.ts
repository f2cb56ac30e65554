/**
 * The FLOOR of figure 3: the least a Node 20 process can do to watch the same sites, run next to
 * the bot's real-time process (bench/scale-bot.ts) against the same emulator set-up, so the 100 MB
 * goal can be read against what node and the libraries cost by themselves.
 *
 * What it does (none of the bot's src/ code; the same libraries the bot loads):
 * - at start, one token per site as src/api/wm-token.ts obtains it (GET /api/token/{siteId} with
 *   Basic base64(accountId:accessKey)), with undici, kept for the whole run;
 * - polls every site once per interval, evenly spread (site i at start + i x interval / N), at
 *   most `concurrency` polls at once (p-limit), over ONE keep-alive undici Agent;
 * - each poll makes the two job-list queries of the watcher's steady-state cycle
 *   (src/watch/poller.ts runCycle/fetchAll): the in-flight list (job_status DM000,DM001) and the
 *   terminal window (job_status DM500,DM600, `from` = the previous poll's date minus 5 min and
 *   24 h), page_unit 1000, time_zone +00:00; parses each answer with a zod schema of the envelope
 *   and its jobs;
 * - reads, compares and rewrites one small JSON state document per site (job id -> status and
 *   update time) in a keyv memory store;
 * - loads pino (a logger at warn), prom-client (a poll counter), jose and p-limit, like the bot.
 * What it does NOT do: no Slack app or Web API client, no subscriptions, filters or channel
 * routing, no task lookups (getJobTasks) or message rendering, no token refresh or retries, no
 * paging beyond the first page, no targets re-listing, no leases, no encryption of the store, no
 * metrics endpoint, no adaptive intervals.
 *
 * Measurement, the same as the bot's real-time run: RSS with the modules loaded; tokens and ONE
 * warm-up interval of polling; then the kernel's RSS high-water mark is reset and the window
 * (`cycles` intervals) measured, RSS sampled 5 times a second (heap spaces at the sampled peak).
 */
import 'jose'; // loaded like the bot loads it; not used by the poll itself
import { Keyv } from 'keyv';
import pLimit from 'p-limit';
import pino from 'pino';
import { Counter, Registry } from 'prom-client';
import { Agent, request } from 'undici';
import { z } from 'zod';
import { PeakSampler, resetHighWaterMark, rssSplit } from './scale-measure.js';
import { type ScaleStart, send, serveScaleChild, waitGo } from './scale-protocol.js';

/** RSS once the modules are loaded, before anything runs. */
const rssLoaded = process.memoryUsage().rss;
const loadedSplit = rssSplit();

const jobSchema = z.object({
  job_id: z.number().int().positive(),
  content_id: z.string(),
  job_status: z.string(),
  reg_time: z.string(),
  update_time: z.string(),
});
const envelopeSchema = z.object({
  error_code: z.string(),
  error_message: z.string(),
  time_zone: z.string().optional(),
  total_count: z.number().int().nonnegative().optional(),
  data: z.array(jobSchema),
});
const tokenEnvelopeSchema = z.object({
  error_code: z.literal('0000'),
  error_message: z.string(),
  data: z.object({ token: z.string().min(1) }),
});

/** The state document of a site: job id -> [status, update time] of its in-flight jobs. */
interface SiteDoc {
  polledAt: number;
  jobs: Record<string, [string, string]>;
  finished: number;
  changes: number;
}

const IN_FLIGHT = ['DM000', 'DM001'];
const TERMINAL = ['DM500', 'DM600'];
const PAGE_UNIT = 1000;
const SKEW_MS = 5 * 60_000;
const FROM_MARGIN_MS = 24 * 3600_000;

const sleepUntil = (t: number) => new Promise((r) => setTimeout(r, Math.max(0, t - Date.now())));

async function run(cfg: ScaleStart): Promise<void> {
  if (!cfg.realTime) throw new Error('the floor process runs in real time only');
  const log = pino({ level: 'warn' });
  const registry = new Registry();
  const pollCounter = new Counter({ name: 'floor_polls_total', help: 'polls', registers: [registry] });
  const agent = new Agent({ keepAliveTimeout: 30_000 });
  const kv = new Keyv<string>({ namespace: 'floor' });
  const limit = pLimit(cfg.concurrency);
  const base = cfg.wmBaseUrl.replace(/\/+$/, '');
  const tokens = new Map<string, string>();
  let requests = 0;
  let jobsParsed = 0;

  const getJson = async (path: string, authorization: string): Promise<unknown> => {
    requests++;
    const res = await request(`${base}${path}`, {
      method: 'GET',
      dispatcher: agent,
      headers: { authorization, accept: 'application/json' },
    });
    const body = await res.body.json();
    if (res.statusCode !== 200) throw new Error(`GET ${path.split('?')[0]}: HTTP ${res.statusCode}`);
    return body;
  };

  // Tokens, once at start: the same call as src/api/wm-token.ts.
  const basic = `Basic ${Buffer.from(`${cfg.accountId}:${cfg.accessKey}`, 'utf8').toString('base64')}`;
  await Promise.all(
    cfg.sites.map((site) =>
      limit(async () => {
        const env = tokenEnvelopeSchema.parse(await getJson(`/api/token/${encodeURIComponent(site)}`, basic));
        const t = env.data.token.trim();
        tokens.set(site, /^Bearer\s/i.test(t) ? t : `Bearer ${t}`);
      }),
    ),
  );
  const tokenCalls = requests;

  const list = async (site: string, statuses: string[], from?: string) => {
    const q = new URLSearchParams();
    for (const s of statuses) q.append('job_status', s);
    if (from) q.append('from', from);
    q.append('page_unit', String(PAGE_UNIT));
    q.append('page_index', '1');
    q.append('time_zone', '+00:00');
    const env = envelopeSchema.parse(
      await getJson(`/api/job/${encodeURIComponent(site)}?${q}`, tokens.get(site) as string),
    );
    if (env.error_code !== '0000') throw new Error(`${site}: error_code ${env.error_code}`);
    jobsParsed += env.data.length;
    return env.data;
  };

  let polls = 0;
  let pollErrors = 0;
  let warmupPolls = 0;
  let warmupErrors = 0;
  const poll = async (site: string) => {
    const start = Date.now();
    const raw = await kv.get(site);
    const prev: SiteDoc | undefined = raw ? (JSON.parse(raw) as SiteDoc) : undefined;
    const inflight = await list(site, IN_FLIGHT);
    const fromMs = (prev?.polledAt ?? start) - SKEW_MS - FROM_MARGIN_MS;
    const terminal = await list(site, TERMINAL, new Date(fromMs).toISOString().slice(0, 10));
    const jobs: SiteDoc['jobs'] = {};
    let changes = 0;
    for (const j of inflight) {
      const was = prev?.jobs[j.job_id];
      if (!was || was[0] !== j.job_status || was[1] !== j.update_time) changes++;
      jobs[j.job_id] = [j.job_status, j.update_time];
    }
    const doc: SiteDoc = { polledAt: start, jobs, finished: terminal.length, changes };
    await kv.set(site, JSON.stringify(doc));
    pollCounter.inc();
  };

  // Evenly spread: poll n (n = 0, 1, ...) of site n mod N is due at t0 + n x interval / N. The
  // first interval is the warm-up, then `cycles` measured intervals.
  const n = cfg.sites.length;
  const t0 = Date.now();
  const total = n * (1 + cfg.cycles);
  let next = 0;
  let queuedMax = 0;
  const pending = new Set<Promise<void>>();
  const dispatch = () => {
    const now = Date.now();
    while (next < total && t0 + (next * cfg.intervalMs) / n <= now) {
      const site = cfg.sites[next % n] as string;
      const inWindow = next >= n;
      next++;
      const p = limit(() => poll(site)).then(
        () => {
          if (inWindow) polls++;
          else warmupPolls++;
        },
        (e: unknown) => {
          if (inWindow) pollErrors++;
          else warmupErrors++;
          log.warn({ err: e instanceof Error ? e.message : String(e), site }, 'floor poll failed');
        },
      );
      pending.add(p);
      void p.finally(() => pending.delete(p));
    }
    queuedMax = Math.max(queuedMax, limit.pendingCount);
  };
  const dispatcher = setInterval(dispatch, 20);
  dispatch();

  // Warm-up interval, then the window.
  await sleepUntil(t0 + cfg.intervalMs);
  const maxRssBefore = process.resourceUsage().maxRSS;
  const sampler = new PeakSampler();
  const rssBefore = process.memoryUsage().rss;
  const peakReset = resetHighWaterMark(maxRssBefore);
  const requests0 = requests;
  const jobs0 = jobsParsed;
  const windowStart = Date.now();
  const cpu0 = process.cpuUsage();
  const real0 = performance.now();
  const go = waitGo();
  send({ type: 'boundary', cycle: 0, now: Date.now() });
  await go;
  const sampling = setInterval(() => sampler.sample(), 200);
  for (let cycle = 1; cycle <= cfg.cycles; cycle++) {
    await sleepUntil(windowStart + cycle * cfg.intervalMs);
    if (cycle < cfg.cycles) {
      const g = waitGo();
      send({ type: 'boundary', cycle, now: Date.now() });
      await g;
    }
  }
  clearInterval(sampling);
  clearInterval(dispatcher);
  sampler.sample();
  const cpu = process.cpuUsage(cpu0);
  const realMs = performance.now() - real0;
  const windowMaxRssKb = process.resourceUsage().maxRSS;
  const rssEnd = process.memoryUsage().rss;
  const windowPolls = polls;
  const windowErrors = pollErrors;
  const windowRequests = requests - requests0;
  const windowJobs = jobsParsed - jobs0;
  // Polls still running or queued at the end finish (not counted) before the store is read.
  await Promise.all([...pending]);
  global.gc?.();
  const heapLiveEnd = process.memoryUsage().heapUsed;
  const maxRssKb = process.resourceUsage().maxRSS;
  let stateBytes = 0;
  let stateDocs = 0;
  for (const site of cfg.sites) {
    const raw = await kv.get(site);
    if (raw) {
      stateDocs++;
      stateBytes += raw.length;
    }
  }
  await agent.close();
  send({
    type: 'result',
    baselineErrors: 0,
    cpuUserMs: cpu.user / 1000,
    cpuSystemMs: cpu.system / 1000,
    simulatedMs: realMs,
    realMs,
    polls: windowPolls,
    pollErrors: windowErrors,
    warmupPolls,
    warmupErrors,
    posts: 0,
    updates: 0,
    rssBeforeMb: rssBefore / 2 ** 20,
    rssLoadedMb: rssLoaded / 2 ** 20,
    rssEndMb: rssEnd / 2 ** 20,
    heapLiveEndMb: heapLiveEnd / 2 ** 20,
    maxRssAfterBaselineMb: maxRssBefore / 1024,
    sampledPeak: sampler.result(),
    ...(loadedSplit ? { loadedSplit } : {}),
    maxRssMb: Math.max(maxRssKb, maxRssBefore) / 1024,
    windowPeakRssMb: windowMaxRssKb / 1024,
    peakReset,
    floor: {
      tokenCalls,
      requests: windowRequests,
      stateDocs,
      stateKb: stateBytes / 1024,
      jobsPerPoll: windowRequests > 0 ? (2 * windowJobs) / windowRequests : 0,
      maxQueued: queuedMax,
    },
    nodeVersion: process.version,
    v8Version: process.versions.v8,
  });
}

serveScaleChild(run);
