/**
 * kill -9 at every store write of a poll cycle + drain, simulated in-process: the store "dies"
 * right before its k-th raw write (value writes and index adds are separate writes, as on SQLite
 * and Redis), a new watcher restarts on the same data, and every job change must then be
 * notified exactly once. Plus the specific holes found while reasoning about those crash points.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ServiceError } from '../../src/api/errors.js';
import type { ApiFactory, WatermarkingClient } from '../../src/api/types.js';
import { createLogger } from '../../src/log.js';
import type { ChannelPoster, Watcher } from '../../src/watch/index.js';
import { Outbox } from '../../src/watch/outbox.js';
import { Subscriptions } from '../../src/watch/subscriptions.js';
import { type CrashStore, crashStore } from './support/crash-store.js';
import { type Harness, SITE, startHarness, WS } from './support/harness.js';

const silent = createLogger({ level: 'silent' });
let h: Harness | undefined;
let cs: CrashStore | undefined;
afterEach(async () => {
  await h?.close();
  await cs?.close();
  h = undefined;
  cs = undefined;
});

async function rig() {
  cs = await crashStore();
  h = await startHarness({ store: cs.store });
  return { h, cs };
}

function watcher(hh: Harness, over: Parameters<Harness['watcher']>[0] = {}): Watcher {
  return hh.watcher({ logger: silent, ...over });
}

async function subscribe(w: Watcher, channelId = 'C1') {
  await w.subscriptions.create(WS, {
    channelId,
    siteId: SITE,
    filters: { statuses: [], mode: 'all' },
    createdBy: 'U1',
  });
}

/** One poll + drain that may die; a dead process's error is swallowed (it is gone). */
async function pollMayDie(hh: Harness, w: Watcher) {
  hh.tick();
  try {
    await w.pollOnce(WS, SITE);
  } catch {
    /* the process died */
  }
}

async function cycle(hh: Harness, w: Watcher) {
  hh.tick();
  return w.pollOnce(WS, SITE);
}

/** Per job: exactly one card and one final (thread or digest); no key posted twice. */
function verdict(hh: Harness, jobs: number[]) {
  const keys = hh.poster.messages.map((m) => m.key);
  const digests = hh.poster.messages.filter((m) => m.key.includes('|digest|')).map((m) => m.text);
  const problems: string[] = [];
  for (const j of jobs) {
    const cards = new Set(keys.filter((k) => k.startsWith(`${WS}|C1|${j}|card:`)));
    if (cards.size !== 1) problems.push(`job ${j}: ${cards.size} cards`);
    const finals = keys.filter((k) => k === `${WS}|C1|${j}|final:DM500`).length;
    const inDigests = digests.filter((d) => d.includes(`Job \`${j}\``)).length;
    if (finals + inDigests !== 1) problems.push(`job ${j}: ${finals} finals + ${inDigests} digests`);
  }
  for (const k of hh.poster.duplicateKeys()) problems.push(`duplicate ${k}`);
  return problems;
}

type Phase = 'detect-new' | 'detect-final' | 'detect-burst';

/**
 * Crash before raw write number k of one phase's poll + drain, restart, finish the story.
 * Returns undefined when the phase has fewer than k+1 writes (the sweep is over).
 */
async function crashAt(phase: Phase, k: number): Promise<string[] | undefined> {
  const { h: hh, cs: c } = await rig();
  const w1 = watcher(hh);
  await subscribe(w1);
  await w1.pollOnce(WS, SITE); // baseline
  const n = phase === 'detect-burst' ? 7 : 2;
  const jobs = Array.from({ length: n }, (_, i) =>
    hh.emu.createJob(SITE, `crash-${i}`, [{ recipient: `r${i}` }]),
  );
  const finishAll = () => {
    for (const j of jobs) hh.emu.finishJob(SITE, j);
  };
  if (phase !== 'detect-new') {
    await cycle(hh, w1); // cards
    hh.tick();
    finishAll();
  }
  c.resetWrites();
  c.crashBefore((_op, _key, i) => i === k);
  await pollMayDie(hh, w1);
  if (!c.dead()) return undefined;
  await w1.stop();
  c.revive();
  // The restarted process (same holder id: the lease of the dead one is its own).
  const w2 = watcher(hh);
  await cycle(hh, w2);
  if (phase === 'detect-new') {
    hh.tick();
    finishAll();
  }
  await cycle(hh, w2);
  await cycle(hh, w2);
  await cycle(hh, w2);
  return verdict(hh, jobs);
}

async function sweep(phase: Phase) {
  const failures: string[] = [];
  let k = 0;
  for (; k < 400; k++) {
    const r = await crashAt(phase, k);
    await h?.close();
    await cs?.close();
    h = undefined;
    cs = undefined;
    if (r === undefined) break;
    if (r.length) failures.push(`crash before write #${k}: ${r.join('; ')}`);
  }
  return { points: k, failures };
}

describe('kill -9 before every store write of a cycle (in-process sweep)', () => {
  it('while detecting new jobs (card posts): nothing lost, nothing twice', async () => {
    const { points, failures } = await sweep('detect-new');
    expect(points).toBeGreaterThan(10);
    expect(failures).toEqual([]);
  }, 120_000);

  it('while detecting finals (card edits, thread finals, parent ts): nothing lost, nothing twice', async () => {
    const { points, failures } = await sweep('detect-final');
    expect(points).toBeGreaterThan(10);
    expect(failures).toEqual([]);
  }, 120_000);

  it('while detecting a burst (one digest for 7 jobs): every job in exactly one digest', async () => {
    const { points, failures } = await sweep('detect-burst');
    expect(points).toBeGreaterThan(20);
    expect(failures).toEqual([]);
  }, 180_000);
});

describe('the holes behind "a job lost its card or its final"', () => {
  it('outbox: a crash between an entry value write and its index add does not orphan the entry', async () => {
    const { h: hh, cs: c } = await rig();
    const w1 = watcher(hh);
    await subscribe(w1);
    await w1.pollOnce(WS, SITE);
    const job = hh.emu.createJob(SITE, 'orphan', [{ recipient: 'r' }]);
    // Die right before the outbox index add of the first intent: its value is already written.
    c.crashBefore((op, key) => op === 'sAdd' && key.includes(':idx:docs.watch-outbox:'));
    await pollMayDie(hh, w1);
    expect(c.dead()).toBe(true);
    await w1.stop();
    c.revive();
    const w2 = watcher(hh);
    await cycle(hh, w2); // re-detects the same change: the key is "already pending"
    await cycle(hh, w2);
    expect(hh.poster.topLevel('C1').map((m) => m.key)).toEqual([`${WS}|C1|${job}|card:DM000:0+0/1`]);
    expect(await w2.outbox.size(WS)).toBe(0);
  });

  it('subscriptions: a crash between the subscription write and the workspace registry still gets polled', async () => {
    const { h: hh, cs: c } = await rig();
    const w1 = watcher(hh);
    c.crashBefore((_op, key) => key.includes(':docs.watch-registry:'));
    await expect(subscribe(w1)).rejects.toThrow(/simulated kill/);
    await w1.stop();
    c.revive();
    const w2 = watcher(hh);
    await subscribe(w2); // the user runs /dwm watch again: "already watching"
    // tick() polls what the registry lists (pollOnce would not tell).
    await w2.tick();
    expect((await w2.status()).sites.map((s) => [s.siteId, s.lastResult?.baseline])).toEqual([[SITE, true]]);
  });

  it('subscriptions: a crash between the subscription value and its index add is repaired by re-running create', async () => {
    const { h: hh, cs: c } = await rig();
    const s1 = new Subscriptions(c.store, () => hh.clock.now());
    c.crashBefore((op, key) => op === 'sAdd' && key.includes(':idx:docs.subscriptions:'));
    await expect(
      s1.create(WS, {
        channelId: 'C1',
        siteId: SITE,
        filters: { statuses: [], mode: 'all' },
        createdBy: 'U1',
      }),
    ).rejects.toThrow(/simulated kill/);
    c.revive();
    const s2 = new Subscriptions(c.store, () => hh.clock.now());
    const again = await s2.create(WS, {
      channelId: 'C1',
      siteId: SITE,
      filters: { statuses: [], mode: 'all' },
      createdBy: 'U1',
    });
    expect(again.outcome).toBe('unchanged');
    expect((await s2.list(WS)).map((s) => s.channelId)).toEqual(['C1']);
    expect(await s2.workspaces()).toEqual([WS]);
  });

  it('delivery: an entry tombstoned as delivered is not posted again when Slack search cannot find it', async () => {
    const { h: hh, cs: c } = await rig();
    // Slack's clock behind ours by more than the search window (or history lagging): the metadata
    // search finds nothing, so only the tombstone can tell the entry was delivered.
    const blind: ChannelPoster = {
      post: (ch, m, o) => hh.poster.post(ch, m, o),
      update: (ch, ts, m) => hh.poster.update(ch, ts, m),
      findByMetadata: async () => undefined,
    };
    const w1 = watcher(hh, { poster: () => blind });
    await subscribe(w1);
    await w1.pollOnce(WS, SITE);
    const job = hh.emu.createJob(SITE, 'tomb', [{ recipient: 'r' }]);
    await cycle(hh, w1); // card
    hh.tick();
    hh.emu.finishJob(SITE, job);
    // Die after the final's tombstone, before its live entry is deleted.
    c.crashBefore(
      (op, key) => op === 'delete' && key.includes(':docs.watch-outbox:') && key.includes(':final:'),
    );
    await pollMayDie(hh, w1);
    expect(c.dead()).toBe(true);
    await w1.stop();
    c.revive();
    const w2 = watcher(hh, { poster: () => blind });
    await cycle(hh, w2);
    await cycle(hh, w2);
    expect(hh.poster.messages.filter((m) => m.key === `${WS}|C1|${job}|final:DM500`)).toHaveLength(1);
    expect(hh.poster.duplicateKeys()).toEqual([]);
    expect(await new Outbox(c.store).size(WS)).toBe(0);
  });

  it('baseline: a job registered after the baseline started and finished during it is announced', async () => {
    const { h: hh } = await rig();
    let calls = 0;
    let quick: number | undefined;
    const wrap = (cl: WatermarkingClient): WatermarkingClient =>
      Object.assign(Object.create(cl) as WatermarkingClient, {
        searchJobs: async (...a: Parameters<WatermarkingClient['searchJobs']>) => {
          const r = await cl.searchJobs(...a);
          // Between the baseline's two queries: a job starts and finishes.
          if (++calls === 1) {
            quick = hh.emu.createJob(SITE, 'quick', [{ recipient: 'r' }]);
            hh.emu.finishJob(SITE, quick);
          }
          return r;
        },
      });
    const api: ApiFactory = Object.assign(Object.create(hh.api) as ApiFactory, {
      watermarking: (c: Parameters<ApiFactory['watermarking']>[0]) => wrap(hh.api.watermarking(c)),
    });
    const w = watcher(hh, { api });
    await subscribe(w);
    expect((await w.pollOnce(WS, SITE)).cycle?.baseline).toBe(true);
    await cycle(hh, w);
    expect(verdict(hh, [quick as number])).toEqual([]);
  });

  it('poller: a departed job the service errors on (getJob) is looked up again, not forgotten', async () => {
    const { h: hh } = await rig();
    let hideTerminal = false;
    let failGetJob = 0;
    const wrap = (cl: WatermarkingClient): WatermarkingClient =>
      Object.assign(Object.create(cl) as WatermarkingClient, {
        searchJobs: async (...a: Parameters<WatermarkingClient['searchJobs']>) => {
          const r = await cl.searchJobs(...a);
          const terminal = a[1]?.statuses?.includes('DM500');
          return hideTerminal && terminal ? { ...r, items: [], totalCount: 0 } : r;
        },
        getJob: async (...a: Parameters<WatermarkingClient['getJob']>) => {
          if (failGetJob-- > 0) throw new ServiceError('wm.getJob', '9001', 'temporarily unavailable');
          return cl.getJob(...a);
        },
      });
    const api: ApiFactory = Object.assign(Object.create(hh.api) as ApiFactory, {
      watermarking: (c: Parameters<ApiFactory['watermarking']>[0]) => wrap(hh.api.watermarking(c)),
    });
    const w = watcher(hh, { api });
    await subscribe(w);
    await w.pollOnce(WS, SITE);
    const job = hh.emu.createJob(SITE, 'departed', [{ recipient: 'r' }]);
    await cycle(hh, w); // card
    hh.emu.finishJob(SITE, job);
    // The terminal window misses it (a lagging index) and the fallback lookup errors once.
    hideTerminal = true;
    failGetJob = 1;
    await cycle(hh, w);
    await cycle(hh, w);
    expect(verdict(hh, [job])).toEqual([]);
  });
});
