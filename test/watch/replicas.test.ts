/**
 * Spreading sites over replicas: rendezvous hashing over the live members (pure), and two
 * watchers on one store handing sites over through the membership document (fake clock).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { preferredReplica } from '../../src/watch/index.js';
import { type Harness, SITE, SITE2, startHarness, WS } from './support/harness.js';

describe('preferred replica (rendezvous hashing)', () => {
  const sites = Array.from({ length: 10_000 }, (_, i) => `T1|S${i}`);

  it('spreads sites evenly and agrees whatever the order of the members', () => {
    const live = ['bot-a:1', 'bot-b:1', 'bot-c:1'];
    const count = new Map<string, number>();
    for (const s of sites) {
      const p = preferredReplica(live, s) as string;
      expect(preferredReplica([...live].reverse(), s)).toBe(p);
      count.set(p, (count.get(p) ?? 0) + 1);
    }
    for (const h of live) {
      expect(count.get(h) ?? 0).toBeGreaterThan(3000);
      expect(count.get(h) ?? 0).toBeLessThan(3700);
    }
  });

  it('a member leaving moves only its own sites, spread over the others', () => {
    const live = ['bot-a:1', 'bot-b:1', 'bot-c:1'];
    const moved = new Map<string, number>();
    for (const s of sites) {
      const before = preferredReplica(live, s);
      const after = preferredReplica(['bot-a:1', 'bot-c:1'], s) as string;
      if (before !== 'bot-b:1') expect(after).toBe(before);
      else moved.set(after, (moved.get(after) ?? 0) + 1);
    }
    expect(moved.get('bot-a:1') ?? 0).toBeGreaterThan(1300);
    expect(moved.get('bot-c:1') ?? 0).toBeGreaterThan(1300);
  });
});

let h: Harness;
afterEach(async () => {
  await h?.close();
});

describe('two watchers on one store', () => {
  it('the scheduler hands a site over to the replica preferred for it; pollOnce ignores preference', async () => {
    h = await startHarness();
    const a = h.watcher({ holderId: 'replica-a', jitter: 0 });
    for (const site of [SITE, SITE2]) {
      await a.subscriptions.create(WS, {
        channelId: `C-${site}`,
        siteId: site,
        filters: { statuses: [], mode: 'all' },
        createdBy: 'U1',
      });
    }
    await a.tick(); // alone: polls both
    const lease = (site: string) => h.store.leases.holder(`poll:${WS}:${site}`);
    expect(await lease(SITE)).toBe('replica-a');
    expect(await lease(SITE2)).toBe('replica-a');
    // b joins; the holder ids are chosen so that b is preferred for one site and a for the other.
    const names = Array.from({ length: 40 }, (_, i) => `replica-b${i}`);
    const bName = names.find(
      (n) =>
        preferredReplica(['replica-a', n], `${WS}|${SITE}`) !==
        preferredReplica(['replica-a', n], `${WS}|${SITE2}`),
    );
    if (!bName) throw new Error('no holder id splits the two sites');
    const b = h.watcher({ holderId: bName, jitter: 0 });
    const bSite = preferredReplica(['replica-a', bName], `${WS}|${SITE}`) === bName ? SITE : SITE2;
    const aSite = bSite === SITE ? SITE2 : SITE;
    await b.tick(); // b heartbeats (and may be refused the lease a still holds)
    for (let i = 0; i < 200 && (await lease(bSite)) !== bName; i++) {
      h.tick(1000);
      await a.tick();
      await b.tick();
    }
    expect(await lease(bSite)).toBe(bName);
    expect(await lease(aSite)).toBe('replica-a');
    // pollOnce is not the scheduler: it goes by the lease alone.
    expect((await a.pollOnce(WS, bSite)).skipped).toBe('lease');
  });
});
