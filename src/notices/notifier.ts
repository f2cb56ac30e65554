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
 * rest on leases (see outbox.ts): they keep replicas from doing the same work twice.
 * A service error backs the poll of that workspace/site off exponentially (capped); an auth or
 * permission error is reported once per streak as `notify-poll-failed` (the job watcher already
 * raises the admin alert for bad credentials).
 *
 * Here: the options, the events, and the wiring of the parts, each in its own module: the pass
 * and its timer (notice-scheduler.ts), what each notice kind does on a pass (notice-ticks.ts),
 * when each poll target is due (poll-targets.ts), the workspaces' deliveries (notice-drains.ts),
 * the outbox and its handlers (outbox.ts, requests.ts, alert-delivery.ts, digest.ts). Pausing a
 * channel refused outside a delivery is `pauseChannel` below (the reason in the Slack layer's
 * words, `pausedReason`).
 */

import type { ApiFactory, WorkspaceCredentials } from '../api/types.js';
import { type Logger, logger as rootLogger } from '../log.js';
import type { Store } from '../store/types.js';
import { systemClock } from '../watch/clock.js';
import type { ChannelPacer } from '../watch/pacer.js';
import type { Clock, PausedReason } from '../watch/types.js';
import { alertHandlers } from './alert-delivery.js';
import { AlertSubscriptions } from './alert-subscriptions.js';
import { digestHandler } from './digest.js';
import { DigestSchedules } from './digest-schedules.js';
import type { WindowReadOptions } from './license-window.js';
import { WorkspaceDrains } from './notice-drains.js';
import { PassTimer, runPass } from './notice-scheduler.js';
import { composeFor, type NotifierTickResult, releasePollLeases, type TickDeps } from './notice-ticks.js';
import { NoticeDeliverer, type NoticeDrainResult, NoticeOutbox } from './outbox.js';
import { PollTargets } from './poll-targets.js';
import { RequestTracker, requestOutcomeHandler } from './requests.js';
import type { NotifyEvent, NotifyPorts } from './types.js';

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

export interface Notifier {
  start(): void;
  stop(): Promise<void>;
  /** One scheduler pass (what the timer runs). */
  tick(): Promise<NotifierTickResult>;
  /** Deliver a workspace's pending notices now (after a digest asked for now, a cancel through the bot). */
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
  const targets = new PollTargets({
    clock,
    intervalMs,
    maxBackoffMs: opts.maxBackoffMs ?? 15 * 60_000,
    concurrency: opts.pollConcurrency ?? 4,
  });
  const ticks: TickDeps = {
    store: opts.store,
    holderId: opts.holderId,
    api: opts.api,
    credentials: opts.credentials,
    clock,
    logger: log,
    emit,
    outbox,
    tracker,
    alerts,
    digests,
    targets,
    pollLeaseTtlMs: Math.max(3 * intervalMs, 30_000),
    ...(opts.alertRead ? { alertRead: opts.alertRead } : {}),
    ...(opts.lateNoteAfterMs !== undefined ? { lateNoteAfterMs: opts.lateNoteAfterMs } : {}),
    ...(opts.digestFailedListMax !== undefined ? { digestFailedListMax: opts.digestFailedListMax } : {}),
    ...(opts.digestMaxPages !== undefined ? { digestMaxPages: opts.digestMaxPages } : {}),
    ...(opts.siteRequestUnknownStatusMs !== undefined
      ? { siteRequestUnknownStatusMs: opts.siteRequestUnknownStatusMs }
      : {}),
  };

  const deliverer = new NoticeDeliverer({
    outbox,
    handlers: {
      'request-outcome': requestOutcomeHandler(log),
      ...alertHandlers({ subscriptions: alerts, emit, logger: log }),
      digest: digestHandler({
        schedules: digests,
        compose: (ws, p, now) => composeFor(ticks, ws, p, now),
        emit,
        logger: log,
      }),
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
  const drains = new WorkspaceDrains({
    store: opts.store,
    holderId: opts.holderId,
    deliverer,
    clock,
    logger: log,
    concurrency: opts.deliveryConcurrency ?? 8,
  });
  const timer = new PassTimer({
    clock,
    tickMs: Math.max(1000, opts.tickMs ?? 15_000),
    logger: log,
    pass: () => runPass(ticks, drains),
  });

  return {
    outbox,
    tracker,
    alerts,
    digests,
    start: () => timer.start(),
    async stop() {
      await timer.stop();
      await Promise.all([...targets.inFlight(), ...drains.inFlight()].map((p) => p.catch(() => undefined)));
      await releasePollLeases(ticks);
    },
    tick: () => runPass(ticks, drains).done,
    drain: (ws) => drains.drain(ws),
    settled: () => timer.settled(),
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
      timer.inBackground(
        drains.drain(ws).catch((err) => log.error({ err, workspace: ws }, 'notice drain failed')),
      );
    },
    on(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
