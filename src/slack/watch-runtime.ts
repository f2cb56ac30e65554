/**
 * The job watcher running next to the Slack app: `createWatcher` wired with the store, the API
 * factory, each workspace's credentials (src/ops/workspace.ts), a Slack poster per workspace
 * (src/slack/poster.ts), the Block Kit renderer, POLL_INTERVAL_SECONDS and a unique holder id.
 *
 * Events become direct messages, sent through a paced background queue (poster.ts
 * `createBackgroundSender`, on the runtime's clock): a 429 waits Retry-After and tries again, so a
 * rate limit never drops the notice; `stop()` clears its timers.
 * - `subscription-paused` (a permanent Slack error in a channel): the subscription's creator gets
 *   what happened and a Resume button.
 * - `admin-alert` (the service refused the credentials and a token refresh did not fix it; the
 *   core pauses the workspace's polling and emits this once): the workspace's admins are told
 *   once (configured admin ids, workspace setting admin ids, whoever saved the credentials, the
 *   installer; when none is known, the workspace's subscription creators).
 * Workflow Builder waits (src/watch/job-waits.ts) are served by this watcher: a pending wait
 * makes its site watched, and the poll that sees its job finish completes the step through the
 * port a feature declares (`Feature.jobWaits`: functions.completeSuccess / completeError), exactly
 * once.
 * Resuming after an auth pause: `resume(ws)` (reached by the setup flow through the kit hook
 * `notifyCredentialsSaved(deps, ws)`, kit/runtime/hooks.ts), and also automatically: every poll
 * interval, a workspace paused for auth whose stored credentials were saved again after the pause
 * is resumed; env credentials (which only a restart can change) are resumed at start, so a fixed
 * deployment recovers after its restart.
 *
 * No feature is imported here: the runtime is given the feature list (main.ts: FEATURES) and takes
 * from it the renderers (`Feature.watchRenderers`, strict: a missing one refuses the start), the
 * waits port (`Feature.jobWaits`) and the Home refresh (`Feature.onHomeChanged`, after a delivery, a
 * paused subscription or paused polling). Features reach the runtime through kit/runtime/hooks.ts,
 * which it registers on creation and leaves at stop(): credentials saved, wake a site (workflow
 * waits), the watcher's status (`/dwm debug`).
 */

import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { App } from '@slack/bolt';
import { configAdminIds } from '../config.js';
import { activeCredentials } from '../ops/retention.js';
import { loadCredentials } from '../ops/workspace.js';
import {
  type Clock,
  createWatcher,
  systemClock,
  type WatchEvent,
  type Watcher,
  type WatcherOptions,
} from '../watch/index.js';
import { appChannelPacer, createBackgroundSender } from './background-sender.js';
import type { AppDeps } from './deps.js';
import type { Message } from './kit/blocks/blocks.js';
import { watchWords } from './kit/blocks/paused-reason.js';
import { type Feature, homeChangedOf, jobWaitsOf, watchRenderersOf } from './kit/features.js';
import { registerChannelPauser, registerWatcherHooks } from './kit/runtime/hooks.js';
import { onUninstall } from './lifecycle.js';
import { createPosterFactory, type PosterFactory } from './poster.js';

/** Where the runtime remembers when a workspace's polling was paused (for auto-resume). */
const RUNTIME_NS = 'watch-runtime';

export interface WatchRuntimeOptions {
  /**
   * The features the runtime renders and refreshes with (main.ts: FEATURES): their
   * `watchRenderers` (all required), `jobWaits` and `onHomeChanged`.
   */
  features: readonly Feature[];
  /** Virtual clock for tests. Default real time. */
  clock?: Clock;
  /** Default: hostname + pid + random. */
  holderId?: string;
  /** Overrides of the watcher (tests: channelIntervalMs, jitter...). */
  watcher?: Partial<Omit<WatcherOptions, 'store' | 'api' | 'credentials' | 'poster' | 'renderer' | 'words'>>;
  /** Slack posters; default one over the workspace's bot token. */
  posters?: PosterFactory;
  /**
   * Serve the Workflow Builder steps' waits (src/watch/job-waits.ts) through the features'
   * `jobWaits` port. Default true (nothing to serve when no feature provides one).
   */
  waits?: boolean;
}

export interface WatchRuntime {
  watcher: Watcher;
  posters: PosterFactory;
  start(): void;
  stop(): Promise<void>;
  /** Credentials were fixed: resume the workspace's polling now. */
  resume(ws: string): Promise<void>;
  /** Resume workspaces whose credentials were saved again since their pause (run each interval). */
  checkResumes(): Promise<string[]>;
  /** Event handling and direct messages in flight settled (tests wait on it; queued retries
   * waiting for a timer are not waited for). */
  idle(): Promise<void>;
}

export function newHolderId(): string {
  return `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
}

interface PauseMark {
  /** ISO time of the pause. */
  at: string;
  /** verifiedAt of the stored credentials at the time of the pause ('' for env ones). */
  verifiedAt: string;
}

export function createWatchRuntime(deps: AppDeps, _app: App, opts: WatchRuntimeOptions): WatchRuntime {
  const log = deps.logger.child({ module: 'watch-runtime' });
  const clock = opts.clock ?? systemClock;
  // Strict: a watcher without its card renderer or its DMs must not start half-wired.
  const render = watchRenderersOf(opts.features);
  const homeChanged = homeChangedOf(opts.features);
  const waitsPort = opts.waits !== false ? jobWaitsOf(opts.features) : undefined;
  const posters = opts.posters ?? createPosterFactory(deps);
  const marks = deps.store.docs<PauseMark>(RUNTIME_NS);
  const pending = new Set<Promise<unknown>>();
  const intervalMs = Math.max(1, deps.config.pollIntervalSeconds) * 1000;

  const track = (p: Promise<unknown>) => {
    const t = p
      .catch((err) => log.error({ err }, 'watch notification failed'))
      .finally(() => pending.delete(t));
    pending.add(t);
  };

  const pacer = appChannelPacer(deps, clock);
  const sender = createBackgroundSender({ logger: log, clock, pacer });

  /** Queue a direct message (never throws; retried on 429 and transient errors). */
  function dm(ws: string, userId: string, msg: Message, label: string): void {
    sender.send(ws, userId, msg, () => posters.client(ws), label);
  }

  /** Who hears about a paused workspace: configured admins, setup savers, the installer
   * (else the subscription creators). */
  async function adminRecipients(ws: string): Promise<string[]> {
    const ids = new Set<string>(configAdminIds(deps.config, ws));
    const settings = await deps.store.settings.get(ws);
    for (const id of settings.adminUserIds) ids.add(id);
    const stored = await deps.store.credentials.get(ws);
    if (stored?.savedBy) ids.add(stored.savedBy);
    const inst = (await deps.store.installations.get(ws)) as { user?: { id?: unknown } } | undefined;
    if (typeof inst?.user?.id === 'string') ids.add(inst.user.id);
    // Nobody known (env credentials, no ADMIN_USER_IDS): the people who asked for the
    // notifications hear that they stopped, rather than no one.
    if (ids.size === 0) for (const s of await watcher.subscriptions.list(ws)) ids.add(s.createdBy);
    return [...ids].filter((id) => /^[UW][A-Z0-9]{2,}$/.test(id)).slice(0, 10);
  }

  async function onEvent(e: WatchEvent): Promise<void> {
    if (e.type === 'subscription-paused') {
      const s = e.subscription;
      log.warn({ workspace: e.workspace, subscription: s.id, code: e.code }, 'subscription paused');
      dm(e.workspace, s.createdBy, render.subscriptionPaused(s, e.code, e.message), 'subscription paused');
      // The Home tab lists the workspace's watches with their state: show the pause there too.
      await homeChanged(deps, e.workspace);
    } else if (e.type === 'delivered') {
      // The App Home shows jobs in flight and recent failures: refresh it for this workspace.
      await homeChanged(deps, e.workspace);
    } else if (e.type === 'admin-alert') {
      const loaded = await loadCredentials(deps, e.workspace);
      await marks.put(e.workspace, 'pause', {
        at: new Date(clock.now()).toISOString(),
        verifiedAt: loaded?.source === 'store' ? (loaded.verifiedAt ?? '') : '',
      });
      const to = await adminRecipients(e.workspace);
      if (to.length === 0) log.warn({ workspace: e.workspace }, 'polling paused and no admin to tell');
      for (const u of to) dm(e.workspace, u, render.pollingPaused(e.reason, e.message), 'polling paused');
      // The tab's connection status says polling is paused.
      await homeChanged(deps, e.workspace);
    }
  }

  const watcher = createWatcher({
    store: deps.store,
    api: deps.api,
    // None while the workspace is uninstalled (its grace period): nothing runs for it.
    credentials: async (ws) => (await activeCredentials(deps, ws))?.credentials,
    poster: (ws) => posters.poster(ws),
    renderer: render.jobCard,
    words: watchWords,
    clock,
    pacer,
    intervalMs,
    holderId: opts.holderId ?? newHolderId(),
    logger: deps.logger,
    events: (e) => track(onEvent(e)),
    ...(waitsPort ? { waits: waitsPort(deps) } : {}),
    ...opts.watcher,
  });

  async function resume(ws: string): Promise<void> {
    await watcher.resume(ws);
    await marks.delete(ws, 'pause');
    log.info({ workspace: ws }, 'job watching resumed');
  }

  async function checkResumes(): Promise<string[]> {
    const resumed: string[] = [];
    for (const ws of await watcher.subscriptions.workspaces()) {
      const s = await deps.store.settings.get(ws);
      if (!s.pollingPausedReason) continue;
      const loaded = await loadCredentials(deps, ws);
      if (loaded?.source !== 'store') continue;
      const mark = await marks.get(ws, 'pause');
      // Saved again since the pause (setup verifies before saving), or no record of the pause.
      if (!mark || (loaded.verifiedAt ?? '') !== mark.verifiedAt) {
        await resume(ws);
        resumed.push(ws);
      }
    }
    return resumed;
  }

  async function resumeEnvPaused(): Promise<void> {
    if (deps.config.distribution !== 'single' || !deps.config.envCredentials) return;
    for (const ws of await watcher.subscriptions.workspaces()) {
      if ((await deps.store.settings.get(ws)).pollingPausedReason) await resume(ws);
    }
  }

  let timer: unknown;
  let running = false;
  // An uninstalled workspace's clients and posters go (a reinstall brings a new token).
  const offUninstall = onUninstall(deps, (ws) => posters.forget(ws));
  const scheduleCheck = () => {
    if (!running) return;
    timer = clock.setTimer(() => {
      track(checkResumes().finally(scheduleCheck));
    }, intervalMs);
  };

  const runtime: WatchRuntime = {
    watcher,
    posters,
    start() {
      if (running) return;
      running = true;
      // Resume first (env credentials may have been fixed by this restart), then poll.
      track(
        resumeEnvPaused()
          .then(checkResumes)
          .finally(() => {
            if (running) watcher.start();
          }),
      );
      scheduleCheck();
      log.info({ intervalSeconds: intervalMs / 1000 }, 'job watching started');
    },
    async stop() {
      running = false;
      offHooks();
      offPauser();
      offUninstall();
      if (timer !== undefined) clock.clearTimer(timer);
      await watcher.stop();
      await runtime.idle();
      await sender.stop();
    },
    resume,
    checkResumes,
    async idle() {
      while (pending.size) await Promise.all([...pending]);
      await sender.idle();
      // A DM sent when its post settled may have queued work of its own.
      while (pending.size) await Promise.all([...pending]);
    },
  };
  // What the features reach through the kit (per app: another app's setup never resumes this one).
  const offHooks = registerWatcherHooks(deps, {
    credentialsSaved: resume,
    wake: (ws, siteId) => watcher.wake(ws, siteId),
    status: () => watcher.status(),
  });
  const offPauser = registerChannelPauser(deps, (ws, ch, code) => watcher.pauseChannel(ws, ch, code));
  return runtime;
}
