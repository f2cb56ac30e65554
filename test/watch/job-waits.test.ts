/**
 * Durable workflow waits served by the job watcher (Slack-free; the emulator on loopback, a
 * virtual clock, upstream calls counted at the emulator): a pending wait makes its site watched
 * and polled fast while its job runs; the poll that sees the job finish completes the step once,
 * with no other upstream call (no second poller); exactly once with two replicas on one store
 * (one in-process store, and two connections to one Redis); a restart while pending; a crash
 * between the claim and the send; a failed send retried with the same result; the timeout.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { waitTimeoutMessage } from '../../src/slack/features/workflow-steps/waits.js';
import { createStore } from '../../src/store/index.js';
import type { Store } from '../../src/store/types.js';
import type { Watcher } from '../../src/watch/index.js';
import {
  addWait,
  createWaitCompleter,
  type JobWait,
  listWaits,
  type WaitCheck,
  type WaitsPort,
  waitsRepo,
} from '../../src/watch/job-waits.js';
import { drainWaitItems, WaitOutbox } from '../../src/watch/wait-outbox.js';
import { startTestRedis, type TestRedis } from '../support/redis.js';
import { ENCRYPTION_KEY, type Harness, SITE, SITE2, startHarness, WS } from './support/harness.js';

interface Sent {
  id: string;
  ok: boolean;
  payload: unknown;
  by: string;
}

function recordingPort(by = 'A', sent: Sent[] = []) {
  let check: (w: JobWait) => Promise<WaitCheck> = async () => ({ done: false });
  const port: WaitsPort & { sent: Sent[]; setCheck(c: typeof check): void; fails: number } = {
    sent,
    fails: 0,
    setCheck(c) {
      check = c;
    },
    async complete(w, outputs) {
      if (port.fails > 0) {
        port.fails--;
        throw new Error('slack down');
      }
      sent.push({ id: w.executionId, ok: true, payload: outputs, by });
      return 'sent';
    },
    async fail(w, error) {
      sent.push({ id: w.executionId, ok: false, payload: error, by });
      return 'sent';
    },
    jobOutputs: (job, tasks) => ({
      job_id: String(job.jobId),
      status: job.status,
      failed: tasks.filter((t) => t.failed).map((t) => t.recipient),
    }),
    check: (w) => check(w),
    timeoutMessage: waitTimeoutMessage,
  };
  return port;
}

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

function newWait(id: string, target: number | string, o: Partial<JobWait> = {}) {
  return {
    executionId: id,
    workspace: WS,
    siteId: SITE,
    kind: 'job' as const,
    target: String(target),
    deadline: (h as Harness).clock.now() + 3_600_000,
    userId: 'U1',
    ...o,
  };
}

/** Upstream calls by endpoint template (e.g. "GET /wm/api/job/:siteId/:jobId"), since `before`. */
function callsSince(before: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries((h as Harness).emu.requestCounts())) {
    const n = v - (before[k] ?? 0);
    if (n > 0 && k.includes('/wm/api/') && !k.includes('/token')) out[k] = n;
  }
  return out;
}

/** Run the scheduler of every watcher over `ms` of virtual time, `step` at a time. */
async function run(ws: Watcher[], ms: number, step = 500): Promise<void> {
  for (let t = 0; t < ms; t += step) {
    (h as Harness).tick(step);
    for (const w of ws) await w.tick();
  }
}

describe('a wait is a consumer of the job watcher', () => {
  it('its site is watched and polled fast; the poll that sees the job finish completes it once, with no extra call', async () => {
    h = await startHarness();
    const port = recordingPort();
    const w = h.watcher({ jitter: 0, activeIntervalMs: 3000, waits: port });
    const job = h.emu.createJob(SITE, 'wait-1', [{ recipient: 'alice' }, { recipient: 'bob' }]);
    // No subscription on the site: the wait alone makes it watched.
    expect(await addWait(h.store, newWait('Fx-1', job), () => h!.clock.now())).toBe(true);
    const before = h.emu.requestCounts();
    await run([w], 30_000);
    const st = (await w.status()).sites.find((s) => s.siteId === SITE);
    expect(st?.lastDelayMs).toBe(3000); // its job is in flight: the active interval
    expect(port.sent).toEqual([]);
    // Only the poller's two list queries per cycle: nobody looks the job up on the side.
    const whileRunning = callsSince(before);
    expect(Object.keys(whileRunning).sort()).toEqual(['GET /wm/api/job/:siteId']);
    expect(whileRunning['GET /wm/api/job/:siteId']).toBeGreaterThanOrEqual(2 * 9);

    const tasks = (await h.api.watermarking(h.creds.watermarking!).getJobTasks(SITE, job)).items;
    h.emu.finishJob(SITE, job, { failDwmIds: [tasks.find((t) => t.recipient === 'bob')!.dwmId] });
    const atFinish = h.emu.requestCounts();
    for (let i = 0; i < 20 && port.sent.length === 0; i++) await run([w], 500);
    expect(port.sent).toEqual([
      {
        id: 'Fx-1',
        ok: true,
        payload: { job_id: String(job), status: expect.stringMatching(/^DM[56]00$/), failed: ['bob'] },
        by: 'A',
      },
    ]);
    // The finishing cycle: its list queries and the finished job's tasks, once; no getJob.
    expect(callsSince(atFinish)).toEqual({
      'GET /wm/api/job/:siteId': 2,
      'GET /wm/api/job/:siteId/:jobId/recipient': 1,
    });
    // Done: the wait left the index, the site is no longer polled, nothing is sent again.
    expect(await listWaits(h.store)).toEqual([]);
    const after = h.emu.requestCounts();
    await run([w], 5 * 60_000, 5000);
    expect(callsSince(after)).toEqual({});
    expect(port.sent).toHaveLength(1);
  });

  it('a job that finished before the wait reached the watcher is looked up once and completes it', async () => {
    h = await startHarness();
    const port = recordingPort();
    const w = h.watcher({ jitter: 0, activeIntervalMs: 3000, waits: port });
    await w.subscriptions.create(WS, {
      channelId: 'C1',
      siteId: SITE,
      filters: { statuses: [], mode: 'all' },
      createdBy: 'U1',
    });
    const job = h.emu.createJob(SITE, 'wait-early', [{ recipient: 'a' }]);
    await run([w], 10_000);
    h.emu.finishJob(SITE, job);
    await run([w], 10_000); // the site's cycle records it finished: no wait existed yet
    h.tick(10 * 60_000); // the wait is stored later (the step read the job just before it ended)
    await addWait(h.store, newWait('Fx-early', job), () => h!.clock.now());
    w.wake(WS, SITE);
    for (let i = 0; i < 20 && port.sent.length === 0; i++) await run([w], 500);
    expect(port.sent.map((s) => [s.id, s.ok])).toEqual([['Fx-early', true]]);
  });

  it('a non-job wait (a registration) is checked through the port without upstream calls', async () => {
    h = await startHarness();
    const port = recordingPort();
    const w = h.watcher({ jitter: 0, activeIntervalMs: 3000, waits: port });
    let finished = false;
    port.setCheck(async () =>
      finished ? { done: true, ok: true, outputs: { registered_count: 3 } } : { done: false },
    );
    await addWait(h.store, newWait('Fx-reg', 'report-1', { kind: 'registration' }), () => h!.clock.now());
    const before = h.emu.requestCounts();
    await run([w], 10_000);
    expect(port.sent).toEqual([]);
    finished = true;
    await run([w], 5000);
    expect(port.sent).toEqual([{ id: 'Fx-reg', ok: true, payload: { registered_count: 3 }, by: 'A' }]);
    expect(callsSince(before)).toEqual({});
  });

  it('times out at the deadline, not before, with what / why / next; then the site is left alone', async () => {
    h = await startHarness();
    const port = recordingPort();
    const w = h.watcher({ jitter: 0, activeIntervalMs: 3000, waits: port });
    const job = h.emu.createJob(SITE, 'wait-slow', [{ recipient: 'a' }]);
    await addWait(h.store, newWait('Fx-timeout', job), () => h!.clock.now());
    await run([w], 59 * 60_000, 30_000);
    expect(port.sent).toEqual([]);
    await run([w], 2 * 60_000, 3000);
    expect(port.sent).toHaveLength(1);
    expect(port.sent[0]!.ok).toBe(false);
    expect(String(port.sent[0]!.payload)).toBe(
      `Job ${job} on site ${SITE} did not finish within 1 hour, so the wait step stopped. The job itself keeps running: check it with /dwm job ${job} site:${SITE}, and give the step a longer timeout if jobs take longer.`,
    );
    // The job finishing later changes nothing.
    h.emu.finishJob(SITE, job);
    await run([w], 5 * 60_000, 5000);
    expect(port.sent).toHaveLength(1);
  });

  it('restart while pending: a new watcher on the same store completes it once', async () => {
    h = await startHarness({ storeUrl: 'sqlite' });
    const sent: Sent[] = [];
    const a = h.watcher({
      holderId: 'replica-a',
      jitter: 0,
      activeIntervalMs: 3000,
      waits: recordingPort('A', sent),
    });
    const job = h.emu.createJob(SITE, 'wait-restart', [{ recipient: 'a' }]);
    await addWait(h.store, newWait('Fx-restart', job), () => h!.clock.now());
    await run([a], 10_000);
    await a.stop(); // the process ends (its leases are released)
    h.emu.finishJob(SITE, job);
    const b = h.watcher({
      holderId: 'replica-b',
      jitter: 0,
      activeIntervalMs: 3000,
      waits: recordingPort('B', sent),
    });
    await run([b], 10_000);
    expect(sent.map((s) => [s.id, s.ok, s.by])).toEqual([['Fx-restart', true, 'B']]);
    await run([b], 60_000, 5000);
    expect(sent).toHaveLength(1);
  });

  it('a crash after the item was written and the claim made: the next process sends the stored result once', async () => {
    h = await startHarness();
    const sent: Sent[] = [];
    const portA = recordingPort('A', sent);
    portA.fails = 1000; // every send of this process dies (as if it died mid-call)
    const a = h.watcher({ holderId: 'replica-a', jitter: 0, activeIntervalMs: 3000, waits: portA });
    const job = h.emu.createJob(SITE, 'wait-crash', [{ recipient: 'a' }]);
    await addWait(h.store, newWait('Fx-crash', job), () => h!.clock.now());
    await run([a], 5000);
    h.emu.finishJob(SITE, job);
    await run([a], 5000);
    expect(sent).toEqual([]);
    const stored = await waitsRepo(h.store).get(WS, 'Fx-crash');
    expect(stored?.state).toBe('completing');
    expect(stored?.result?.ok).toBe(true);
    await a.stop();
    const b = h.watcher({
      holderId: 'replica-b',
      jitter: 0,
      activeIntervalMs: 3000,
      waits: recordingPort('B', sent),
    });
    await run([b], 60_000, 2000);
    expect(sent.map((s) => [s.id, s.by])).toEqual([['Fx-crash', 'B']]);
    expect(stored?.result).toEqual({ ok: true, outputs: sent[0]!.payload });
  });
});

async function twoReplicas(storeA: Store, storeB: Store) {
  const sent: Sent[] = [];
  const ha = h as Harness;
  const mk = (holderId: string, store: Store, by: string) =>
    ha.watcher({ holderId, store, jitter: 0, activeIntervalMs: 3000, waits: recordingPort(by, sent) });
  const a = mk('replica-a', storeA, 'A');
  const b = mk('replica-b', storeB, 'B');
  const jobs: Array<[string, number]> = [];
  const ids: string[] = [];
  for (const site of [SITE, SITE2]) {
    for (let i = 0; i < 4; i++) {
      const job = ha.emu.createJob(site, `two-${site}-${i}`, [{ recipient: 'a' }]);
      const id = `Fx-2r-${site}-${i}`;
      await addWait(storeA, newWait(id, job, { siteId: site }), () => ha.clock.now());
      jobs.push([site, job]);
      ids.push(id);
    }
  }
  await run([a, b], 10_000);
  for (const [site, job] of jobs) ha.emu.finishJob(site, job);
  // Both replicas poll (by lease and preference) and also race pollOnce on both sites.
  for (let i = 0; i < 20 && sent.length < jobs.length; i++) {
    ha.tick(1000);
    await Promise.all([a.tick(), b.tick(), a.pollOnce(WS, SITE), b.pollOnce(WS, SITE2)]);
  }
  await run([a, b], 30_000);
  expect(sent.map((s) => s.id).sort()).toEqual(ids.sort());
  expect(await listWaits(storeB)).toEqual([]);
}

describe('two replicas on one store', () => {
  it('one in-process store: each wait is completed by exactly one replica', async () => {
    h = await startHarness();
    await twoReplicas(h.store, h.store);
  });

  it('the claim alone keeps it once: two drains racing on the same items (no site lease)', async () => {
    h = await startHarness();
    const sent: Sent[] = [];
    const outbox = new WaitOutbox(h.store);
    const ids = Array.from({ length: 6 }, (_, i) => `Fx-race-${i}`);
    for (const id of ids) {
      await addWait(h.store, newWait(id, 1), () => h!.clock.now());
      await outbox.add([
        {
          workspace: WS,
          siteId: SITE,
          executionId: id,
          reason: 'finished',
          result: { ok: true, outputs: { id } },
          createdAt: h.clock.now(),
          attempts: 0,
        },
      ]);
    }
    const drain = (by: string) =>
      drainWaitItems(
        {
          outbox,
          completer: createWaitCompleter({ store: h!.store, port: recordingPort(by, sent), holder: by }),
          store: h!.store,
          now: () => h!.clock.now(),
          onError: () => undefined,
        },
        WS,
        SITE,
      );
    await Promise.all([drain('A'), drain('B'), drain('A')]);
    await Promise.all([drain('A'), drain('B')]);
    expect(sent.map((s) => s.id).sort()).toEqual([...ids].sort());
    expect(await outbox.pending(WS)).toEqual([]);
  });
});

describe('two replicas on two connections to one Redis', () => {
  let redis: TestRedis;
  let s1: Store;
  let s2: Store;
  const ns = `waits-${process.pid}`;
  beforeAll(async () => {
    redis = await startTestRedis();
    s1 = await createStore({ url: redis.url, encryptionKey: ENCRYPTION_KEY, namespace: ns });
    s2 = await createStore({ url: redis.url, encryptionKey: ENCRYPTION_KEY, namespace: ns });
  }, 30_000);
  afterAll(async () => {
    await s1?.close();
    await s2?.close();
    await redis?.stop([ns]);
  });

  it('each wait is completed by exactly one replica', async () => {
    h = await startHarness({ store: s1 });
    await twoReplicas(s1, s2);
  });
});

describe('a failed completion', () => {
  it('is retried at a later drain with the same result', async () => {
    h = await startHarness();
    const port = recordingPort();
    port.fails = 1;
    const w = h.watcher({ jitter: 0, activeIntervalMs: 3000, waits: port });
    const job = h.emu.createJob(SITE, 'wait-retry', [{ recipient: 'a' }]);
    await addWait(h.store, newWait('Fx-retry', job), () => h!.clock.now());
    await run([w], 5000);
    h.emu.finishJob(SITE, job);
    const attempts = async () => (await w.waits!.outbox.pending(WS)).map((i) => i.attempts);
    for (let i = 0; i < 20 && (await attempts()).length === 0; i++) await run([w], 500);
    expect(port.sent).toEqual([]);
    expect(await attempts()).toEqual([1]);
    await run([w], 30_000);
    expect(port.sent.map((s) => s.id)).toEqual(['Fx-retry']);
    expect(await w.waits!.outbox.pending(WS)).toEqual([]);
  });
});
