/**
 * The watcher on real persistent backends: SQLite (a restart re-opens the same file) and two
 * replicas on one Redis (separate store connections, one key root).
 */
import { describe, expect, it } from 'vitest';
import { redisForSuite } from '../support/redis.js';
import { ENCRYPTION_KEY, SITE, startHarness, WS } from './support/harness.js';

describe('sqlite backend', () => {
  it('exactly-once across a crash after posting and a restart on the same file', async () => {
    const h = await startHarness({ storeUrl: 'sqlite' });
    try {
      const w1 = h.watcher();
      await w1.subscriptions.create(WS, {
        channelId: 'C1',
        siteId: SITE,
        filters: { statuses: [], mode: 'all' },
        createdBy: 'U1',
      });
      await w1.pollOnce(WS, SITE);
      const job = h.emu.createJob(SITE, 'sqlite-job', [{ recipient: 'alice' }]);
      let armed = true;
      h.poster.faults.push((call) => {
        if (call === 'post' && armed) {
          armed = false;
          return 'after';
        }
        return undefined;
      });
      h.clock.advance(60_000);
      await w1.pollOnce(WS, SITE);
      await w1.stop();
      const w2 = h.watcher();
      h.clock.advance(60_000);
      h.emu.finishJob(SITE, job);
      await w2.pollOnce(WS, SITE);
      h.clock.advance(60_000);
      await w2.pollOnce(WS, SITE);
      expect(h.poster.duplicateKeys()).toEqual([]);
      expect(h.poster.topLevel('C1')).toHaveLength(1);
      expect(h.poster.cardOf('C1', job)?.updates.at(-1)).toContain('COMPLETED');
      expect(h.poster.messages.filter((m) => m.key.endsWith('|final:DM500'))).toHaveLength(1);
      expect(await w2.outbox.size(WS)).toBe(0);
    } finally {
      await h.close();
    }
  });
});

describe('two replicas on one Redis', () => {
  const redis = redisForSuite(ENCRYPTION_KEY);

  it('one replica polls a site at a time and each notification is posted once', async () => {
    const ns = redis.namespace();
    const storeA = await redis.open(ns);
    const storeB = await redis.open(ns);
    const h = await startHarness({ store: storeA });
    try {
      const a = h.watcher({ holderId: 'replica-a' });
      const b = h.watcher({ holderId: 'replica-b', store: storeB });
      await a.subscriptions.create(WS, {
        channelId: 'C1',
        siteId: SITE,
        filters: { statuses: [], mode: 'all' },
        createdBy: 'U1',
      });
      await Promise.all([a.pollOnce(WS, SITE), b.pollOnce(WS, SITE)]);
      const jobs = [1, 2, 3].map((i) => h.emu.createJob(SITE, `redis-${i}`, [{ recipient: 'alice' }]));
      for (let round = 0; round < 3; round++) {
        h.clock.advance(60_000);
        if (round === 1) for (const j of jobs) h.emu.finishJob(SITE, j);
        const results = await Promise.all([a.pollOnce(WS, SITE), b.pollOnce(WS, SITE)]);
        // exactly one of the two polled (the other was refused the lease)
        expect(results.filter((r) => r.skipped === 'lease')).toHaveLength(1);
      }
      expect(h.poster.duplicateKeys()).toEqual([]);
      expect(h.poster.topLevel('C1')).toHaveLength(3);
      expect(h.poster.messages.filter((m) => m.key.includes('|final:'))).toHaveLength(3);
      await a.stop();
      await b.stop();
    } finally {
      await h.close();
      await storeA.close();
      await storeB.close();
    }
  }, 30_000);
});
