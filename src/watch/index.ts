/**
 * The watcher: schedules poll cycles per workspace + site (adaptive interval with jitter, see
 * adaptive.ts: fast while jobs are in flight or just changed, backing off to the idle interval;
 * bounded concurrency; per-site exponential backoff on service errors; a workspace cools down
 * after an upstream 429 and spends at most its call budget), holds one lease per site so only
 * one replica polls it, pauses a workspace on an AuthError/PermissionError that the API layer's
 * token refresh did not fix (one `admin-alert`, resumed by `resume(ws)`), and drains the outbox
 * after each cycle.
 *
 * createWatcher is the wiring of its parts: membership.ts (the replicas, who is preferred for a
 * site), site-leases.ts (the poll leases held), targets.ts (the watched sites), scheduler.ts (the
 * timer, ticks, call budgets and cool-downs), site-poll.ts (one poll of one site under its
 * lease), paused-workspaces.ts (refused credentials), site-status.ts (what this replica knows of
 * each site), with the poll cycle (poller.ts), the delivery (delivery.ts) and the workflow waits
 * (job-waits.ts, cycle-waits.ts).
 *
 * Reliability notes (what stays true across replicas and kill -9):
 * - A site is polled and its outbox drained only by the replica holding its lease
 *   (`poll:<ws>:<site>`, default ttl 1.25 x the idle interval, taken or renewed at every poll,
 *   which comes at most 1.1 idle intervals apart, and during long cycles). A replica that dies
 *   keeps its leases until they expire. Its sites get new preferred replicas (below) once it has
 *   missed its heartbeats; those try each site at once, and every ttl/8 (+-jitter) while its
 *   lease is still held. So a dead replica's sites are polled again within about
 *   max(ttl + ttl/8 x 1.1, 1.1 + 0.5) = 1.6 idle intervals of their last poll. A holder that is
 *   late for its own lease (a stalled process) loses nothing: the other replicas do not contend
 *   for a site whose preferred replica is live, and the lease is free to take again.
 * - Exactly-once delivery does not depend on the lease being exclusive at every instant: intents
 *   go to the outbox (idempotent keys) before the poll state is saved, and delivery checks the
 *   tombstone and Slack's message metadata before posting (delivery.ts). A lease that moves
 *   mid-cycle costs a re-detection, never a lost or doubled message.
 * - Work spreads evenly: every replica heartbeats into a shared membership document
 *   (`watch-replicas`, every idle interval / 8, at least 1 s; a member is live for 3 heartbeats,
 *   and each replica refreshes its view at its own heartbeat) and each site
 *   has one preferred replica among the live ones (rendezvous hashing of holder + site). The
 *   scheduler only polls the sites it is preferred for, and hands over (releases the lease of) a
 *   site it holds but is no longer preferred for, e.g. when a replica joins. When a replica dies
 *   it drops out of the membership within 0.5 idle intervals, its sites get new preferred
 *   replicas among the survivors, and those take them over once its leases expire. Preference
 *   is an optimisation only: the lease alone decides who polls. `pollOnce` ignores preference.
 */
import type { ApiFactory, WorkspaceCredentials } from '../api/types.js';
import { type Logger, logger as rootLogger } from '../log.js';
import { pollIntervalSeconds } from '../metrics.js';
import type { Store } from '../store/types.js';
import { systemClock } from './clock.js';
import { Deliverer, type DrainResult } from './delivery.js';
import { createWaitCompleter, type WaitCompleter, type WaitsPort } from './job-waits.js';
import { Membership } from './membership.js';
import { OUTAGE_NOTICE_AFTER_MS } from './outage.js';
import { Outbox } from './outbox.js';
import type { ChannelPacer } from './pacer.js';
import { PausedWorkspaces } from './paused-workspaces.js';
import { Scheduler } from './scheduler.js';
import { SiteLeases } from './site-leases.js';
import { type PollOutcome, pollSite, type ServedWaits, type SitePollDeps } from './site-poll.js';
import { type SiteStatus, SiteStatuses } from './site-status.js';
import { Subscriptions } from './subscriptions.js';
import { Targets } from './targets.js';
import type { ChannelPoster, Clock, WatchEvent, WatchEvents, WatchRenderer, WatchWords } from './types.js';
import { WaitOutbox } from './wait-outbox.js';

export { CallBudget, nextPollDelay, rateLimitWaitMs, retryAfterOf } from './adaptive.js';
export { FakeClock, systemClock } from './clock.js';
export { classifyDeliveryError, withPlainTextRetry } from './delivery-errors.js';
export { BURST_THRESHOLD } from './intents.js';
export { countTasks } from './jobs.js';
export { preferredReplica, REPLICAS_NS } from './membership.js';
export { OUTAGE_NOTICE_AFTER_MS, type SiteOutage, siteOutages } from './outage.js';
export { deliveryKey, Outbox } from './outbox.js';
export { plainRenderer } from './render.js';
export type { PollOutcome } from './site-poll.js';
export type { SiteStatus } from './site-status.js';
export {
  contentMatches,
  parseWatchArgs,
  SubscriptionError,
  Subscriptions,
  subscriptionMatches,
} from './subscriptions.js';
export * from './types.js';

export interface WatcherOptions {
  store: Store;
  api: ApiFactory;
  credentials: (ws: string) => Promise<WorkspaceCredentials | undefined>;
  poster: (ws: string) => ChannelPoster;
  renderer: WatchRenderer;
  /** The words of what the watcher stores and tells (a pause's reason), from the Slack layer. */
  words: WatchWords;
  clock?: Clock;
  /** Idle (longest) poll interval: POLL_INTERVAL_SECONDS * 1000; default 60 s. */
  intervalMs?: number;
  /**
   * Poll interval while a site has jobs in flight or a job just changed (POLL_ACTIVE_INTERVAL_SECONDS);
   * default 2 s (capped at `intervalMs`). Set it equal to `intervalMs` for a fixed-interval poller.
   */
  activeIntervalMs?: number;
  /** Upstream calls per minute one workspace may spend on polling, per replica. Default 600. */
  callBudgetPerMinute?: number;
  /** Jitter as a fraction of the interval (+/-; upward only at the idle interval). Default 0.1. */
  jitter?: number;
  /** Random source in [0, 1) for jitter and the polling order (tests). Default Math.random. */
  random?: () => number;
  /** Unique per replica (hostname + pid + random). */
  holderId: string;
  /**
   * Workflow Builder waits (job-waits.ts): the watcher polls the site of every pending wait, and
   * completes the wait through this port when its job finishes, its check says done, or its
   * deadline passes. Without it, waits are not looked at.
   */
  waits?: WaitsPort;
  logger?: Logger;
  events?: WatchEvents;
  /** Sites polled in parallel. Default 4. */
  concurrency?: number;
  /**
   * Sites one scheduler tick takes on (the rest wait for the next tick, 200 ms later). Bounds
   * the work queued at start-up, when every site is due at once (memory), and lets a replica
   * that learns of new members mid start-up stop taking their sites. Default concurrency x 8.
   */
  maxSitesPerTick?: number;
  /** Lease ttl; default 1.25 x the idle interval (a dead replica's sites move within 2 intervals). */
  leaseTtlMs?: number;
  /**
   * Reuse the list of watched sites for this long (ms) instead of reading every subscription at
   * every scheduler tick (with thousands of sites on Redis the listing dominates the CPU).
   * Subscriptions created or removed through this watcher's `subscriptions` clear it at once;
   * others (another replica, another instance) are seen within this time. Default 0 (no reuse).
   */
  targetsCacheMs?: number;
  /** Heartbeat of this replica in the membership document, ms. Default idle interval / 8 (>= 1 s). */
  heartbeatMs?: number;
  /** Backoff cap for a failing site. Default 15 min. */
  maxBackoffMs?: number;
  /** Slack pacing per channel; default 1000 ms. */
  channelIntervalMs?: number;
  /** The process's shared per-channel pacer (watch/pacer.ts): shared with the other senders. */
  pacer?: ChannelPacer;
  /** Clock skew allowed between bot and service when judging "new" terminal jobs. Default 5 min. */
  skewMs?: number;
  /**
   * WATCH_OUTAGE_NOTICE_MINUTES in ms: a site failing this long tells its channels their
   * notifications are delayed (outage.ts). Default 15 min.
   */
  outageNoticeMs?: number;
  /** WATCH_CLOCK_ALLOWANCE_SECONDS in ms (poller.ts `clockAllowanceMs`). Default 5 s. */
  clockAllowanceMs?: number;
  /**
   * After a crash between posting and recording, Slack is searched for the message from this long
   * before the attempt (allowance for Slack's clock being behind ours). Default 120 s.
   */
  recoveryWindowMs?: number;
}

export interface WatcherStatus {
  running: boolean;
  holderId: string;
  sites: SiteStatus[];
  pausedWorkspaces: Record<string, string>;
  outboxPending: Record<string, number>;
}

export interface Watcher {
  start(): void;
  /** Graceful: lets the in-flight cycle finish, then releases the leases. */
  stop(): Promise<void>;
  pollOnce(ws: string, siteId: string): Promise<PollOutcome>;
  /** Run every due site once (what each timer tick does). */
  tick(): Promise<void>;
  /** Deliver pending notifications of a workspace now. */
  drain(ws: string, siteId?: string): Promise<DrainResult>;
  status(): Promise<WatcherStatus>;
  /** Credentials were fixed: resume a workspace paused for an auth failure. */
  resume(ws: string): Promise<void>;
  /**
   * Something new to watch on a site (a workflow wait was stored in this process): list the
   * watched sites again and poll the site at the next tick.
   */
  wake(ws: string, siteId: string): void;
  /**
   * Slack refused a channel for good outside a delivery (e.g. it became shared with another
   * organisation): pause its subscriptions not paused yet (`subscription-paused` for each).
   */
  pauseChannel(ws: string, channelId: string, code: string): Promise<void>;
  on(listener: WatchEvents): () => void;
  readonly subscriptions: Subscriptions;
  readonly outbox: Outbox;
  /** The workflow waits' items and their completion (undefined without `waits`). */
  readonly waits: { outbox: WaitOutbox; completer: WaitCompleter } | undefined;
}

/** The listeners of the watcher's events; a listener that throws is logged, not fatal. */
function eventBus(log: Logger, first: WatchEvents | undefined) {
  const listeners = new Set<WatchEvents>();
  if (first) listeners.add(first);
  const emit = (e: WatchEvent) => {
    for (const l of listeners) {
      try {
        l(e);
      } catch (err) {
        log.error({ err }, 'watch event listener failed');
      }
    }
  };
  const on = (listener: WatchEvents) => {
    listeners.add(listener);
    return () => listeners.delete(listener);
  };
  return { emit, on };
}

/** The workflow waits served (their outbox and completer), when the Slack side gave the port. */
function servedWaits(opts: WatcherOptions, log: Logger): ServedWaits | undefined {
  if (!opts.waits) return undefined;
  const completer = createWaitCompleter({
    store: opts.store,
    port: opts.waits,
    holder: opts.holderId,
    onError: (message, err, wait) =>
      log.warn({ err, workspace: wait?.workspace, executionId: wait?.executionId }, message),
  });
  return { port: opts.waits, outbox: new WaitOutbox(opts.store), completer };
}

export function createWatcher(opts: WatcherOptions): Watcher {
  const clock = opts.clock ?? systemClock;
  const now = () => clock.now();
  const log = (opts.logger ?? rootLogger).child({ module: 'watch' });
  const intervalMs = opts.intervalMs ?? 60_000;
  pollIntervalSeconds.set(intervalMs / 1000);
  const jitter = opts.jitter ?? 0.1;
  const random = opts.random ?? Math.random;
  const leaseTtl = opts.leaseTtlMs ?? Math.round(1.25 * intervalMs);
  const concurrency = opts.concurrency ?? 4;
  const { emit, on } = eventBus(log, opts.events);
  const subscriptions = new Subscriptions(opts.store, now);
  const outbox = new Outbox(opts.store);
  const deliverer = new Deliverer({
    outbox,
    subscriptions,
    renderer: opts.renderer,
    poster: opts.poster,
    clock,
    logger: log,
    emit,
    pausedReason: opts.words.pausedReason,
    ...(opts.channelIntervalMs !== undefined ? { channelIntervalMs: opts.channelIntervalMs } : {}),
    ...(opts.pacer ? { pacer: opts.pacer } : {}),
    ...(opts.recoveryWindowMs !== undefined ? { recoveryWindowMs: opts.recoveryWindowMs } : {}),
  });
  const waits = servedWaits(opts, log);
  const statuses = new SiteStatuses(now);
  const leases = new SiteLeases(opts.store, opts.holderId, leaseTtl);
  const membership = new Membership(
    opts.store,
    opts.holderId,
    opts.heartbeatMs ?? Math.max(1000, intervalMs / 8),
  );
  const targets = new Targets({
    store: opts.store,
    subscriptions,
    statuses,
    now,
    waits: waits !== undefined,
    cacheMs: opts.targetsCacheMs ?? 0,
  });
  subscriptions.onChange = () => targets.drop();
  const paused = new PausedWorkspaces({ store: opts.store, words: opts.words, log, emit });
  /** Workspaces cooling down after an upstream 429: no poll before this time. */
  const cooldownUntil = new Map<string, number>();
  const pollDeps: SitePollDeps = {
    store: opts.store,
    api: opts.api,
    credentials: opts.credentials,
    statuses,
    leases,
    targets,
    paused,
    outbox,
    deliverer,
    waits,
    outage: {
      store: opts.store,
      poster: opts.poster,
      renderer: opts.renderer,
      noticeAfterMs: opts.outageNoticeMs ?? OUTAGE_NOTICE_AFTER_MS,
      now,
      log,
    },
    cooldownUntil,
    timing: {
      policy: { idleMs: intervalMs, activeMs: Math.min(opts.activeIntervalMs ?? 2000, intervalMs), jitter },
      intervalMs,
      maxBackoffMs: opts.maxBackoffMs ?? 15 * 60_000,
      jitter,
      random,
      ...(opts.skewMs !== undefined ? { skewMs: opts.skewMs } : {}),
      ...(opts.clockAllowanceMs !== undefined ? { clockAllowanceMs: opts.clockAllowanceMs } : {}),
    },
    clock,
    log,
    emit,
  };
  const pollOnce = (ws: string, siteId: string) => pollSite(pollDeps, ws, siteId);
  const scheduler = new Scheduler({
    clock,
    log,
    membership,
    targets,
    statuses,
    leases,
    poll: pollOnce,
    cooldownUntil,
    intervalMs,
    jitter,
    random,
    // After a refused lease, try the site again this soon (a dead holder's lease expires). Only
    // sites this replica is preferred for are retried (no store call for the others): keep it short.
    leaseRetryMs: Math.max(250, Math.min(intervalMs, leaseTtl / 8)),
    budgetPerMinute: opts.callBudgetPerMinute ?? 600,
    concurrency,
    maxPerTick: opts.maxSitesPerTick ?? concurrency * 8,
  });

  return {
    subscriptions,
    outbox,
    start: () => scheduler.start(),
    async stop() {
      await scheduler.stop();
      // Leave the membership: the others take this replica's sites at once.
      await membership.leave(log);
      await leases.releaseAll();
    },
    pollOnce,
    tick: () => scheduler.tick(),
    drain: (ws, siteId) => deliverer.drain(ws, siteId),
    pauseChannel: (ws, channelId, code) => deliverer.pauseChannel(ws, channelId, code),
    async status() {
      const pending: Record<string, number> = {};
      for (const ws of await subscriptions.workspaces()) {
        pending[ws] = await outbox.size(ws);
        await paused.reasonOf(ws);
      }
      return {
        running: scheduler.isRunning,
        holderId: opts.holderId,
        sites: [...statuses.values()].map((s) => ({ ...s })),
        pausedWorkspaces: paused.snapshot(),
        outboxPending: pending,
      };
    },
    async resume(ws) {
      await paused.resume(ws);
      for (const st of statuses.values()) {
        if (st.workspace === ws) {
          st.consecutiveFailures = 0;
          st.nextPollAt = clock.now();
        }
      }
    },
    wake(ws, siteId) {
      targets.drop();
      scheduler.wake(ws, siteId);
    },
    waits: waits ? { outbox: waits.outbox, completer: waits.completer } : undefined,
    on,
  };
}
