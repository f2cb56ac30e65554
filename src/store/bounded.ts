/**
 * A Backend whose every call is bounded in time (Store.bounded): the call rejects with
 * StoreUnavailableError when the underlying backend has not answered within `timeoutMs`. The
 * underlying call is not cancelled (Redis clients queue commands while reconnecting): a write
 * may still land after the outage, which is safe because every write of the bot is an idempotent
 * upsert or guarded by a claim. ping() and close() are not bounded here (ping has its own bound).
 */
import type { Backend, UpdateFn } from './backend.js';
import { StoreDataError, StoreUnavailableError } from './errors.js';

/** Errors thrown by callers' own code run inside the backend (update functions): passed through. */
const callerErrors = new WeakSet<object>();

function bound<T>(p: Promise<T>, op: string, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new StoreUnavailableError(op, ms)), ms);
    timer.unref?.();
    p.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(timer);
        // A connection failure (socket closed, refused, database locked) is an outage too; data
        // errors and the caller's own errors keep their meaning.
        const passThrough =
          e instanceof StoreDataError || (typeof e === 'object' && e !== null && callerErrors.has(e));
        reject(passThrough ? e : new StoreUnavailableError(op, ms, e));
      },
    );
  });
}

function tracked(fn: UpdateFn): UpdateFn {
  return async (old) => {
    try {
      return await fn(old);
    } catch (e) {
      if (typeof e === 'object' && e !== null) callerErrors.add(e);
      throw e;
    }
  };
}

export function boundedBackend(inner: Backend, timeoutMs: number): Backend {
  const b =
    <A extends unknown[], R>(op: string, f: (...a: A) => Promise<R>) =>
    (...a: A) =>
      bound(f(...a), op, timeoutMs);
  return {
    kind: inner.kind,
    get: b('get', (k: string) => inner.get(k)),
    getMany: b('getMany', (k: string[]) => inner.getMany(k)),
    set: b('set', (k: string, v: string, ttl?: number) => inner.set(k, v, ttl)),
    delete: b('delete', (k: string[]) => inner.delete(k)),
    update: b('update', (k: string, fn: UpdateFn, ttl?: number) => inner.update(k, tracked(fn), ttl)),
    setUnlessNewer: b('setUnlessNewer', (k: string, v: string, known: number, ttl?: number) =>
      inner.setUnlessNewer(k, v, known, ttl),
    ),
    deleteUnlessNewer: b('deleteUnlessNewer', (k: string, known: number) =>
      inner.deleteUnlessNewer(k, known),
    ),
    sAdd: b('sAdd', (k: string, m: string[]) => inner.sAdd(k, m)),
    sRem: b('sRem', (k: string, m: string[]) => inner.sRem(k, m)),
    sMembers: b('sMembers', (k: string) => inner.sMembers(k)),
    sPruneMissing: b('sPruneMissing', (k: string, m: string[], f: (x: string) => string) =>
      inner.sPruneMissing(k, m, f),
    ),
    lPushCapped: b('lPushCapped', (k: string, v: string, cap: number) => inner.lPushCapped(k, v, cap)),
    lRange: b('lRange', (k: string, s: number, e: number) => inner.lRange(k, s, e)),
    leaseAcquire: b('leaseAcquire', (k: string, h: string, ttl: number) => inner.leaseAcquire(k, h, ttl)),
    leaseRenew: b('leaseRenew', (k: string, h: string, ttl: number) => inner.leaseRenew(k, h, ttl)),
    leaseRelease: b('leaseRelease', (k: string, h: string) => inner.leaseRelease(k, h)),
    leaseHolder: b('leaseHolder', (k: string) => inner.leaseHolder(k)),
    ping: () => inner.ping(),
    close: () => inner.close(),
  };
}
