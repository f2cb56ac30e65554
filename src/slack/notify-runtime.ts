/**
 * The notification runtime running next to the Slack app: ONE `createNotifier` (src/watch/
 * notifier.ts) per process, wired with the store, the API factory, each workspace's credentials,
 * the Slack ports of ./notify-ports.ts (over the job notifications' poster and background client),
 * the features' renderers, POLL_INTERVAL_SECONDS and a unique holder id. It polls tracked plan and
 * additional-site requests (only while some are pending), license-failure alert windows, and
 * hands due digests to the notices outbox, which posts them exactly once.
 *
 * Renderers: given directly (main.ts: `notifyRenderersOf(FEATURES)`, strict: the start fails
 * naming a kind no feature renders), or merged leniently from a feature list (`features`). With a
 * kind missing the runtime still starts: it logs an error naming it, and each notice of that kind
 * is dropped with the logged reason `renderer_missing` (never posted half-rendered, never retried
 * forever).
 *
 * Events:
 * - `notify-paused` (Slack refused a channel for good: archived, bot removed, channel gone, token
 *   revoked): the subscription's or schedule's creator gets a DM naming the channel, what stopped
 *   (alerts or digest), why (the Slack error in words) and what to do (invite the bot, run the
 *   command again). Sent through the paced background queue (a 429 waits and retries).
 * - `notify-delivered` of a request outcome: the workspace's Home tabs are refreshed (the pending
 *   requests block changed), through the features' declared `onHomeChanged` (given in `features`;
 *   with `renderers` alone there is no Home refresh). A paused channel refreshes them too.
 * - `notify-dropped` / `notify-poll-failed`: logged (the outbox and the notifier count them).
 *
 * Commands hurry a delivery with `kickNotify(deps, ws)` (kit/runtime/notify-kick.ts): the runtime
 * registers its kick while running, and its channel pause (kit/runtime/hooks.ts: a channel that
 * became shared with another organisation pauses its alerts and digest at once).
 *
 * While running it also sweeps the bot's own exports once an hour (./export-sweeper.ts: files
 * older than EXPORT_RETENTION_DAYS are deleted from Slack).
 */
import type { Logger } from '../log.js';
import { createNotifier, type Notifier, type NotifierOptions } from '../notices/notifier.js';
import type { NotifyEvent } from '../notices/types.js';
import { activeCredentials } from '../ops/retention.js';
import { systemClock } from '../watch/clock.js';
import type { Clock } from '../watch/types.js';
import { appChannelPacer, createBackgroundSender } from './background-sender.js';
import type { AppDeps } from './deps.js';
import { createExportSweeper } from './export-sweeper.js';
import { pausedReason } from './kit/blocks/paused-reason.js';
import { userInfo } from './kit/context/roles/slack-users.js';
import { type Feature, homeChangedOf } from './kit/features.js';
import { registerChannelPauser } from './kit/runtime/hooks.js';
import { registerNotifyKick } from './kit/runtime/notify-kick.js';
import { NOTIFY_RENDERER_NAMES, type NotifyRenderers } from './kit/runtime/notify-render.js';
import { onUninstall } from './lifecycle.js';
import { createNotifyPorts } from './notify-ports.js';
import { createPosterFactory, type PosterFactory } from './poster.js';
import { notifyPausedMessage } from './shared/notices/paused.js';
import { newHolderId } from './watch-runtime.js';

/**
 * The renderers a feature list provides, merged, and the names none provides (lenient: the
 * strict `notifyRenderersOf` in kit/features.ts throws instead).
 */
export function availableNotifyRenderers(features: readonly Feature[]): {
  renderers: Partial<NotifyRenderers>;
  missing: Array<keyof NotifyRenderers>;
} {
  const renderers: Partial<NotifyRenderers> = {};
  for (const f of features) Object.assign(renderers, f.notifyRenderers ?? {});
  const missing = NOTIFY_RENDERER_NAMES.filter((k) => typeof renderers[k] !== 'function');
  return { renderers, missing };
}

export interface NotifyRuntimeOptions {
  /**
   * The features whose `notifyRenderers` render the notices and whose `onHomeChanged` refreshes the
   * Home tab after an outcome (main.ts: FEATURES).
   */
  features?: readonly Feature[];
  /** Or the renderers directly (tests); wins over `features`. */
  renderers?: Partial<NotifyRenderers>;
  /** Virtual clock for tests. Default real time. */
  clock?: Clock;
  /** Default: hostname + pid + random (unique per process). */
  holderId?: string;
  /** Overrides of the notifier (tests: tickMs, laneIntervalMs...). */
  notifier?: Partial<
    Omit<NotifierOptions, 'store' | 'api' | 'credentials' | 'ports' | 'holderId' | 'clock' | 'pausedReason'>
  >;
  /** Slack clients and posters; default one factory over the workspaces' bot tokens. */
  posters?: PosterFactory;
}

export interface NotifyRuntime {
  notifier: Notifier;
  /** Renderer names no feature provides (their notices are dropped, logged). */
  missingRenderers: ReadonlyArray<keyof NotifyRenderers>;
  /** Between start() and stop(). */
  readonly running: boolean;
  start(): void;
  stop(): Promise<void>;
  /** Deliver a workspace's pending notices soon (never waits). */
  kick(ws: string): void;
  /** Event handling and the runtime's own DMs in flight settled (tests). */
  idle(): Promise<void>;
  /** Delete the bot's exports older than EXPORT_RETENTION_DAYS now (the runtime does it hourly). */
  sweepExports(): Promise<{ deleted: number; failed: number }>;
}

export function createNotifyRuntime(deps: AppDeps, opts: NotifyRuntimeOptions = {}): NotifyRuntime {
  const log: Logger = deps.logger.child({ module: 'notify-runtime' });
  const clock = opts.clock ?? systemClock;
  const posters = opts.posters ?? createPosterFactory(deps);
  const fromFeatures = availableNotifyRenderers(opts.features ?? []);
  const renderers = opts.renderers ?? fromFeatures.renderers;
  const homeChanged = homeChangedOf(opts.features ?? []);
  const missingRenderers = NOTIFY_RENDERER_NAMES.filter((k) => typeof renderers[k] !== 'function');
  const intervalMs = Math.max(1, deps.config.pollIntervalSeconds) * 1000;
  const pending = new Set<Promise<unknown>>();
  const pacer = appChannelPacer(deps, clock);
  const sender = createBackgroundSender({ logger: log, clock, pacer });
  const warnedMissing = new Set<string>();

  const track = (p: Promise<unknown>) => {
    const t = p
      .catch((err) => log.error({ err }, 'notify event handling failed'))
      .finally(() => pending.delete(t));
    pending.add(t);
  };

  /** The reader's zone (users.info through the background client, cached; UTC when unknown). */
  async function zoneOf(ws: string, userId: string): Promise<string> {
    try {
      const client = await posters.client(ws);
      return (await userInfo(deps, client, ws, userId)).tz;
    } catch {
      return 'UTC';
    }
  }

  async function onEvent(e: NotifyEvent): Promise<void> {
    switch (e.type) {
      case 'notify-paused':
        log.warn(
          { workspace: e.workspace, feature: e.feature, channel: e.channelId, code: e.code },
          'notify channel paused',
        );
        sender.send(
          e.workspace,
          e.createdBy,
          notifyPausedMessage(e),
          () => posters.client(e.workspace),
          `${e.feature} paused`,
        );
        await homeChanged(deps, e.workspace);
        return;
      case 'notify-delivered':
        if (e.kind === 'request-outcome') await homeChanged(deps, e.workspace);
        return;
      case 'notify-dropped':
        log.warn({ workspace: e.workspace, kind: e.kind, key: e.key, reason: e.reason }, 'notice dropped');
        return;
      case 'notify-poll-failed':
        return; // logged by the notifier
    }
  }

  const notifier = createNotifier({
    store: deps.store,
    api: deps.api,
    // None while the workspace is uninstalled (its grace period): nothing runs for it.
    credentials: async (ws) => (await activeCredentials(deps, ws))?.credentials,
    ports: (ws) =>
      createNotifyPorts({
        client: () => posters.client(ws),
        poster: posters.poster(ws),
        renderers,
        zoneOf: (userId) => zoneOf(ws, userId),
        onMissing: (name) => {
          if (warnedMissing.has(name)) return;
          warnedMissing.add(name);
          log.error({ renderer: name }, 'a notice was dropped: no feature renders it yet');
        },
        onRefused: (code) =>
          log.error({ workspace: ws, code }, 'Slack rejected a notice; sending it as plain text'),
      }),
    pausedReason,
    holderId: opts.holderId ?? newHolderId(),
    clock,
    pacer,
    logger: deps.logger,
    intervalMs,
    ...(deps.config.siteRequestUnknownStatusMs !== undefined
      ? { siteRequestUnknownStatusMs: deps.config.siteRequestUnknownStatusMs }
      : {}),
    // The scheduler runs at least once per poll interval (POLL_INTERVAL_SECONDS may be as low as
    // 5 s): an outcome then reaches the requester within two intervals of the change.
    tickMs: Math.min(15_000, intervalMs),
    events: (e) => track(onEvent(e)),
    ...opts.notifier,
  });

  const sweeper = createExportSweeper({ deps, clock, logger: log, client: (ws) => posters.client(ws) });

  let running = false;
  let offKick: (() => void) | undefined;
  let offPauser: (() => void) | undefined;
  let offUninstall: (() => void) | undefined;

  const runtime: NotifyRuntime = {
    notifier,
    missingRenderers,
    get running() {
      return running;
    },
    start() {
      if (running) return;
      running = true;
      if (missingRenderers.length > 0) {
        // Documented: these notice kinds are dropped (logged) until their features land.
        log.error(
          { missing: missingRenderers },
          'notifications started without some renderers: those notices are dropped until a feature provides them',
        );
      }
      offKick = registerNotifyKick(deps, (ws) => runtime.kick(ws));
      offPauser = registerChannelPauser(deps, (ws, ch, code) => notifier.pauseChannel(ws, ch, code));
      offUninstall = onUninstall(deps, (ws) => posters.forget(ws));
      notifier.start();
      sweeper.start();
      log.info({ intervalSeconds: intervalMs / 1000 }, 'notifications started');
    },
    async stop() {
      running = false;
      offKick?.();
      offPauser?.();
      offUninstall?.();
      await notifier.stop();
      await sweeper.stop();
      await runtime.idle();
      await sender.stop();
    },
    kick(ws) {
      if (running) track(notifier.drain(ws));
    },
    sweepExports: () => sweeper.sweep(),
    async idle() {
      await notifier.settled();
      while (pending.size) await Promise.all([...pending]);
      await sender.idle();
      while (pending.size) await Promise.all([...pending]);
    },
  };
  return runtime;
}
