/**
 * The runtime of the three notify features: one timer (every `tickMs`, default 15 s) whose pass
 *
 * 1. hands due digests to the outbox FIRST (store only) and starts their delivery at once, so a
 *    digest is posted within `tickMs` + composition time of its HH:MM whatever the polls cost;
 * 2. starts the delivery of every other workspace with pending notices;
 * 3. starts the due polls: the tracked requests of each workspace that has some (every
 *    `intervalMs`, one lease per workspace so one replica polls) and each site with alert
 *    subscriptions (every `intervalMs`, a lease per site). Polls of all workspaces and sites run
 *    concurrently (at most `pollConcurrency`), a poll that finds something delivers its workspace
 *    at once: an outcome reaches the requester within one interval of the change (plus pacing).
 * The timer re-arms as soon as a pass has STARTED its work: a slow Service API (each call may
 * take its full timeout, an alert read up to its page cap) holds only its own poll, never the
 * next pass, another workspace's digest or delivery. A target whose poll still runs is skipped.
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

import pLimit from 'p-limit';
import client from 'prom-client';
import { isApiError } from '../api/errors.js';
import type { ApiFactory, WorkspaceCredentials } from '../api/types.js';
import { type Logger, logger as rootLogger } from '../log.js';
import { noticesPending, registry } from '../metrics.js';
import type { Store } from '../store/types.js';
import { systemClock } from '../watch/clock.js';
import type { ChannelPacer } from '../watch/pacer.js';
import type { Clock, PausedReason } from '../watch/types.js';
import {
  composeDigest,
  type DigestPayload,
  DigestSchedules,
  digestHandler,
  scheduleDigests,
} from './digest.js';
import { AlertSubscriptions, alertHandlers, pollAlerts, type WindowReadOptions } from './license-alerts.js';
import { NoticeDeliverer, type NoticeDrainResult, NoticeOutbox } from './outbox.js';
import { pollRequests, RequestTracker, requestOutcomeHandler } from './requests.js';
import type { Digest, NotifyEvent, NotifyPorts } from './types.js';

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
  /** Why a channel's alerts or digest are paused, in the Slack layer's words. */
  pausedReason: PausedReason;
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
  /** The process's shared per-channel pacer (watch/pacer.ts): shared with the other senders. */
  pacer?: ChannelPacer;
  recoveryWindowMs?: number;
  /** License window read: page size and page cap. */
  alertRead?: WindowReadOptions;
  /** A digest posted more than this after its time carries a "posted late" note. Default 10 min. */
  lateNoteAfterMs?: number;
  digestFailedListMax?: number;
  digestMaxPages?: number;
  /** Request and alert polls running at once, all workspaces together. Default 4. */
  pollConcurrency?: number;
  /** Workspaces delivering at once (each under its own lease). Default 8. */
  deliveryConcurrency?: number;
  /** An unknown additional-site status word is announced after standing this long (requests.ts). */
  siteRequestUnknownStatusMs?: number;
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
  /** Resolves when nothing a timer pass started (polls, deliveries) is running (tests, shutdown). */
  settled(): Promise<void>;
  /**
   * A channel refused for good outside a delivery (it became shared with another organisation):
   * pause its alert subscriptions and digest schedule not paused yet, each once (`notify-paused`).
   */
  pauseChannel(ws: string, channelId: string, code: string): Promise<void>;
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
    // The channel's license alerts say when a failure ratio is worth red (per site).
    const alertRatioPct: Record<string, number> = {};
    for (const a of await alerts.list(ws, { channelId: p.channelId }).catch(() => []))
      alertRatioPct[a.siteId] = Math.min(alertRatioPct[a.siteId] ?? 100, a.ratioPct);
    return composeDigest({
      channelId: p.channelId,
      workspace: ws,
      alertRatioPct,
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
    pausedReason: opts.pausedReason,
    ...(opts.laneIntervalMs !== undefined ? { laneIntervalMs: opts.laneIntervalMs } : {}),
    ...(opts.pacer ? { pacer: opts.pacer } : {}),
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

  /**
   * Bounds: polls of all workspaces and sites together (a slow upstream holds at most its own
   * slots), and drains of different workspaces (each under its own lease) at once.
   */
  const pollLimit = pLimit(Math.max(1, opts.pollConcurrency ?? 4));
  const drainLimit = pLimit(Math.max(1, opts.deliveryConcurrency ?? 8));
  /** Polls running, by target: a pass never starts a second poll of a target still running. */
  const polling = new Map<string, Promise<void>>();
  /** Work a timer pass started and does not wait for (polls, drains): settled() and stop() do. */
  const background = new Set<Promise<unknown>>();
  const inBackground = (p: Promise<unknown>) => {
    const t = p.catch(() => undefined).finally(() => background.delete(t));
    background.add(t);
  };

  /** Pending notices per workspace as last counted (the `drmchatops_notices_pending` gauge). */
  const pendingCount = new Map<string, number>();
  const notePending = (ws: string, n: number) => {
    if (n > 0) pendingCount.set(ws, n);
    else pendingCount.delete(ws);
    let total = 0;
    for (const v of pendingCount.values()) total += v;
    noticesPending.set(total);
  };

  /** Running drain per workspace, and at most one queued behind it (coalesced). */
  const draining = new Map<string, Promise<NoticeDrainResult | undefined>>();
  const queuedDrain = new Map<string, Promise<NoticeDrainResult | undefined>>();

  async function runDrain(ws: string): Promise<NoticeDrainResult | undefined> {
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
      const d = await deliverer.drain(ws);
      notePending(ws, d.remaining);
      return d;
    } finally {
      clock.clearTimer(beat);
      await opts.store.leases.release(name, opts.holderId);
    }
  }

  function startDrain(ws: string): Promise<NoticeDrainResult | undefined> {
    const p: Promise<NoticeDrainResult | undefined> = drainLimit(() => runDrain(ws)).finally(() => {
      if (draining.get(ws) === p) draining.delete(ws);
    });
    draining.set(ws, p);
    return p;
  }

  /**
   * Deliver a workspace's pending notices. One drain per workspace at a time; a call while one
   * runs queues ONE more behind it (it reads the outbox afresh, so it covers every caller).
   */
  function drain(ws: string): Promise<NoticeDrainResult | undefined> {
    const queued = queuedDrain.get(ws);
    if (queued) return queued;
    const running = draining.get(ws);
    if (!running) return startDrain(ws);
    const next = running
      .catch(() => undefined)
      .then(() => {
        queuedDrain.delete(ws);
        return startDrain(ws);
      });
    queuedDrain.set(ws, next);
    return next;
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

  /** Request outcomes: only workspaces that track a pending request cost a service call. */
  async function pollRequestsOf(ws: string, k: string, res: NotifierTickResult): Promise<boolean> {
    if ((await tracker.docs.list(ws)).length === 0) return false;
    if (!(await opts.store.leases.acquire(`notify-req:${ws}`, opts.holderId, pollLeaseTtl))) return false;
    const start = clock.now();
    try {
      const creds = await opts.credentials(ws);
      if (!creds?.service) {
        polled(k, start);
        return false;
      }
      const r = await pollRequests({
        workspace: ws,
        client: opts.api.service(creds.service),
        tracker,
        outbox,
        now: () => clock.now(),
        logger: log,
        ...(opts.siteRequestUnknownStatusMs !== undefined
          ? { unknownStatusSettledMs: opts.siteRequestUnknownStatusMs }
          : {}),
      });
      res.requestPolls++;
      notifyPolls.inc({ feature: 'requests', outcome: 'ok' });
      polled(k, start);
      return r.outcomes > 0;
    } catch (e) {
      reportFailure('requests', ws, k, e);
      return false;
    }
  }

  /** License alerts: one read per subscribed site. */
  async function pollAlertsOf(
    ws: string,
    siteId: string,
    k: string,
    res: NotifierTickResult,
  ): Promise<boolean> {
    if (!(await opts.store.leases.acquire(`notify-alert:${ws}:${siteId}`, opts.holderId, pollLeaseTtl)))
      return false;
    const start = clock.now();
    try {
      const creds = await opts.credentials(ws);
      // No Service API credentials, or the site left the workspace's configuration: no call
      // (the subscription stays; `/drm alerts` shows it, `/drm alerts stop` removes it).
      if (!creds?.service || !creds.siteIds.includes(siteId)) {
        polled(k, start);
        return false;
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
      return r.notices > 0;
    } catch (e) {
      reportFailure('alerts', ws, k, e, siteId);
      return false;
    }
  }

  /**
   * Start one poll (bounded, at most one per target); when it found something, the workspace is
   * drained. Resolves when the poll and that drain are done; never rejects.
   */
  function startPoll(
    k: string,
    ws: string,
    res: NotifierTickResult,
    poll: () => Promise<boolean>,
  ): Promise<void> {
    const p = pollLimit(async () => {
      if (!isDue(k)) return false;
      return poll();
    })
      .then(async (found) => {
        if (!found) return;
        const d = await drain(ws);
        if (d) res.drained[ws] = d;
      })
      .catch((err) => log.error({ err, workspace: ws }, 'notify poll failed unexpectedly'))
      .finally(() => {
        if (polling.get(k) === p) polling.delete(k);
      });
    polling.set(k, p);
    return p;
  }

  /**
   * One scheduler pass. In this order, so that the digest never waits for a poll:
   * 1. due digests are handed to the outbox (store only) and their delivery starts at once;
   * 2. every other workspace with pending notices starts its delivery;
   * 3. the due polls start, all workspaces and sites concurrently (bounded by `pollConcurrency`).
   * `ready` resolves once all of it is started (store work only: the timer re-arms then, so a
   * slow Service API never holds back the next pass); `done` once everything started finished.
   */
  function pass(): { ready: Promise<void>; done: Promise<NotifierTickResult> } {
    const res: NotifierTickResult = { requestPolls: 0, alertPolls: 0, digestsScheduled: 0, drained: {} };
    const work: Promise<unknown>[] = [];
    const delivering = new Set<string>();
    const deliver = (ws: string) => {
      if (delivering.has(ws)) return;
      delivering.add(ws);
      work.push(
        drain(ws)
          .then((d) => {
            if (d) res.drained[ws] = d;
          })
          .catch((err) => log.error({ err, workspace: ws }, 'notice drain failed')),
      );
    };
    const ready = (async () => {
      // 1. Digests first: only the store is touched until their delivery starts.
      const digestWorkspaces = await digests.workspaces();
      for (const ws of digestWorkspaces) {
        try {
          const added = await scheduleDigests({
            workspace: ws,
            schedules: digests,
            outbox,
            now: () => clock.now(),
            ...(opts.lateNoteAfterMs !== undefined ? { lateNoteAfterMs: opts.lateNoteAfterMs } : {}),
          });
          res.digestsScheduled += added.length;
          if (added.length > 0) deliver(ws);
        } catch (err) {
          log.error({ err, workspace: ws }, 'digest scheduling failed');
        }
      }
      // 2. Pending notices elsewhere (deferred entries, a kick that found the lease taken).
      const requestWorkspaces = await tracker.workspaces();
      const alertWorkspaces = await alerts.workspaces();
      for (const ws of new Set([...digestWorkspaces, ...requestWorkspaces, ...alertWorkspaces])) {
        const size = await outbox.size(ws);
        notePending(ws, size);
        if (!delivering.has(ws) && size > 0) deliver(ws);
      }
      // 3. Polls, concurrently; a target whose previous poll still runs is skipped.
      for (const ws of requestWorkspaces) {
        const k = `req|${ws}`;
        if (polling.has(k) || !isDue(k)) continue;
        work.push(startPoll(k, ws, res, () => pollRequestsOf(ws, k, res)));
      }
      for (const ws of alertWorkspaces) {
        const subs = (await alerts.list(ws)).filter((s) => !s.paused);
        for (const siteId of new Set(subs.map((s) => s.siteId))) {
          const k = `alert|${ws}|${siteId}`;
          if (polling.has(k) || !isDue(k)) continue;
          work.push(startPoll(k, ws, res, () => pollAlertsOf(ws, siteId, k, res)));
        }
      }
    })();
    const done = ready.then(async () => {
      await Promise.all(work);
      return res;
    });
    return { ready, done };
  }

  async function tick(): Promise<NotifierTickResult> {
    return pass().done;
  }

  let running = false;
  let timer: unknown;
  let current: Promise<unknown> | undefined;

  function arm(ms: number) {
    if (!running) return;
    timer = clock.setTimer(() => {
      timer = undefined;
      if (!running) return;
      const p = pass();
      inBackground(p.done);
      current = p.ready
        .catch((err) => log.error({ err }, 'notify pass failed'))
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
      while (background.size > 0) await Promise.all([...background]);
      await Promise.all(
        [...polling.values(), ...queuedDrain.values(), ...draining.values()].map((p) =>
          p.catch(() => undefined),
        ),
      );
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
      while (current || background.size > 0) {
        if (current) await current;
        await Promise.all([...background]);
      }
    },
    async pauseChannel(ws, channelId, code) {
      const at = new Date(clock.now()).toISOString();
      const tell = (feature: 'alerts' | 'digest', createdBy: string, message: string) =>
        emit({ type: 'notify-paused', workspace: ws, feature, channelId, createdBy, code, message });
      const alertReason = opts.pausedReason(code, { do: 'alerts-watch-again' });
      for (const s of await alerts.list(ws, { channelId })) {
        if (s.paused) continue;
        const p = await alerts.pause(ws, s.id, { reason: alertReason, code, at });
        if (p?.paused?.at === at) tell('alerts', s.createdBy, alertReason);
      }
      const digest = await digests.get(ws, channelId);
      if (digest && !digest.paused) {
        const digestReason = opts.pausedReason(code, { do: 'digest-daily-again' });
        const p = await digests.pause(ws, digest.id, { reason: digestReason, code, at });
        if (p?.paused?.at === at) tell('digest', digest.createdBy, digestReason);
      }
    },
    kick(ws) {
      inBackground(drain(ws).catch((err) => log.error({ err, workspace: ws }, 'notice drain failed')));
    },
    on(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
