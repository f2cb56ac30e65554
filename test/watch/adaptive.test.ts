/**
 * Adaptive polling: the pure policy (delays, jitter, budget, 429) and the watcher's scheduler on
 * the fake clock against the emulator (calls counted at the emulator).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { CallBudget, nextPollDelay, rateLimitWaitMs, retryAfterOf } from '../../src/watch/adaptive.js';
import { Subscriptions, type Watcher } from '../../src/watch/index.js';
import { type Harness, SITE, SITE2, startHarness, WS } from './support/harness.js';

const policy = { idleMs: 60_000, activeMs: 3000, jitter: 0.1 };

describe('adaptive policy (pure)', () => {
  it('polls fast while jobs are in flight or changed, and doubles each quiet cycle up to the idle interval', () => {
    expect(nextPollDelay(policy, 7, { inflight: 2, changed: 0 }, 0.5)).toEqual({ delayMs: 3000, quiet: 0 });
    expect(nextPollDelay(policy, 7, { inflight: 0, changed: 1 }, 0.5)).toEqual({ delayMs: 3000, quiet: 0 });
    const delays: number[] = [];
    let quiet = 0;
    for (let i = 0; i < 7; i++) {
      const n = nextPollDelay({ ...policy, jitter: 0 }, quiet, { inflight: 0, changed: 0 }, 0.5);
      delays.push(n.delayMs);
      quiet = n.quiet;
    }
    expect(delays).toEqual([6000, 12_000, 24_000, 48_000, 60_000, 60_000, 60_000]);
  });

  it('jitters +-10% while active, but only upward at the idle interval', () => {
    const active = { inflight: 1, changed: 0 };
    expect(nextPollDelay(policy, 0, active, 0).delayMs).toBeCloseTo(2700);
    expect(nextPollDelay(policy, 0, active, 0.999_999).delayMs).toBeCloseTo(3300, 0);
    const idle = { inflight: 0, changed: 0 };
    expect(nextPollDelay(policy, 10, idle, 0).delayMs).toBe(60_000);
    expect(nextPollDelay(policy, 10, idle, 0.999_999).delayMs).toBeCloseTo(66_000, 0);
  });

  it('the active interval never exceeds the idle one', () => {
    const p = { idleMs: 5000, activeMs: 30_000, jitter: 0 };
    expect(nextPollDelay(p, 0, { inflight: 1, changed: 0 }, 0.5).delayMs).toBe(5000);
  });

  it('a 429 transport error asks for its Retry-After, or the fallback; a 503 only with one; other errors for nothing', () => {
    expect(rateLimitWaitMs({ kind: 'transport', status: 429, retryAfterMs: 7000 }, 60_000)).toBe(7000);
    expect(rateLimitWaitMs({ kind: 'transport', status: 429 }, 60_000)).toBe(60_000);
    expect(rateLimitWaitMs({ kind: 'transport', status: 503 }, 60_000)).toBeUndefined();
    expect(rateLimitWaitMs({ kind: 'transport', status: 503, retryAfterMs: 4000 }, 60_000)).toBe(4000);
    expect(rateLimitWaitMs(new Error('x'), 60_000)).toBeUndefined();
    expect(retryAfterOf({ kind: 'transport', status: 429 })).toBeUndefined();
    expect(retryAfterOf({ kind: 'transport', status: 500, retryAfterMs: 4000 })).toBeUndefined();
  });

  it('call budget: a full bucket admits, a spent one says how long to wait, and refills', () => {
    const b = new CallBudget(60, 0); // one call per second
    expect(b.waitFor(2, 0)).toBe(0);
    b.spend(60, 0);
    expect(b.waitFor(2, 0)).toBe(2000);
    expect(b.waitFor(2, 2000)).toBe(0);
    b.spend(30, 2000); // may go negative: a cycle's cost is known after it
    expect(b.waitFor(1, 2000)).toBe(29_000);
    expect(b.available(2000 + 120_000)).toBe(60);
  });
});

let h: Harness;
afterEach(async () => {
  await h?.close();
});

async function sub(w: Watcher, channelId: string, siteId = SITE) {
  await w.subscriptions.create(WS, {
    channelId,
    siteId,
    filters: { statuses: [], mode: 'all' },
    createdBy: 'U123',
  });
}

function wmCalls(): number {
  let n = 0;
  for (const [k, v] of Object.entries(h.emu.requestCounts())) if (k.includes('/wm/api/')) n += v;
  return n;
}

/** Run the scheduler by hand over `ms` of fake time in `step` steps (what its timer does). */
async function run(w: Watcher, ms: number, step = 250): Promise<void> {
  for (let t = 0; t < ms; t += step) {
    h.tick(step);
    await w.tick();
  }
}

async function site(w: Watcher, siteId = SITE) {
  const st = (await w.status()).sites.find((s) => s.siteId === siteId);
  if (!st) throw new Error(`no status for ${siteId}`);
  return st;
}

describe('adaptive polling in the watcher (fake clock, emulator)', () => {
  it('a site with a job in flight is polled every active interval; its finish is posted within it', async () => {
    h = await startHarness();
    const w = h.watcher({ jitter: 0, activeIntervalMs: 3000 });
    await sub(w, 'C1');
    await w.tick(); // baseline
    const job = h.emu.createJob(SITE, 'adaptive-1', [{ recipient: 'a' }]);
    await run(w, 60_000); // the idle site notices the job within an idle interval
    expect(h.poster.cardOf('C1', job)).toBeDefined();
    expect((await site(w)).lastDelayMs).toBe(3000);
    // It finishes: posted at the next fast poll, at most 3 s (+ the scheduler's step) later, plus
    // the channel pacing of 1 s (the card is edited first, then the final goes to its thread).
    h.emu.finishJob(SITE, job);
    const finishedAt = h.clock.now();
    let postedAt: number | undefined;
    for (let i = 0; i < 40 && postedAt === undefined; i++) {
      h.tick(250);
      await w.tick();
      if (h.poster.messages.some((m) => m.key.endsWith(`|${job}|final:DM500`))) postedAt = h.clock.now();
    }
    expect(postedAt).toBeDefined();
    expect((postedAt as number) - finishedAt).toBeLessThanOrEqual(3000 + 250 + 1000);
  });

  it('after the last change it backs off 6, 12, 24, 48 s to the idle interval', async () => {
    h = await startHarness();
    const w = h.watcher({ jitter: 0, activeIntervalMs: 3000 });
    await sub(w, 'C1');
    const job = h.emu.createJob(SITE, 'adaptive-2', [{ recipient: 'a' }]);
    await w.tick(); // baseline: one job in flight -> fast
    expect((await site(w)).lastDelayMs).toBe(3000);
    h.emu.finishJob(SITE, job);
    const delays: number[] = [];
    let polls = (await site(w)).lastPollAt;
    while (delays.length < 7) {
      h.tick(250);
      await w.tick();
      const st = await site(w);
      if (st.lastPollAt !== polls) {
        polls = st.lastPollAt;
        delays.push(st.lastDelayMs ?? -1);
      }
    }
    // The finishing cycle is a change (fast), then quiet cycles double.
    expect(delays).toEqual([3000, 6000, 12_000, 24_000, 48_000, 60_000, 60_000]);
  });

  it('an idle site costs no more upstream calls per hour than a fixed 60 s poller', async () => {
    h = await startHarness();
    const w = h.watcher({ activeIntervalMs: 3000, jitter: 0.1 });
    await sub(w, 'C1');
    await run(w, 10 * 60_000, 1000); // settle: baseline and back-off done
    const before = wmCalls();
    const delays: number[] = [];
    let polled = (await site(w)).lastPollAt;
    for (let t = 0; t < 3600_000; t += 1000) {
      h.tick(1000);
      await w.tick();
      const st = await site(w);
      if (st.lastPollAt !== polled) {
        polled = st.lastPollAt;
        delays.push(st.lastDelayMs ?? 0);
      }
    }
    const calls = wmCalls() - before;
    // A fixed 60 s poller: 2 calls (in-flight + terminal window) per cycle, 60 cycles an hour
    // (61 when a poll falls on both ends of the window).
    expect(calls).toBeLessThanOrEqual(2 * 61);
    expect(calls).toBeGreaterThan(2 * 50);
    expect(Math.min(...delays)).toBeGreaterThanOrEqual(60_000);
  });

  it('an upstream 429 with Retry-After cools the whole workspace down for what it asked: not shorter, not much longer', async () => {
    h = await startHarness();
    const w = h.watcher({ jitter: 0.1, activeIntervalMs: 3000 });
    await sub(w, 'C1', SITE);
    await sub(w, 'C2', SITE2);
    h.emu.createJob(SITE, 'busy', [{ recipient: 'a' }]);
    h.emu.createJob(SITE2, 'busy-2', [{ recipient: 'b' }]);
    await w.tick(); // both baselines, both active
    // Longer than the API layer waits inline (30 s): the call fails at once and the error
    // carries the 45 s to the watcher.
    h.emu.faults.add({ match: `/wm/api/job/${SITE}`, status: 429, retryAfterSeconds: 45, times: 1 });
    let failedAt: number | undefined;
    for (let i = 0; i < 40 && failedAt === undefined; i++) {
      h.tick(250);
      await w.tick();
      if ((await site(w, SITE)).lastError === 'transport') failedAt = h.clock.now();
    }
    expect(failedAt).toBeDefined();
    const st = await site(w, SITE);
    expect(st.lastDelayMs).toBeGreaterThanOrEqual(45_000);
    expect(st.lastDelayMs).toBeLessThanOrEqual(45_000 * 1.1);
    // SITE2 would poll every 3 s: no call reaches the service for 45 s ...
    const before = wmCalls();
    await run(w, 44_000);
    expect(wmCalls()).toBe(before);
    // ... and both sites poll again soon after (not an idle interval or a backoff later).
    await run(w, 45_000 * 0.1 + 3000);
    expect((await site(w, SITE2)).lastPollAt).toBeGreaterThanOrEqual((failedAt as number) + 45_000);
    expect((await site(w, SITE)).lastPollAt).toBeGreaterThanOrEqual((failedAt as number) + 45_000);
    expect(wmCalls()).toBeGreaterThan(before);
  });

  it('an upstream 429 without Retry-After cools the workspace down for an idle interval', async () => {
    h = await startHarness();
    const w = h.watcher({ jitter: 0, activeIntervalMs: 3000 });
    await sub(w, 'C1', SITE);
    await sub(w, 'C2', SITE2);
    h.emu.createJob(SITE, 'busy', [{ recipient: 'a' }]);
    h.emu.createJob(SITE2, 'busy-2', [{ recipient: 'b' }]);
    await w.tick();
    h.emu.faults.add({ match: `/wm/api/job/${SITE}`, status: 429 });
    await run(w, 3000);
    expect((await site(w, SITE)).lastError).toBe('transport');
    const cooledAt = h.clock.now();
    const before = wmCalls();
    await run(w, 50_000);
    expect(wmCalls()).toBe(before);
    expect((await site(w, SITE2)).nextPollAt).toBeGreaterThanOrEqual(cooledAt + 55_000);
    h.emu.faults.clear();
    await run(w, 20_000);
    expect(wmCalls()).toBeGreaterThan(before);
  });

  it('the per-workspace call budget caps fast polling', async () => {
    const callsIn10Min = async (budget: number) => {
      h = await startHarness();
      const w = h.watcher({ jitter: 0, activeIntervalMs: 3000, callBudgetPerMinute: budget });
      await sub(w, 'C1', SITE);
      await sub(w, 'C2', SITE2);
      h.emu.createJob(SITE, 'long-1', [{ recipient: 'a' }]);
      h.emu.createJob(SITE2, 'long-2', [{ recipient: 'b' }]);
      await run(w, 60_000, 500);
      const before = wmCalls();
      await run(w, 10 * 60_000, 500);
      const calls = wmCalls() - before;
      await h.close();
      return calls;
    };
    // Unbounded: 2 sites x 2 calls every 3 s = 80 calls a minute.
    const free = await callsIn10Min(100_000);
    expect(free).toBeGreaterThan(700);
    const capped = await callsIn10Min(30);
    expect(capped).toBeLessThanOrEqual(10 * 30 + 4);
    expect(capped).toBeGreaterThan(10 * 30 * 0.8);
  });

  it('the site list is reused for targetsCacheMs, but a watch made through this watcher is seen at once', async () => {
    h = await startHarness();
    const w = h.watcher({ targetsCacheMs: 10_000 });
    await sub(w, 'C1', SITE);
    await w.tick();
    expect((await w.status()).sites.map((s) => s.siteId)).toEqual([SITE]);
    // Another instance (another replica) subscribes SITE2: seen when the list is read again.
    await new Subscriptions(h.store, () => h.clock.now()).create(WS, {
      channelId: 'C2',
      siteId: SITE2,
      filters: { statuses: [], mode: 'all' },
      createdBy: 'U1',
    });
    h.tick(1000);
    await w.tick();
    expect((await w.status()).sites.map((s) => s.siteId)).toEqual([SITE]);
    h.tick(10_000);
    await w.tick();
    expect((await w.status()).sites.map((s) => s.siteId).sort()).toEqual([SITE, SITE2].sort());
    // Through the watcher's own subscriptions: the list is dropped at once.
    await w.subscriptions.remove(WS, { channelId: 'C2' });
    await w.subscriptions.create(WS, {
      channelId: 'C3',
      siteId: SITE2,
      filters: { statuses: [], mode: 'all' },
      createdBy: 'U1',
    });
    const polled = (await site(w, SITE2)).lastPollAt;
    h.tick(61_000);
    await w.tick();
    expect((await site(w, SITE2)).lastPollAt).not.toBe(polled);
  });
});
