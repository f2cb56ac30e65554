/**
 * One poll of one site, under its lease (index.ts header): take or renew the lease, run the poll
 * cycle (poller.ts) unless the workspace is paused, has no credentials or nothing to watch, record
 * the result on the site's status (the adaptive delay on success; an exponential backoff, a
 * workspace cool-down after an upstream 429 and the outage record on failure; a workspace pause on
 * refused credentials), serve the site's workflow waits, then deliver the site's notifications
 * and wait items while the lease is held. Renewing the lease at each checkpoint, a poll that
 * lost it stops before saving anything (`skipped: 'lease'`).
 */
import { AuthError, isApiError, PermissionError } from '../api/errors.js';
import type { ApiFactory, WorkspaceCredentials } from '../api/types.js';
import type { Logger } from '../log.js';
import { pollCycles } from '../metrics.js';
import type { Store } from '../store/types.js';
import { doubledWaitMs } from '../time.js';
import { type AdaptivePolicy, nextPollDelay, rateLimitWaitMs, retryAfterOf } from './adaptive.js';
import { checkWaits } from './cycle-waits.js';
import type { Deliverer, DrainResult } from './delivery.js';
import type { JobWait, WaitCompleter, WaitsPort } from './job-waits.js';
import { type OutageDeps, recordPollFailure, recordPollSuccess } from './outage.js';
import type { Outbox } from './outbox.js';
import type { PausedWorkspaces } from './paused-workspaces.js';
import { type CycleResult, runCycle } from './poller.js';
import { LeaseLost, type SiteLeases } from './site-leases.js';
import { leaseName, type SiteStatus, type SiteStatuses } from './site-status.js';
import type { Targets } from './targets.js';
import type { Clock, Subscription, WatchEvent } from './types.js';
import { drainWaitItems, type WaitDrainResult, type WaitOutbox } from './wait-outbox.js';

export interface PollOutcome {
  skipped?: 'lease' | 'paused' | 'no-credentials' | 'no-subscriptions';
  cycle?: CycleResult;
  delivery?: DrainResult;
  /** Workflow wait items delivered (steps completed) for this site. */
  waits?: WaitDrainResult;
  error?: string;
}

/** The workflow waits the watcher serves: the Slack side's port, the wait outbox and its completer. */
export interface ServedWaits {
  port: WaitsPort;
  outbox: WaitOutbox;
  completer: WaitCompleter;
}

/** The poll interval's settings a site's next due time is computed from. */
export interface PollTiming {
  policy: AdaptivePolicy;
  /** The idle interval, ms. */
  intervalMs: number;
  maxBackoffMs: number;
  jitter: number;
  random: () => number;
  skewMs?: number;
  clockAllowanceMs?: number;
}

export interface SitePollDeps {
  store: Store;
  api: ApiFactory;
  credentials: (ws: string) => Promise<WorkspaceCredentials | undefined>;
  statuses: SiteStatuses;
  leases: SiteLeases;
  targets: Targets;
  paused: PausedWorkspaces;
  outbox: Outbox;
  deliverer: Deliverer;
  waits: ServedWaits | undefined;
  outage: OutageDeps;
  /** Workspaces cooling down after an upstream 429: no poll before this time (set here). */
  cooldownUntil: Map<string, number>;
  timing: PollTiming;
  clock: Clock;
  log: Logger;
  emit: (e: WatchEvent) => void;
}

/** Poll one site now (see the header). */
export async function pollSite(d: SitePollDeps, ws: string, siteId: string): Promise<PollOutcome> {
  const st = d.statuses.of(ws, siteId);
  const name = leaseName(ws, siteId);
  if (!(await d.leases.acquire(name))) {
    st.leaseHeld = false;
    return { skipped: 'lease' };
  }
  st.leaseHeld = true;
  let lastRenew = d.clock.now();
  const checkpoint = async () => {
    if (d.clock.now() - lastRenew < d.leases.ttlMs / 3) return;
    try {
      await d.leases.renew(name);
    } catch (e) {
      if (e instanceof LeaseLost) st.leaseHeld = false;
      throw e;
    }
    lastRenew = d.clock.now();
  };
  const out: PollOutcome = {};
  // The next poll is due one interval after this one STARTED (not after it and its paced
  // deliveries ended), so a site is polled every interval (+-jitter) however long it takes.
  const cycleStart = d.clock.now();
  try {
    const waits = await d.targets.siteWaits(ws, siteId);
    await pollCycle(d, { ws, siteId, st, waits, checkpoint, cycleStart }, out);
    // The site's other waits (a registration's report) and every wait's deadline: also when
    // the poll was skipped or failed (a paused workspace's waits still time out).
    if (waits.length > 0) {
      await checkpoint();
      if (d.waits) await checkWaits({ ...d.waits, now: d.clock.now(), log: d.log }, waits);
      // A site kept only for non-job waits costs no upstream call: look again soon.
      if (out.skipped === 'no-subscriptions') {
        delete out.skipped;
        setNextDelay(d, st, { inflight: waits.length, changed: 0 }, cycleStart);
      }
    }
    // Deliver this site's notifications while we hold its lease (also when the poll failed).
    await checkpoint();
    out.delivery = await d.deliverer.drain(ws, siteId);
    if (d.waits) {
      out.waits = await drainWaitItems(
        {
          outbox: d.waits.outbox,
          completer: d.waits.completer,
          store: d.store,
          now: () => d.clock.now(),
          onError: (message, err, item) =>
            d.log.warn({ err, workspace: item?.workspace, executionId: item?.executionId }, message),
        },
        ws,
        siteId,
      );
    }
  } catch (e) {
    if (!(e instanceof LeaseLost)) throw e;
    out.skipped = 'lease';
  }
  return out;
}

/** The site being polled, its status, its pending waits and its lease checkpoint. */
interface PollScope {
  ws: string;
  siteId: string;
  st: SiteStatus;
  waits: JobWait[];
  checkpoint: () => Promise<void>;
  cycleStart: number;
}

/** The adaptive delay after a cycle (quiet cycles lengthen it), from the cycle's start. */
function setNextDelay(
  d: SitePollDeps,
  st: SiteStatus,
  cycle: { inflight: number; changed: number },
  cycleStart: number,
): void {
  const next = nextPollDelay(d.timing.policy, st.quietCycles, cycle, d.timing.random());
  st.quietCycles = next.quiet;
  st.lastDelayMs = next.delayMs;
  st.nextPollAt = cycleStart + next.delayMs;
}

/** The poll cycle itself, unless the workspace is paused, has no credentials or nothing to watch. */
async function pollCycle(d: SitePollDeps, p: PollScope, out: PollOutcome): Promise<void> {
  const { ws, siteId, st } = p;
  const jobWaits = p.waits.filter((w) => w.kind === 'job' && w.state === 'pending');
  if (await d.paused.reasonOf(ws)) {
    out.skipped = 'paused';
    return;
  }
  const subs = await d.targets.siteSubscriptions(ws, siteId);
  const creds = await d.credentials(ws);
  if (subs.length === 0 && jobWaits.length === 0) {
    out.skipped = 'no-subscriptions';
    return;
  }
  if (!creds?.watermarking) {
    out.skipped = 'no-credentials';
    return;
  }
  const client = d.api.watermarking(creds.watermarking);
  try {
    out.cycle = await runCycle({
      store: d.store,
      outbox: d.outbox,
      client,
      workspace: ws,
      siteId,
      subscriptions: subs,
      now: () => d.clock.now(),
      checkpoint: p.checkpoint,
      ...(d.timing.skewMs !== undefined ? { skewMs: d.timing.skewMs } : {}),
      ...(d.timing.clockAllowanceMs !== undefined ? { clockAllowanceMs: d.timing.clockAllowanceMs } : {}),
      ...(d.waits && jobWaits.length > 0
        ? { waits: { waits: jobWaits, outbox: d.waits.outbox, jobOutputs: d.waits.port.jobOutputs } }
        : {}),
    });
    st.lastPollAt = d.clock.now();
    st.lastAttendedAt = st.lastPollAt;
    st.lastResult = out.cycle;
    delete st.lastError;
    const caught = { changes: out.cycle.changed, finished: out.cycle.finals };
    await recordPollSuccess(d.outage, ws, siteId, subs, caught).catch((err: unknown) =>
      d.log.warn({ workspace: ws, siteId, err }, 'outage end not recorded'),
    );
    st.consecutiveFailures = 0;
    setNextDelay(d, st, out.cycle, p.cycleStart);
    pollCycles.inc({ outcome: out.cycle.baseline ? 'baseline' : 'ok' });
  } catch (e) {
    if (e instanceof LeaseLost) throw e;
    if (e instanceof AuthError || e instanceof PermissionError) {
      await d.paused.pause(ws, e);
      pollCycles.inc({ outcome: 'auth' });
      out.error = e.kind;
    } else {
      out.error = await cycleFailed(d, p, subs, e);
    }
  }
}

/**
 * A failed cycle (not refused credentials): the site backs off exponentially, the workspace cools
 * down after an upstream 429, the outage is recorded and `poll-failed` emitted. Returns the
 * error's kind.
 */
async function cycleFailed(d: SitePollDeps, p: PollScope, subs: Subscription[], e: unknown): Promise<string> {
  const { ws, siteId, st } = p;
  const { intervalMs, maxBackoffMs, jitter, random } = d.timing;
  st.consecutiveFailures++;
  let backoff = doubledWaitMs(intervalMs, st.consecutiveFailures, maxBackoffMs);
  // Upstream 429 after the API layer's own Retry-After retries: the whole workspace
  // waits (its other sites would be refused too). With a Retry-After, exactly what the
  // service asked (this site: plus at most the jitter, so sites do not return in
  // lock-step): not shorter, and not an exponential backoff longer. Without one, at
  // least an idle interval.
  const asked = retryAfterOf(e);
  const rateWait = rateLimitWaitMs(e, intervalMs);
  if (rateWait !== undefined) {
    backoff = asked !== undefined ? asked * (1 + random() * jitter) : Math.max(backoff, rateWait);
    d.cooldownUntil.set(ws, Math.max(d.cooldownUntil.get(ws) ?? 0, d.clock.now() + rateWait));
  }
  st.lastDelayMs = backoff;
  st.nextPollAt = d.clock.now() + backoff;
  const kind = isApiError(e) ? e.kind : 'unexpected';
  st.lastError = kind;
  pollCycles.inc({ outcome: 'error' });
  d.log.warn({ workspace: ws, siteId, kind, err: e, backoffMs: backoff }, 'poll cycle failed');
  try {
    await recordPollFailure(d.outage, ws, siteId, subs, e);
  } catch (err) {
    d.log.warn({ workspace: ws, siteId, err }, 'outage not recorded');
  }
  d.emit({ type: 'poll-failed', workspace: ws, siteId, errorKind: kind, failures: st.consecutiveFailures });
  return kind;
}
