/**
 * Leases: a named lock held by one holder for a time (the watcher's sites, migrations, buttons run
 * once), acquired, renewed and released through the backend's atomic lease operations.
 */
import type { Backend } from '../backend.js';
import { assertId, type KeySpace } from '../keys.js';
import type { LeaseRepo } from '../types.js';

export function leaseRepo(backend: Backend, ks: KeySpace): LeaseRepo {
  function check(holder: string, ttlMs?: number): void {
    assertId(holder, 'lease holder');
    if (ttlMs !== undefined && !(Number.isFinite(ttlMs) && ttlMs >= 1)) {
      throw new RangeError(`Lease ttlMs must be at least 1 ms, got ${ttlMs}`);
    }
  }
  return {
    async acquire(name, holder, ttlMs) {
      check(holder, ttlMs);
      return backend.leaseAcquire(ks.lease(name), holder, ttlMs);
    },
    async renew(name, holder, ttlMs) {
      check(holder, ttlMs);
      return backend.leaseRenew(ks.lease(name), holder, ttlMs);
    },
    async release(name, holder) {
      check(holder);
      await backend.leaseRelease(ks.lease(name), holder);
    },
    async holder(name) {
      return backend.leaseHolder(ks.lease(name));
    },
  };
}
