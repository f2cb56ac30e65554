/**
 * Replicas that post into one channel keep to one call per gap together: the pacer books its
 * slots in the shared store (Redis: atomic compare-and-set), and books in the process when the
 * store cannot answer.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { appChannelPacer } from '../../src/slack/background-sender.js';
import { createStore, type Store } from '../../src/store/index.js';
import { FakeClock } from '../../src/watch/clock.js';
import { ChannelPacer, type SharedSlots, storeSlots } from '../../src/watch/pacer.js';
import { redisForSuite } from '../support/redis.js';
import { ENCRYPTION_KEY } from './support/harness.js';

/** Every slot at least `gap` after the one before it, once sorted. */
function spaced(slots: number[], gap: number): boolean {
  const s = [...slots].sort((a, b) => a - b);
  return s.every((t, i) => i === 0 || t - (s[i - 1] as number) >= gap);
}

describe('ChannelPacer with shared slots', () => {
  it('two replicas booking one channel at the same moment get slots one gap apart', async () => {
    const store = await createStore({ url: 'memory://', encryptionKey: ENCRYPTION_KEY });
    const slots = storeSlots(store);
    const a = new ChannelPacer({ shared: slots });
    const b = new ChannelPacer({ shared: slots });
    const waits = await Promise.all([
      a.reserve('T1', 'C1', 1000, 0),
      b.reserve('T1', 'C1', 1000, 0),
      a.reserve('T1', 'C1', 1000, 0),
      b.reserve('T1', 'C1', 1000, 0),
    ]);
    expect([...waits].sort((x, y) => x - y)).toEqual([0, 1000, 2000, 3000]);
    // Another channel and another workspace are free.
    expect(await b.reserve('T1', 'C2', 1000, 0)).toBe(0);
    expect(await a.reserve('T2', 'C1', 1000, 0)).toBe(0);
    await store.close();
  });

  it('books in the process when the store cannot, after the slots it already knows', async () => {
    let down = false;
    const inner = new Map<string, number>();
    const flaky: SharedSlots = {
      async book(ws, channel, gap, notBefore) {
        if (down) throw new Error('store unavailable');
        const k = `${ws}|${channel}`;
        const at = Math.max(notBefore, inner.get(k) ?? notBefore);
        inner.set(k, at + gap);
        return at;
      },
    };
    const errors: unknown[] = [];
    const p = new ChannelPacer({ shared: flaky, onSharedError: (e) => errors.push(e) });
    expect(await p.reserve('T1', 'C1', 1000, 0)).toBe(0);
    expect(await p.reserve('T1', 'C1', 1000, 0)).toBe(1000);
    down = true;
    // The process's own booking follows the shared ones: the next free slot is at 2000.
    expect(await p.reserve('T1', 'C1', 1000, 0)).toBe(2000);
    expect(errors).toHaveLength(1);
    expect(String(errors[0])).toContain('store unavailable');
  });
});

describe('shared slots on Redis (two replicas, two connections)', () => {
  const redis = redisForSuite(ENCRYPTION_KEY);
  const stores: Store[] = [];
  afterAll(async () => {
    await Promise.all(stores.map((s) => s.close()));
  });

  it('bookings made at once by both replicas never share a slot', async () => {
    const ns = redis.namespace();
    const open = async () => {
      const s = await redis.open(ns);
      stores.push(s);
      return s;
    };
    const [s1, s2] = [await open(), await open()];
    const a = new ChannelPacer({ shared: storeSlots(s1) });
    const b = new ChannelPacer({ shared: storeSlots(s2) });
    const now = Date.now();
    const waits = await Promise.all(
      Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).reserve('T1', 'C1', 1000, now)),
    );
    expect(spaced(waits, 1000)).toBe(true);
    expect(Math.max(...waits)).toBe(9000);
    // The slots live in the store: a third replica joining later books after them.
    const c = new ChannelPacer({ shared: storeSlots(await open()) });
    expect(await c.reserve('T1', 'C1', 1000, now)).toBe(10_000);
  });

  it("the app's real-time pacer books in the store on Redis; a test clock's and a memory store's do not", async () => {
    const store = await redis.open(redis.namespace());
    stores.push(store);
    const deps = { config: {}, store };
    expect(appChannelPacer(deps).shared).toBe(true);
    expect(appChannelPacer(deps, new FakeClock()).shared).toBe(false);
    const memory = await createStore({ url: 'memory://', encryptionKey: ENCRYPTION_KEY });
    stores.push(memory);
    expect(appChannelPacer({ config: {}, store: memory }).shared).toBe(false);
  });
});
