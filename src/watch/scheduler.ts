/**
 * The watcher's scheduler: a timer armed for the earliest site due; each tick heartbeats the
 * membership, lists the watched sites, polls those this replica is preferred for and that are due
 * (at most `concurrency` at once across ticks, at most `maxPerTick` taken on per tick, in an order
 * shuffled per tick), hands over the leases of sites another live replica is now preferred for,
 * and keeps each workspace within its upstream call budget and out of its 429 cool-down. A tick
 * does not hold the scheduler: a site whose deliveries are paced does not delay the others.
 */
import pLimit from 'p-limit';
import type { Logger } from '../log.js';
import { watchOldestPollAge, watchSites } from '../metrics.js';
import { CallBudget } from './adaptive.js';
import type { Membership } from './membership.js';
import type { SiteLeases } from './site-leases.js';
import type { PollOutcome } from './site-poll.js';
import { type SiteStatus, type SiteStatuses, siteKey } from './site-status.js';
import type { Target, Targets } from './targets.js';
import type { Clock } from './types.js';

/** Shortest wait of the scheduler's timer (a due site waits at most this after its time). */
const MIN_TIMER_MS = 200;
/** Wait before listing the subscriptions again after the store failed to. */
const SCAN_RETRY_MS = 5000;

export interface SchedulerDeps {
  clock: Clock;
  log: Logger;
  membership: Membership;
  targets: Targets;
  statuses: SiteStatuses;
  leases: SiteLeases;
  /** Poll one site (site-poll.ts). */
  poll: (ws: string, siteId: string) => Promise<PollOutcome>;
  /** Workspaces cooling down after an upstream 429: no poll before this time (read here). */
  cooldownUntil: Map<string, number>;
  /** The idle interval, ms. */
  intervalMs: number;
  jitter: number;
  random: () => number;
  /** After a refused lease, try the site again this soon, ms. */
  leaseRetryMs: number;
  /** Upstream calls per minute one workspace may spend on polling. */
  budgetPerMinute: number;
  concurrency: number;
  maxPerTick: number;
}

/** Calls a site's next cycle is expected to cost (its last cycle's; 2 for an idle site). */
function estimate(st: SiteStatus): number {
  return Math.max(2, st.lastResult?.calls ?? 2);
}

export class Scheduler {
  private running = false;
  private timer: unknown;
  /** Ticks started by the scheduler and not finished yet (stop() waits for them). */
  private readonly ticking = new Set<Promise<void>>();
  /** Sites whose poll (and delivery) is running: a later tick skips them. */
  private readonly inflight = new Set<string>();
  /** After a failed listing of the subscriptions, no new tick before this time. */
  private scanRetryAt = 0;
  /** One limit for every tick: overlapping ticks never poll more sites at once than this. */
  private readonly pollLimit: ReturnType<typeof pLimit>;
  private readonly budgets = new Map<string, CallBudget>();

  constructor(private readonly d: SchedulerDeps) {
    this.pollLimit = pLimit(d.concurrency);
  }

  get isRunning(): boolean {
    return this.running;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.launch();
  }

  /** Stop the timer and wait for the ticks started (their polls finish). */
  async stop(): Promise<void> {
    this.running = false;
    if (this.timer !== undefined) this.d.clock.clearTimer(this.timer);
    this.timer = undefined;
    while (this.ticking.size > 0) await Promise.all([...this.ticking]);
  }

  /** Poll the site at the next tick. */
  wake(ws: string, siteId: string): void {
    const st = this.d.statuses.of(ws, siteId);
    st.nextPollAt = Math.min(st.nextPollAt, this.d.clock.now());
    if (this.running && !this.inflight.has(siteKey(ws, siteId))) this.schedule();
  }

  private budgetOf(ws: string): CallBudget {
    let b = this.budgets.get(ws);
    if (!b) {
      b = new CallBudget(this.d.budgetPerMinute, this.d.clock.now());
      this.budgets.set(ws, b);
    }
    return b;
  }

  private jittered(): number {
    const { intervalMs, random, jitter } = this.d;
    return intervalMs * (1 + (random() * 2 - 1) * jitter);
  }

  /**
   * Poll every due site that is not already being polled (at most `concurrency` at once across
   * ticks). Resolves when the polls it started have ended.
   */
  async tick(onScanned?: () => void): Promise<void> {
    const { clock, membership } = this.d;
    const now = clock.now();
    let due: Target[];
    const handoff: Target[] = [];
    try {
      await membership.heartbeat(now);
      const candidates: Target[] = [];
      const listed = await this.d.targets.list();
      for (const t of listed) {
        if (this.inflight.has(t.key)) continue;
        const st = t.st;
        if (membership.isPreferred(t)) {
          // Newly ours (a replica died or left): try it now, do not wait for its old delay.
          if (st.notPreferred) {
            st.notPreferred = false;
            st.nextPollAt = Math.min(st.nextPollAt, now);
          }
          if (st.nextPollAt <= now) candidates.push(t);
          continue;
        }
        // Another live replica is preferred for it: hand over the lease if we hold it.
        st.notPreferred = true;
        if (this.d.leases.holds(t.lease)) handoff.push(t);
        // Preference changes only at a heartbeat: no need to look before the next one.
        if (st.nextPollAt <= now) st.nextPollAt = now + membership.heartbeatMs;
        st.leaseHeld = false;
      }
      this.recordHealth(listed, now);
      due = this.admit(candidates, now);
      for (const t of due) this.inflight.add(t.key);
      this.scanRetryAt = 0;
    } catch (e) {
      // The store cannot list the subscriptions (an outage): try again in a few seconds, not at
      // the timer floor (which would log an error five times a second).
      this.scanRetryAt = clock.now() + SCAN_RETRY_MS;
      throw e;
    } finally {
      // The due sites are marked in flight: the scheduler may re-arm without picking them again.
      onScanned?.();
    }
    await this.d.leases.handOver(handoff, this.d.log);
    await Promise.all(due.map((t) => this.pollLimit(() => this.pollDue(t))));
  }

  /** Watch health: the preferred sites' longest wait since they were last looked after. */
  private recordHealth(listed: readonly Target[], now: number): void {
    let oldest = 0;
    let mine = 0;
    for (const t of listed) {
      if (!this.d.membership.isPreferred(t)) continue;
      mine++;
      oldest = Math.max(oldest, now - (t.st.lastAttendedAt ?? t.st.trackedSince ?? now));
    }
    watchOldestPollAge.set(oldest / 1000);
    watchSites.set(mine);
  }

  /** Poll one admitted site and set its next due time after a skip or an unexpected failure. */
  private async pollDue({ ws, site, key, st: status }: Target): Promise<void> {
    const { clock, random, jitter, leaseRetryMs } = this.d;
    const reserved = estimate(status);
    try {
      const r = await this.d.poll(ws, site);
      // The cycle's real cost replaces the estimate reserved at admission.
      // (A failed cycle keeps its reservation; a skipped one spent nothing.)
      const spent = r.cycle ? r.cycle.calls : r.error ? reserved : 0;
      this.budgetOf(ws).spend(spent - reserved, clock.now());
      const st = this.d.statuses.of(ws, site);
      if (r.skipped === 'lease') {
        // Another replica holds it: look again soon, so a dead holder's sites move quickly.
        st.lastDelayMs = leaseRetryMs * (1 + (random() * 2 - 1) * jitter);
        st.nextPollAt = clock.now() + st.lastDelayMs;
      } else if (r.skipped) {
        st.nextPollAt = clock.now() + this.jittered();
        st.lastAttendedAt = clock.now();
      }
    } catch (err) {
      this.d.log.error({ err, workspace: ws, siteId: site }, 'poll failed unexpectedly');
      this.d.statuses.of(ws, site).nextPollAt = clock.now() + this.jittered();
    } finally {
      this.inflight.delete(key);
    }
  }

  /**
   * Of the due sites, those that may poll now: not in a workspace's 429 cool-down, within the
   * workspace's call budget (the estimate is reserved here). The others get a new due time. The
   * order is shuffled per tick, so replicas racing for leases spread the sites between them.
   */
  private admit(due: Target[], now: number): Target[] {
    const random = this.d.random;
    for (let i = due.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      const t = due[i] as Target;
      due[i] = due[j] as Target;
      due[j] = t;
    }
    const out: Target[] = [];
    for (const t of due) {
      if (out.length >= this.d.maxPerTick) break; // the others stay due: the next tick takes them
      const { ws, st } = t;
      const cool = this.d.cooldownUntil.get(ws) ?? 0;
      if (cool > now) {
        st.nextPollAt = cool;
        continue;
      }
      const est = estimate(st);
      const wait = this.budgetOf(ws).waitFor(est, now);
      if (wait > 0) {
        st.nextPollAt = now + wait;
        continue;
      }
      this.budgetOf(ws).spend(est, now);
      out.push(t);
    }
    return out;
  }

  /** Start a tick in the background (tracked for stop()) and re-arm when it ends. */
  private launch(): void {
    const t: Promise<void> = this.tick(() => this.schedule())
      .catch((err) => this.d.log.error({ err }, 'watch tick failed'))
      .finally(() => {
        this.ticking.delete(t);
        this.schedule();
      });
    this.ticking.add(t);
  }

  /**
   * Arm the timer for the earliest site due that is not being polled. A tick does not hold the
   * scheduler: a site whose deliveries are paced (1 message/s per channel) does not delay the
   * polls of the others, and each finished tick re-arms with the sites' new due times.
   */
  private schedule(): void {
    if (!this.running) return;
    const clock = this.d.clock;
    if (this.timer !== undefined) clock.clearTimer(this.timer);
    let next = this.d.statuses.earliestDue(clock.now() + this.d.intervalMs, (k) => this.inflight.has(k));
    // After a failed listing: exactly the retry time (not sooner, not an interval later).
    if (this.scanRetryAt > 0) next = this.scanRetryAt;
    this.timer = clock.setTimer(
      () => {
        this.timer = undefined;
        if (!this.running) return;
        this.launch(); // re-arms once its due sites are marked in flight
      },
      Math.max(MIN_TIMER_MS, next - clock.now()),
    );
  }
}
