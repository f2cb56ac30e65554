/**
 * The runtime of the three notify features: one timer (every `tickMs`, default 15 s) that
 *
 * 1. polls the tracked requests of each workspace that has some (every `intervalMs`, one lease per
 *    workspace so one replica polls), delivering outcomes at once: an outcome reaches the
 *    requester within one interval of the change (plus pacing);
 * 2. polls each site with alert subscriptions (every `intervalMs`, a lease per site);
 * 3. hands due digests to the outbox (so a digest is posted within `tickMs` + composition time of
 *    its HH:MM) and drains every workspace with pending notices.
 *
 * Wiring (the Slack layer, e.g. next to the job watcher in src/slack/watch-runtime.ts):
 *
 *   const notifier = createNotifier({
 *     store, api, holderId,                       // the same as the job watcher's
 *     credentials: (ws) => loadCredentials(...),  // the workspace's WorkspaceCredentials
 *     ports: (ws) => slackNotifyPorts(ws),        // NotifyPorts over the workspace's WebClient
 *     intervalMs: config.pollIntervalSeconds * 1000,
 *     events: (e) => ...,                         // notify-paused: DM e.createdBy e.message
 *   });
 *   notifier.start();  ...  await notifier.stop();
 *
 * Commands call the ops (src/ops/alerts.ts, digest.ts, request-outcomes.ts) and pass
 * `kick: (ws) => notifier.kick(ws)` where an immediate delivery is wanted.
 *
 * Delivery holds a short per-workspace lease (released after each drain). Exactly-once does not
 * rest on leases (see notify-outbox.ts): they keep replicas from doing the same work twice.
 * A service error backs the poll of that workspace/site off exponentially (capped); an auth or
 * permission error is reported once per streak as `notify-poll-failed` (the job watcher already
 * raises the admin alert for bad credentials).
 */

import client from 'prom-client';
import { isApiError } from '../api/errors.js';
import type { ApiFactory, WorkspaceCredentials } from '../api/types.js';
import { type Logger, logger as rootLogger } from '../log.js';
import { registry } from '../metrics.js';
import type { Store } from '../store/types.js';
import { systemClock } from './clock.js';
import {
  composeDigest,
  type DigestPayload,
  DigestSchedules,
  digestHandler,
  scheduleDigests,
} from './digest.js';
import { AlertSubscriptions, alertHandlers, pollAlerts, type WindowReadOptions } from './license-alerts.js';
import { NoticeDeliverer, type NoticeDrainResult, NoticeOutbox } from './notify-outbox.js';
import type { Digest, NotifyEvent, NotifyPorts } from './notify-types.js';
import { pollRequests, RequestTracker, requestOutcomeHandler } from './requests.js';
import type { Clock } from './types.js';

/** drmchatops_notify_polls_total{feature,outcome}: request and alert polls (ok, error). */
export const notifyPolls = new client.Counter({
  name: 'drmchatops_notify_polls_total',
  help: 'Polls of tracked requests and license alert windows, by feature and outcome',
  labelNames: ['feature', 'outcome'] as const,
  registers: [registry],
});

export interface NotifierOptions {
  store: Store;
  api: ApiFactory;
  credentials: (ws: string) => Promise<WorkspaceCredentials | undefined>;
  ports: (ws: string) => NotifyPorts;
  /** Unique per replica. */
  holderId: string;
  clock?: Clock;
  logger?: Logger;
  events?: (e: NotifyEvent) => void;
  /** Request and alert poll interval (POLL_INTERVAL_SECONDS * 1000). Default 60 s. */
  intervalMs?: number;
  /** Scheduler granularity. Default 15 s (digests within a minute of HH:MM). */
  tickMs?: number;
  /** Backoff cap for a failing poll. Default 15 min. */
  maxBackoffMs?: number;
  /** Slack pacing per channel / DM. Default 1000 ms. */
  laneIntervalMs?: number;
  recoveryWindowMs?: number;
  /** License window read: page size and page cap. */
  alertRead?: WindowReadOptions;
  /** A digest posted more than this after its time carries a "posted late" note. Default 10 min. */
  lateNoteAfterMs?: number;
  digestFailedListMax?: number;
  digestMaxPages?: number;
}

export interface NotifierTickResult {
  requestPolls: number;
  alertPolls: number;
  digestsScheduled: number;
  drained: Record<string, NoticeDrainResult>;
}

export interface Notifier {
  start(): void;
  stop(): Promise<void>;
  /** One scheduler pass (what the timer runs). */
  tick(): Promise<NotifierTickResult>;
  /** Deliver a workspace's pending notices now (after /dwm digest now, a cancel through the bot). */
  drain(ws: string): Promise<NoticeDrainResult | undefined>;
  /** Ask for a drain soon, without waiting (for command handlers that must ack fast). */
  kick(ws: string): void;
  /** Resolves when no timer-started tick is running (tests, graceful shutdown). */
  settled(): Promise<void>;
  readonly outbox: NoticeOutbox;
  readonly tracker: RequestTracker;
  readonly alerts: AlertSubscriptions;
  readonly digests: DigestSchedules;
  on(listener: (e: NotifyEvent) => void): () => void;
}

export function createNotifier(opts: NotifierOptions): Notifier {
  const clock = opts.clock ?? systemClock;
  const log = (opts.logger ?? rootLogger).child({ module: 'notify' });
  const intervalMs = opts.intervalMs ?? 60_000;
  const tickMs = Math.max(1000, opts.tickMs ?? 15_000);
  const maxBackoff = opts.maxBackoffMs ?? 15 * 60_000;
  const pollLeaseTtl = Math.max(3 * intervalMs, 30_000);
  const deliveryLeaseTtl = 60_000;
  const listeners = new Set<(e: NotifyEvent) => void>();
  if (opts.events) listeners.add(opts.events);
  const emit = (e: NotifyEvent) => {
    for (const l of listeners) {
      try {
        l(e);
      } catch (err) {
        log.error({ err }, 'notify event listener failed');
      }
    }
  };

  const outbox = new NoticeOutbox(opts.store);
  const tracker = new RequestTracker(opts.store);
  const alerts = new AlertSubscriptions(opts.store);
  const digests = new DigestSchedules(opts.store);

  async function compose(ws: string, p: DigestPayload, now: number): Promise<Digest> {
    const creds = await opts.credentials(ws);
    return composeDigest({
      channelId: p.channelId,
      zone: p.zone,
      siteIds: creds?.siteIds ?? [],
      ...(creds?.watermarking ? { wm: opts.api.watermarking(creds.watermarking) } : {}),
      ...(creds?.service ? { svc: opts.api.service(creds.service) } : {}),
      now,
      ...(opts.digestFailedListMax !== undefined ? { failedListMax: opts.digestFailedListMax } : {}),
      ...(opts.digestMaxPages !== undefined ? { maxPages: opts.digestMaxPages } : {}),
    });
  }

  const deliverer = new NoticeDeliverer({
    outbox,
    handlers: {
      'request-outcome': requestOutcomeHandler(log),
      ...alertHandlers({ subscriptions: alerts, emit, logger: log }),
      digest: digestHandler({ schedules: digests, compose, emit, logger: log }),
    },
    ports: opts.ports,
    clock,
    logger: log,
    emit,
    ...(opts.laneIntervalMs !== undefined ? { laneIntervalMs: opts.laneIntervalMs } : {}),
    ...(opts.recoveryWindowMs !== undefined ? { recoveryWindowMs: opts.recoveryWindowMs } : {}),
  });

  /** Next poll time and failure streak per poll target (`req|ws`, `alert|ws|site`). */
  const due = new Map<string, { next: number; failures: number }>();
  const isDue = (k: string) => (due.get(k)?.next ?? 0) <= clock.now();
  const polled = (k: string, start: number) => due.set(k, { next: start + intervalMs, failures: 0 });
  const failed = (k: string) => {
    const d = due.get(k) ?? { next: 0, failures: 0 };
    d.failures++;
    d.next = clock.now() + Math.min(maxBackoff, intervalMs * 2 ** d.failures);
    due.set(k, d);
    return d.failures;
  };

  const draining = new Map<string, Promise<NoticeDrainResult | undefined>>();

  async function drain(ws: string): Promise<NoticeDrainResult | undefined> {
    const running = draining.get(ws);
    if (running) await running.catch(() => undefined);
    const p = (async () => {
      const name = `notify-dlv:${ws}`;
      if (!(await opts.store.leases.acquire(name, opts.holderId, deliveryLeaseTtl))) return undefined;
      // Heartbeat: a long drain (composing a big digest, Retry-After waits) keeps the lease, so
      // another replica never starts on the same entries meanwhile.
      let beat: unknown;
      const renew = () => {
        beat = clock.setTimer(() => {
          void opts.store.leases
            .renew(name, opts.holderId, deliveryLeaseTtl)
            .then((ok) => {
              if (!ok) log.warn({ workspace: ws }, 'notice delivery lease lost during a drain');
            })
            .catch((err) => log.warn({ err, workspace: ws }, 'notice delivery lease renewal failed'));
          renew();
        }, deliveryLeaseTtl / 3);
      };
      renew();
      try {
        return await deliverer.drain(ws);
      } finally {
        clock.clearTimer(beat);
        await opts.store.leases.release(name, opts.holderId);
      }
    })();
    draining.set(ws, p);
    try {
      return await p;
    } finally {
      if (draining.get(ws) === p) draining.delete(ws);
    }
  }

  function reportFailure(feature: 'requests' | 'alerts', ws: string, k: string, e: unknown, siteId?: string) {
    const failures = failed(k);
    notifyPolls.inc({ feature, outcome: 'error' });
    const kind = isApiError(e) ? e.kind : 'unexpected';
    log.warn({ workspace: ws, siteId, feature, kind, err: e }, 'notify poll failed');
    emit({
      type: 'notify-poll-failed',
      workspace: ws,
      feature,
      ...(siteId ? { siteId } : {}),
      errorKind: kind,
      failures,
    });
  }

  async function tick(): Promise<NotifierTickResult> {
    const res: NotifierTickResult = { requestPolls: 0, alertPolls: 0, digestsScheduled: 0, drained: {} };
    const toDrain = new Set<string>();

    // 1. Request outcomes: only workspaces that track a pending request cost a service call.
    for (const ws of await tracker.workspaces()) {
      const k = `req|${ws}`;
      if (!isDue(k)) continue;
      if ((await tracker.docs.list(ws)).length === 0) continue;
      if (!(await opts.store.leases.acquire(`notify-req:${ws}`, opts.holderId, pollLeaseTtl))) continue;
      const start = clock.now();
      try {
        const creds = await opts.credentials(ws);
        if (!creds?.service) {
          polled(k, start);
          continue;
        }
        const r = await pollRequests({
          workspace: ws,
          client: opts.api.service(creds.service),
          tracker,
          outbox,
          now: () => clock.now(),
          logger: log,
        });
        res.requestPolls++;
        notifyPolls.inc({ feature: 'requests', outcome: 'ok' });
        polled(k, start);
        if (r.outcomes > 0) toDrain.add(ws);
      } catch (e) {
        reportFailure('requests', ws, k, e);
      }
    }

    // 2. License alerts: one read per subscribed site.
    for (const ws of await alerts.workspaces()) {
      const subs = (await alerts.list(ws)).filter((s) => !s.paused);
      const sites = [...new Set(subs.map((s) => s.siteId))];
      if (sites.length === 0) continue;
      let creds: WorkspaceCredentials | undefined;
      for (const siteId of sites) {
        const k = `alert|${ws}|${siteId}`;
        if (!isDue(k)) continue;
        if (!(await opts.store.leases.acquire(`notify-alert:${ws}:${siteId}`, opts.holderId, pollLeaseTtl)))
          continue;
        const start = clock.now();
        try {
          creds ??= await opts.credentials(ws);
          // No Service API credentials, or the site left the workspace's configuration: no call
          // (the subscription stays; `/drm alerts` shows it, `/drm alerts stop` removes it).
          if (!creds?.service || !creds.siteIds.includes(siteId)) {
            polled(k, start);
            continue;
          }
          const r = await pollAlerts({
            workspace: ws,
            siteId,
            client: opts.api.service(creds.service),
            subscriptions: alerts,
            outbox,
            now: () => clock.now(),
            ...(opts.alertRead ? { read: opts.alertRead } : {}),
          });
          res.alertPolls++;
          notifyPolls.inc({ feature: 'alerts', outcome: 'ok' });
          polled(k, start);
          if (r.notices > 0) toDrain.add(ws);
        } catch (e) {
          reportFailure('alerts', ws, k, e, siteId);
        }
      }
    }

    // 3. Digests due now, then every workspace with pending notices.
    const all = new Set([
      ...(await digests.workspaces()),
      ...(await tracker.workspaces()),
      ...(await alerts.workspaces()),
    ]);
    for (const ws of await digests.workspaces()) {
      try {
        const added = await scheduleDigests({
          workspace: ws,
          schedules: digests,
          outbox,
          now: () => clock.now(),
          ...(opts.lateNoteAfterMs !== undefined ? { lateNoteAfterMs: opts.lateNoteAfterMs } : {}),
        });
        res.digestsScheduled += added.length;
        if (added.length > 0) toDrain.add(ws);
      } catch (err) {
        log.error({ err, workspace: ws }, 'digest scheduling failed');
      }
    }
    for (const ws of all) if (!toDrain.has(ws) && (await outbox.size(ws)) > 0) toDrain.add(ws);
    for (const ws of toDrain) {
      try {
        const d = await drain(ws);
        if (d) res.drained[ws] = d;
      } catch (err) {
        log.error({ err, workspace: ws }, 'notice drain failed');
      }
    }
    return res;
  }

  let running = false;
  let timer: unknown;
  let current: Promise<unknown> | undefined;

  function arm(ms: number) {
    if (!running) return;
    timer = clock.setTimer(() => {
      timer = undefined;
      if (!running) return;
      current = tick()
        .catch((err) => log.error({ err }, 'notify tick failed'))
        .finally(() => {
          current = undefined;
          arm(tickMs);
        });
    }, ms);
  }

  return {
    outbox,
    tracker,
    alerts,
    digests,
    start() {
      if (running) return;
      running = true;
      arm(0);
    },
    async stop() {
      running = false;
      if (timer !== undefined) clock.clearTimer(timer);
      timer = undefined;
      if (current) await current;
      await Promise.all([...draining.values()].map((p) => p.catch(() => undefined)));
      for (const ws of await tracker.workspaces().catch(() => [] as string[])) {
        await opts.store.leases.release(`notify-req:${ws}`, opts.holderId).catch(() => undefined);
      }
      for (const ws of await alerts.workspaces().catch(() => [] as string[])) {
        const subs = await alerts.list(ws).catch(() => []);
        for (const site of new Set(subs.map((s) => s.siteId))) {
          await opts.store.leases.release(`notify-alert:${ws}:${site}`, opts.holderId).catch(() => undefined);
        }
      }
    },
    tick,
    drain,
    async settled() {
      while (current) await current;
    },
    kick(ws) {
      void drain(ws).catch((err) => log.error({ err, workspace: ws }, 'notice drain failed'));
    },
    on(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
