/**
 * What each notice kind does on a notifier pass: the digests due in a workspace are handed to the
 * outbox (store only), the tracked requests of a workspace are polled (only a workspace tracking
 * one costs a service call), the license window of a subscribed site is read; each poll under its
 * own lease (one replica polls), counted (`drmchatops_notify_polls_total`) and, on failure,
 * backed off and reported once per streak (`notify-poll-failed`). Also the composition of a digest
 * from the workspace's credentials and the channel's alert ratios (the digest handler's input).
 */
import client from 'prom-client';
import { isApiError } from '../api/errors.js';
import type { ApiFactory, ServiceClient, WorkspaceCredentials } from '../api/types.js';
import type { Logger } from '../log.js';
import { registry } from '../metrics.js';
import type { Store } from '../store/types.js';
import type { Clock } from '../watch/types.js';
import type { AlertSubscriptions } from './alert-subscriptions.js';
import { type DigestPayload, scheduleDigests } from './digest.js';
import { composeDigest } from './digest-compose.js';
import type { DigestSchedules } from './digest-schedules.js';
import { pollAlerts } from './license-alerts.js';
import type { WindowReadOptions } from './license-window.js';
import type { NoticeDrainResult, NoticeOutbox } from './outbox.js';
import type { PollTargets } from './poll-targets.js';
import { pollRequests, type RequestTracker } from './requests.js';
import type { Digest, NotifyEvent } from './types.js';

/** drmchatops_notify_polls_total{feature,outcome}: request and alert polls (ok, error). */
export const notifyPolls = new client.Counter({
  name: 'drmchatops_notify_polls_total',
  help: 'Polls of tracked requests and license alert windows, by feature and outcome',
  labelNames: ['feature', 'outcome'] as const,
  registers: [registry],
});

export interface NotifierTickResult {
  requestPolls: number;
  alertPolls: number;
  digestsScheduled: number;
  drained: Record<string, NoticeDrainResult>;
}

/** What the ticks read and write (the notifier's stores, clients and options). */
export interface TickDeps {
  store: Store;
  /** Unique per replica. */
  holderId: string;
  api: ApiFactory;
  credentials: (ws: string) => Promise<WorkspaceCredentials | undefined>;
  clock: Clock;
  logger: Logger;
  emit: (e: NotifyEvent) => void;
  outbox: NoticeOutbox;
  tracker: RequestTracker;
  alerts: AlertSubscriptions;
  digests: DigestSchedules;
  targets: PollTargets;
  /** Poll lease time to live. */
  pollLeaseTtlMs: number;
  alertRead?: WindowReadOptions;
  lateNoteAfterMs?: number;
  digestFailedListMax?: number;
  digestMaxPages?: number;
  siteRequestUnknownStatusMs?: number;
}

const requestLease = (ws: string) => `notify-req:${ws}`;
const alertLease = (ws: string, siteId: string) => `notify-alert:${ws}:${siteId}`;

/** Hand a workspace's due digests to the outbox (store only); the number added. */
export async function scheduleDueDigests(d: TickDeps, ws: string): Promise<number> {
  const added = await scheduleDigests({
    workspace: ws,
    schedules: d.digests,
    outbox: d.outbox,
    now: () => d.clock.now(),
    ...(d.lateNoteAfterMs !== undefined ? { lateNoteAfterMs: d.lateNoteAfterMs } : {}),
  });
  return added.length;
}

/** The digest's content for a workspace's channel (reads the service; see composeDigest). */
export async function composeFor(d: TickDeps, ws: string, p: DigestPayload, now: number): Promise<Digest> {
  const creds = await d.credentials(ws);
  // The channel's license alerts say when a failure ratio is worth red (per site).
  const alertRatioPct: Record<string, number> = {};
  for (const a of await d.alerts.list(ws, { channelId: p.channelId }).catch(() => []))
    alertRatioPct[a.siteId] = Math.min(alertRatioPct[a.siteId] ?? 100, a.ratioPct);
  return composeDigest({
    channelId: p.channelId,
    workspace: ws,
    alertRatioPct,
    zone: p.zone,
    siteIds: creds?.siteIds ?? [],
    ...(creds?.watermarking ? { wm: d.api.watermarking(creds.watermarking) } : {}),
    ...(creds?.service ? { svc: d.api.service(creds.service) } : {}),
    now,
    ...(d.digestFailedListMax !== undefined ? { failedListMax: d.digestFailedListMax } : {}),
    ...(d.digestMaxPages !== undefined ? { maxPages: d.digestMaxPages } : {}),
  });
}

function reportFailure(
  d: TickDeps,
  feature: 'requests' | 'alerts',
  ws: string,
  k: string,
  e: unknown,
  siteId?: string,
) {
  const failures = d.targets.failed(k);
  notifyPolls.inc({ feature, outcome: 'error' });
  const kind = isApiError(e) ? e.kind : 'unexpected';
  d.logger.warn({ workspace: ws, siteId, feature, kind, err: e }, 'notify poll failed');
  d.emit({
    type: 'notify-poll-failed',
    workspace: ws,
    feature,
    ...(siteId ? { siteId } : {}),
    errorKind: kind,
    failures,
  });
}

/** A poll target: a workspace's tracked requests, or (with `siteId`) a site's license alerts. */
interface PollTarget {
  feature: 'requests' | 'alerts';
  ws: string;
  /** Its key in the poll targets (due time, backoff). */
  k: string;
  lease: string;
  siteId?: string;
}

/**
 * One poll of a target, under its lease: no call without Service API credentials, or for a site
 * that left the workspace's configuration (a subscription stays; the channel's alerts list shows
 * it, stopping the alerts removes it). Counted, the target's next time set; a failure is backed
 * off and reported. True when the poll found something to deliver.
 */
async function pollTarget(
  d: TickDeps,
  t: PollTarget,
  poll: (client: ServiceClient) => Promise<boolean>,
): Promise<boolean> {
  if (!(await d.store.leases.acquire(t.lease, d.holderId, d.pollLeaseTtlMs))) return false;
  const start = d.clock.now();
  try {
    const creds = await d.credentials(t.ws);
    if (!creds?.service || (t.siteId !== undefined && !creds.siteIds.includes(t.siteId))) {
      d.targets.polled(t.k, start);
      return false;
    }
    const found = await poll(d.api.service(creds.service));
    notifyPolls.inc({ feature: t.feature, outcome: 'ok' });
    d.targets.polled(t.k, start);
    return found;
  } catch (e) {
    reportFailure(d, t.feature, t.ws, t.k, e, t.siteId);
    return false;
  }
}

/** Request outcomes: only workspaces that track a pending request cost a service call. */
export async function pollRequestsOf(
  d: TickDeps,
  ws: string,
  k: string,
  res: NotifierTickResult,
): Promise<boolean> {
  if ((await d.tracker.docs.list(ws)).length === 0) return false;
  return pollTarget(d, { feature: 'requests', ws, k, lease: requestLease(ws) }, async (client) => {
    const r = await pollRequests({
      workspace: ws,
      client,
      tracker: d.tracker,
      outbox: d.outbox,
      now: () => d.clock.now(),
      logger: d.logger,
      ...(d.siteRequestUnknownStatusMs !== undefined
        ? { unknownStatusSettledMs: d.siteRequestUnknownStatusMs }
        : {}),
    });
    res.requestPolls++;
    return r.outcomes > 0;
  });
}

/** License alerts: one read per subscribed site. */
export async function pollAlertsOf(
  d: TickDeps,
  ws: string,
  siteId: string,
  k: string,
  res: NotifierTickResult,
): Promise<boolean> {
  const target: PollTarget = { feature: 'alerts', ws, k, lease: alertLease(ws, siteId), siteId };
  return pollTarget(d, target, async (client) => {
    const r = await pollAlerts({
      workspace: ws,
      siteId,
      client,
      subscriptions: d.alerts,
      outbox: d.outbox,
      now: () => d.clock.now(),
      ...(d.alertRead ? { read: d.alertRead } : {}),
    });
    res.alertPolls++;
    return r.notices > 0;
  });
}

/** Shutdown: this replica's poll leases are released, so another replica polls at once. */
export async function releasePollLeases(d: TickDeps): Promise<void> {
  for (const ws of await d.tracker.workspaces().catch(() => [] as string[])) {
    await d.store.leases.release(requestLease(ws), d.holderId).catch(() => undefined);
  }
  for (const ws of await d.alerts.workspaces().catch(() => [] as string[])) {
    const subs = await d.alerts.list(ws).catch(() => []);
    for (const site of new Set(subs.map((s) => s.siteId))) {
      await d.store.leases.release(alertLease(ws, site), d.holderId).catch(() => undefined);
    }
  }
}
