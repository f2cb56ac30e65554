/**
 * The watcher re-lists every watched site every few seconds on every replica. `listForWatch`
 * re-reads a workspace's subscriptions only when its change stamp moved (any replica's create,
 * remove, pause, resume) or the last listing is LIST_FOR_WATCH_MAX_AGE_MS old (a writer killed
 * between its document and its stamp).
 */
import { describe, expect, it } from 'vitest';
import { createStore, type Store } from '../../src/store/index.js';
import type { Subscription } from '../../src/watch/index.js';
import { LIST_FOR_WATCH_MAX_AGE_MS, SUBSCRIPTIONS_NS, Subscriptions } from '../../src/watch/subscriptions.js';
import { ENCRYPTION_KEY } from './support/harness.js';

const T0 = Date.UTC(2026, 10, 22);

/** Two replicas' Subscriptions on one store, each with its own clock (advanced by the test). */
async function twoReplicas() {
  const store = await createStore({ url: 'memory://', encryptionKey: ENCRYPTION_KEY });
  const clock = { now: T0 };
  const a = new Subscriptions(store, () => clock.now);
  const b = new Subscriptions(store, () => clock.now);
  return { store, clock, a, b };
}

const watch = (s: Subscriptions, channelId: string, siteId = 'AB12') =>
  s.create('T1', { channelId, siteId, filters: { statuses: [], mode: 'all' }, createdBy: 'U1' });

/** A subscription document changed behind the module's back (no stamp: a writer killed after
 * its document). */
async function writeWithoutStamp(store: Store, sub: Subscription) {
  await store.docs<Subscription>(SUBSCRIPTIONS_NS).put('T1', sub.id, sub);
}

describe('listForWatch', () => {
  it("sees another replica's create, pause, resume and remove at once", async () => {
    const { a, b } = await twoReplicas();
    expect(await a.listForWatch('T1')).toEqual([]);

    const { subscription } = await watch(b, 'C1');
    expect((await a.listForWatch('T1')).map((s) => s.id)).toEqual([subscription.id]);

    await b.pause('T1', subscription.id, { reason: 'test', code: 'test' });
    expect((await a.listForWatch('T1'))[0]?.paused?.reason).toBe('test');

    await b.resume('T1', subscription.id);
    expect((await a.listForWatch('T1'))[0]?.paused).toBeUndefined();

    await watch(b, 'C2');
    expect(await a.listForWatch('T1')).toHaveLength(2);

    await b.remove('T1', { channelId: 'C1' });
    expect((await a.listForWatch('T1')).map((s) => s.channelId)).toEqual(['C2']);
  });

  it('reads the documents again only when the stamp moved (the same array otherwise)', async () => {
    const { store, clock, a } = await twoReplicas();
    const { subscription } = await watch(a, 'C1');
    const first = await a.listForWatch('T1');
    clock.now += 10_000;
    expect(await a.listForWatch('T1')).toBe(first);

    // Changed without a new stamp: not seen while the listing is younger than the maximum age...
    await writeWithoutStamp(store, { ...subscription, mode: 'failures' });
    clock.now += LIST_FOR_WATCH_MAX_AGE_MS - 20_000;
    expect((await a.listForWatch('T1'))[0]?.mode).toBe('all');
    // ...and seen once it is older.
    clock.now += 20_000;
    expect((await a.listForWatch('T1'))[0]?.mode).toBe('failures');
  });

  it('gives a workspace written before stamps existed a stamp, then uses it', async () => {
    const { store, clock, a } = await twoReplicas();
    const sub: Subscription = {
      id: 'sub_legacy',
      workspace: 'T1',
      channelId: 'C9',
      siteId: 'AB12',
      statuses: [],
      mode: 'all',
      createdBy: 'U1',
      createdAt: new Date(T0).toISOString(),
    };
    await writeWithoutStamp(store, sub);
    const first = await a.listForWatch('T1');
    expect(first.map((s) => s.id)).toEqual(['sub_legacy']);
    clock.now += 1000;
    expect(await a.listForWatch('T1')).toBe(first);
  });

  it('lists nothing right after the workspace is purged (uninstall)', async () => {
    const { store, a, b } = await twoReplicas();
    await watch(b, 'C1');
    expect(await a.listForWatch('T1')).toHaveLength(1);
    await store.purgeWorkspace('T1');
    expect(await a.listForWatch('T1')).toEqual([]);
  });
});
