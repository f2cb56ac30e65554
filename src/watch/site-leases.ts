/**
 * The poll leases this replica holds (`poll:<ws>:<site>` in the store's leases): taken or renewed
 * at every poll of a site and during long cycles, handed over when another live replica becomes
 * preferred for the site, released at stop. Only the holder of a site's lease polls it and
 * drains its outbox (index.ts header); `drmchatops_leases_held` counts them.
 */
import type { Logger } from '../log.js';
import { leasesHeld } from '../metrics.js';
import type { Store } from '../store/types.js';

/** The lease of the site being polled was lost mid-cycle: the cycle stops before saving state. */
export class LeaseLost extends Error {}

export class SiteLeases {
  private readonly held = new Set<string>();

  constructor(
    private readonly store: Store,
    private readonly holderId: string,
    /** Lease ttl, ms. */
    readonly ttlMs: number,
  ) {}

  holds(name: string): boolean {
    return this.held.has(name);
  }

  /** Take or renew the lease; false when another replica holds it. */
  async acquire(name: string): Promise<boolean> {
    const ok = await this.store.leases.acquire(name, this.holderId, this.ttlMs);
    if (ok) this.held.add(name);
    else this.held.delete(name);
    leasesHeld.set(this.held.size);
    return ok;
  }

  /** Renew a lease held; throws LeaseLost when it was lost. */
  async renew(name: string): Promise<void> {
    if (await this.store.leases.renew(name, this.holderId, this.ttlMs)) return;
    this.held.delete(name);
    leasesHeld.set(this.held.size);
    throw new LeaseLost(`lease ${name} lost`);
  }

  /** Release the leases of sites another replica is now preferred for (a failure: it expires). */
  async handOver(
    sites: ReadonlyArray<{ ws: string; site: string; lease: string }>,
    log: Logger,
  ): Promise<void> {
    for (const { ws, site, lease } of sites) {
      this.held.delete(lease);
      await this.store.leases.release(lease, this.holderId).catch((err: unknown) => {
        log.warn({ err, workspace: ws, siteId: site }, 'lease hand-over failed (it will expire)');
      });
    }
    if (sites.length) leasesHeld.set(this.held.size);
  }

  /** Release every lease held (at stop). */
  async releaseAll(): Promise<void> {
    for (const name of this.held) await this.store.leases.release(name, this.holderId);
    this.held.clear();
    leasesHeld.set(0);
  }
}
