import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Backend } from '../../src/store/backend.js';
import { boundedBackend } from '../../src/store/bounded.js';
import { StoreDataError, StoreUnavailableError } from '../../src/store/errors.js';
import { createStore } from '../../src/store/index.js';

const never = () => new Promise<never>(() => undefined);

function fakeBackend(over: Partial<Backend>): Backend {
  return {
    kind: 'memory',
    get: never,
    getMany: never,
    set: never,
    delete: never,
    update: never,
    setUnlessNewer: never,
    deleteUnlessNewer: never,
    sAdd: never,
    sRem: never,
    sMembers: never,
    sPruneMissing: never,
    lPushCapped: never,
    lRange: never,
    leaseAcquire: never,
    leaseRenew: never,
    leaseRelease: never,
    leaseHolder: never,
    ping: async () => false,
    close: async () => undefined,
    ...over,
  };
}

describe('bounded store (what a Slack request uses)', () => {
  it('a backend that does not answer fails with StoreUnavailableError after the bound', async () => {
    const b = boundedBackend(fakeBackend({}), 50);
    await expect(b.get('k')).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(b.leaseAcquire('k', 'h', 1000)).rejects.toThrow(/did not answer leaseAcquire within 50 ms/);
  });

  it('a connection failure is an outage too; data errors and the caller’s own errors keep their meaning', async () => {
    const b = boundedBackend(
      fakeBackend({
        get: async () => {
          throw new Error('Socket closed unexpectedly');
        },
        set: async () => {
          throw new StoreDataError('bad document');
        },
        update: async (_k, fn) => {
          const next = await fn(undefined);
          return typeof next === 'string' ? next : undefined;
        },
      }),
      1000,
    );
    const err = await b.get('k').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreUnavailableError);
    expect((err as Error).cause).toBeInstanceOf(Error);
    await expect(b.set('k', 'v')).rejects.toBeInstanceOf(StoreDataError);
    const mine = new RangeError('refused by the update function');
    await expect(
      b.update('k', () => {
        throw mine;
      }),
    ).rejects.toBe(mine);
  });

  it('store.bounded() reads and writes the same data as the store it came from', async () => {
    const store = await createStore({ url: 'memory://', encryptionKey: randomBytes(32).toString('base64') });
    const bounded = store.bounded(1000);
    await store.docs<{ n: number }>('b').put('T1', 'x', { n: 1 });
    expect(await bounded.docs<{ n: number }>('b').get('T1', 'x')).toEqual({ n: 1 });
    await bounded.docs<{ n: number }>('b').put('T1', 'y', { n: 2 });
    expect(await store.docs<{ n: number }>('b').get('T1', 'y')).toEqual({ n: 2 });
    await store.close();
  });
});
