/**
 * What this replica knows of each watched site (`SiteStatus`): when it was last polled and with
 * what result or error, its failures and next due time, the adaptive interval's state, whether
 * this replica holds or is preferred for its lease. The scheduler, the site poll and `status()`
 * read and update the same records; a site's key and its lease's name are built here.
 */
import type { CycleResult } from './poller.js';

export interface SiteStatus {
  workspace: string;
  siteId: string;
  lastPollAt?: number;
  lastResult?: CycleResult;
  lastError?: string;
  consecutiveFailures: number;
  nextPollAt: number;
  leaseHeld: boolean;
  /** Consecutive quiet cycles (no job in flight, no change): the adaptive delay doubles with each. */
  quietCycles: number;
  /** Delay chosen after the last poll (adaptive interval, backoff, cooldown or lease retry), ms. */
  lastDelayMs?: number;
  /** Another live replica is preferred for this site (this one leaves it alone). */
  notPreferred?: boolean;
  /**
   * Last time the site was looked after: a successful poll, or a skip on purpose (workspace
   * paused for refused credentials, no credentials, uninstalled, nothing to watch). Failures and
   * lease skips do not count (drmchatops_watch_oldest_poll_age_seconds).
   */
  lastAttendedAt?: number;
  /** When this replica first saw the site. */
  trackedSince?: number;
}

/** The key of a workspace's site in every per-site map. */
export const siteKey = (ws: string, site: string) => `${ws}|${site}`;

/** The name of the lease of a workspace's site (one replica polls it). */
export const leaseName = (ws: string, site: string) => `poll:${ws}:${site}`;

/** The status of every site this replica has seen, by siteKey. */
export class SiteStatuses {
  private readonly sites = new Map<string, SiteStatus>();

  constructor(private readonly now: () => number) {}

  /** The site's status, created (due now) the first time it is asked for. */
  of(ws: string, siteId: string): SiteStatus {
    const k = siteKey(ws, siteId);
    let s = this.sites.get(k);
    if (!s) {
      const now = this.now();
      s = {
        workspace: ws,
        siteId,
        consecutiveFailures: 0,
        nextPollAt: now,
        leaseHeld: false,
        quietCycles: 0,
        trackedSince: now,
      };
      this.sites.set(k, s);
    }
    return s;
  }

  values(): IterableIterator<SiteStatus> {
    return this.sites.values();
  }

  /** The earliest due time before `limit` of the sites whose key `skip` does not exclude. */
  earliestDue(limit: number, skip: (key: string) => boolean): number {
    let next = limit;
    this.sites.forEach((s, k) => {
      if (s.nextPollAt < next && !skip(k)) next = s.nextPollAt;
    });
    return next;
  }
}
