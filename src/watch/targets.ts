/**
 * The watched sites, as the scheduler sees them: every site with an active subscription or a
 * pending workflow wait, each with its key, lease name and status looked up once per listing.
 * The listing may be reused for `cacheMs` (with thousands of sites on Redis, reading every
 * subscription at every tick dominates the CPU); a subscription change made through this
 * watcher, or `drop()`, clears it at once. A poll reads its own site's subscriptions and waits
 * from the fresh listing when there is one, else from the store.
 */

import type { Store } from '../store/types.js';
import { type JobWait, listWaits, waitsRepo } from './job-waits.js';
import type { PreferenceMemo } from './membership.js';
import { leaseName, type SiteStatus, type SiteStatuses, siteKey } from './site-status.js';
import { type Subscriptions, sameSubscriptions } from './subscriptions.js';
import type { Subscription } from './types.js';

/** A watched site as the scheduler sees it (built once per listing of the targets). */
export interface Target extends PreferenceMemo {
  ws: string;
  site: string;
  /** leaseName(ws, site) */
  lease: string;
  st: SiteStatus;
}

interface Listing {
  list: Array<[string, string]>;
  bySite: Map<string, Subscription[]>;
  waitsBySite: Map<string, JobWait[]>;
}

export interface TargetsOptions {
  store: Store;
  subscriptions: Subscriptions;
  statuses: SiteStatuses;
  now: () => number;
  /** Workflow waits make their site watched (the watcher serves waits). */
  waits: boolean;
  /** Reuse a listing for this long, ms (0: list at every call). */
  cacheMs: number;
}

export class Targets {
  private cache:
    | { at: number; list: Target[]; bySite: Map<string, Subscription[]>; waitsBySite: Map<string, JobWait[]> }
    | undefined;
  /** The last listing of the targets (kept when the cache is dropped: see list()). */
  private last: { targets: Map<string, Target>; bySite: Map<string, Subscription[]> } | undefined;

  constructor(private readonly o: TargetsOptions) {}

  /** Forget the cached listing: the next tick lists the sites again. */
  drop(): void {
    this.cache = undefined;
  }

  private fresh() {
    const c = this.cache;
    return c && this.o.now() - c.at < this.o.cacheMs ? c : undefined;
  }

  /** Active subscriptions of one site: from the cached listing while it is fresh (a poll must
   * not read every subscription of a workspace of thousands of sites), else from the store. */
  async siteSubscriptions(ws: string, siteId: string): Promise<Subscription[]> {
    const c = this.fresh();
    if (c) return c.bySite.get(siteKey(ws, siteId)) ?? [];
    return (await this.o.subscriptions.list(ws, { siteId })).filter((s) => !s.paused);
  }

  /** Workflow waits of one site not finished yet, read fresh (the listing only says which). */
  async siteWaits(ws: string, siteId: string): Promise<JobWait[]> {
    if (!this.o.waits) return [];
    const c = this.fresh();
    const listed = c
      ? (c.waitsBySite.get(siteKey(ws, siteId)) ?? [])
      : (await listWaits(this.o.store, ws)).filter((w) => w.siteId === siteId);
    const out: JobWait[] = [];
    for (const w of listed) {
      const fresh = await waitsRepo(this.o.store).get(ws, w.executionId);
      if (fresh && fresh.state !== 'done') out.push(fresh);
    }
    return out;
  }

  /**
   * The watched sites, each with its key, lease name and status looked up once per listing (a
   * tick looks at every one of them: with thousands of sites, building those strings at every
   * tick was most of the scheduler's garbage). Read-only for the caller.
   */
  async list(): Promise<readonly Target[]> {
    const cached = this.fresh();
    if (cached) return cached.list;
    const at = this.o.now();
    const { list, bySite, waitsBySite } = await this.listing();
    // What did not change since the last listing is kept from it (the fresh copies die young):
    // re-listing thousands of sites every few seconds otherwise replaces long-lived objects with
    // equal new ones, which is garbage only a full GC collects (and the old space grows first).
    const prev = this.last;
    const byKey = new Map<string, Target>();
    const out = list.map(([ws, site]): Target => {
      const key = siteKey(ws, site);
      const t = prev?.targets.get(key) ?? {
        ws,
        site,
        key,
        lease: leaseName(ws, site),
        st: this.o.statuses.of(ws, site),
        preferred: true,
      };
      byKey.set(key, t);
      return t;
    });
    if (prev) {
      for (const [k, subs] of bySite) {
        const old = prev.bySite.get(k);
        if (old && sameSubscriptions(old, subs)) bySite.set(k, old);
      }
    }
    this.last = { targets: byKey, bySite };
    if (this.o.cacheMs > 0) this.cache = { at, list: out, bySite, waitsBySite };
    return out;
  }

  private async listing(): Promise<Listing> {
    const list: Array<[string, string]> = [];
    const bySite = new Map<string, Subscription[]>();
    const waitsBySite = new Map<string, JobWait[]>();
    // A pending workflow wait makes its site watched, like a subscription.
    if (this.o.waits) {
      for (const w of await listWaits(this.o.store)) {
        const k = siteKey(w.workspace, w.siteId);
        const l = waitsBySite.get(k);
        if (l) l.push(w);
        else {
          waitsBySite.set(k, [w]);
          list.push([w.workspace, w.siteId]);
        }
      }
    }
    const subscriptions = this.o.subscriptions;
    for (const ws of await subscriptions.workspaces()) {
      for (const s of await subscriptions.listForWatch(ws)) {
        if (s.paused) continue;
        const k = siteKey(ws, s.siteId);
        const l = bySite.get(k);
        if (l) l.push(s);
        else {
          bySite.set(k, [s]);
          if (!waitsBySite.has(k)) list.push([ws, s.siteId]);
        }
      }
    }
    return { list, bySite, waitsBySite };
  }
}
