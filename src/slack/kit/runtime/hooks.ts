/**
 * How a feature reaches the background job watcher (../../watch-runtime.ts) without importing it:
 * importing the runtime would tie the feature to everything the runtime is wired with (the other
 * features' renderers and ports), so features would depend on each other through it. The runtime
 * registers its hooks for the app's configuration object when it is created and removes them when
 * it stops (per-app state, ../app-state.ts: two apps in one process never reach each other's
 * watcher); a feature calls the functions below. With no runtime running (tests without one,
 * `watch: false`) they do nothing, and the watcher's own periodic checks catch up when one runs.
 *
 * - `notifyCredentialsSaved(deps, ws)`: setup saved and verified new credentials; polling paused
 *   for an auth failure resumes now (else at the next poll interval).
 * - `wakeWatchers(deps, ws, siteId)`: a workflow step stored a wait for a site; this app's
 *   watchers poll it at their next tick (other replicas see it at their next listing).
 * - `watcherStatus(deps)`: this replica's watcher (running, leases held, last poll per site) for
 *   `/dwm debug`; undefined when no watcher runs here.
 *
 * The notification runtime's equivalent (hurry a delivery) is ./notify-kick.ts.
 */
import type { RuntimeStatus } from '../../../ops/debug.js';
import type { AppDeps } from '../../deps.js';
import { appState } from '../app-state.js';

/** What a running watcher offers the features (see the file header). */
export interface WatcherHooks {
  /** Resume the workspace's polling paused for an auth failure (credentials were fixed). */
  credentialsSaved(ws: string): Promise<void>;
  /** Poll the site at the next tick. */
  wake(ws: string, siteId: string): void;
  /** This replica's watcher. */
  status(): Promise<RuntimeStatus>;
}

type HookDeps = Pick<AppDeps, 'config'>;

/** The hooks of the running watchers of one app, in registration order. */
const hooksOf = appState<Set<WatcherHooks>, HookDeps>(() => new Set());

/** Add `item` to an app's set of running runtimes' pieces; returns the function that removes it. */
function enrol<T>(set: Set<T>, item: T): () => void {
  set.add(item);
  return () => {
    set.delete(item);
  };
}

/** Register a watcher's hooks for the app `deps` belongs to; returns the unregister function. */
export function registerWatcherHooks(deps: HookDeps, hooks: WatcherHooks): () => void {
  return enrol(hooksOf(deps), hooks);
}

/**
 * Setup saved and verified new credentials for `ws`: resume polling paused for an auth failure in
 * this app's watchers (awaited; a no-op when none runs). Throws what a resume throws.
 */
export async function notifyCredentialsSaved(deps: HookDeps, ws: string): Promise<void> {
  for (const h of [...hooksOf(deps)]) await h.credentialsSaved(ws);
}

/** A wait was stored for `siteId`: this app's watchers poll it at their next tick (never throws). */
export function wakeWatchers(deps: HookDeps, ws: string, siteId: string): void {
  for (const h of [...hooksOf(deps)]) {
    try {
      h.wake(ws, siteId);
    } catch {
      // Waking only hurries a poll; the watcher's next listing of the watched sites finds the wait.
    }
  }
}

/** This replica's watcher status (the first running watcher of the app), or undefined. */
export async function watcherStatus(deps: HookDeps): Promise<RuntimeStatus | undefined> {
  const [first] = hooksOf(deps);
  return first ? first.status() : undefined;
}

/** A runtime's pause of a channel's subscriptions (watcher: job watches; notifier: alerts, digest). */
export type ChannelPauser = (ws: string, channelId: string, code: string) => Promise<void>;

const pausersOf = appState<Set<ChannelPauser>, HookDeps>(() => new Set());

/** Register a runtime's channel pause for the app `deps` belongs to; returns the unregister function. */
export function registerChannelPauser(deps: HookDeps, pause: ChannelPauser): () => void {
  return enrol(pausersOf(deps), pause);
}

/**
 * A channel may no longer be posted in (it became shared with another organisation): every
 * running runtime of this app pauses that channel's subscriptions not paused yet, once each, and
 * their creators are told. Returns how many runtimes did it (0: none runs here; the senders' own
 * check at delivery time pauses them at their next post). Logs, never throws.
 */
export async function pauseChannelSubscriptions(
  deps: HookDeps & Pick<AppDeps, 'logger'>,
  ws: string,
  channelId: string,
  code: string,
): Promise<number> {
  let n = 0;
  for (const pause of [...pausersOf(deps)]) {
    try {
      await pause(ws, channelId, code);
      n++;
    } catch (err) {
      deps.logger.error({ err, workspace: ws, channel: channelId }, 'could not pause the channel');
    }
  }
  return n;
}
