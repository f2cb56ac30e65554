/**
 * The watch health metric behind the "watch not polled" alert: drmchatops_watch_oldest_poll_age_seconds
 * grows while a watched site cannot be polled (here: its lease held by a replica that is gone)
 * and falls back once it is polled again; drmchatops_poll_interval_seconds carries the interval.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { pollIntervalSeconds, watchOldestPollAge, watchSites } from '../../src/metrics.js';
import { type Harness, SITE, startHarness, WS } from './support/harness.js';

let h: Harness;
afterEach(async () => {
  await h?.close();
});

const value = async (g: { get(): Promise<{ values: Array<{ value: number }> }> }) =>
  (await g.get()).values[0]?.value ?? Number.NaN;

describe('watch health metrics', () => {
  it('the oldest poll age grows while a site is not polled and drops once it is', async () => {
    h = await startHarness();
    const w = h.watcher({ jitter: 0, intervalMs: 60_000, leaseTtlMs: 600_000 });
    await w.subscriptions.create(WS, {
      channelId: 'C1',
      siteId: SITE,
      filters: { statuses: [], mode: 'all' },
      createdBy: 'U1',
    });
    expect(await value(pollIntervalSeconds)).toBe(60);
    await w.tick();
    expect(await value(watchSites)).toBe(1);
    expect(await value(watchOldestPollAge)).toBe(0);

    // Another holder (a replica that died) keeps the site's lease: no poll for 5 intervals.
    await w.stop?.();
    await h.store.leases.release(`poll:${WS}:${SITE}`, (await w.status()).holderId);
    expect(await h.store.leases.acquire(`poll:${WS}:${SITE}`, 'gone-replica', 600_000)).toBe(true);
    for (let i = 0; i < 5; i++) {
      h.tick(60_000);
      await w.tick();
    }
    expect(await value(watchOldestPollAge)).toBeGreaterThanOrEqual(300);

    await h.store.leases.release(`poll:${WS}:${SITE}`, 'gone-replica');
    h.tick(60_000);
    await w.tick();
    h.tick(1000);
    await w.tick();
    expect(await value(watchOldestPollAge)).toBeLessThan(60);
  });
});
