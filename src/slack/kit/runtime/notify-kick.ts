/**
 * How a command handler asks the notification runtime (../../notify-runtime.ts) to deliver a
 * workspace's pending notices now (after a cancel through the bot, `/dwm digest now`...), without
 * importing the runtime (which would tie every feature to it). The runtime registers its `kick`
 * for the app's configuration object when it starts and removes it when it stops; with no runtime
 * running (tests without one, `notify: false`) a kick does nothing and the next tick delivers.
 */
import type { AppDeps } from '../../deps.js';
import { appState } from '../app-state.js';

type Kick = (ws: string) => void;

/** The kicks of the running runtimes of one app (per-app state, see ../app-state.ts). */
const kicksOf = appState<Set<Kick>, Pick<AppDeps, 'config'>>(() => new Set());

/** Register a runtime's kick for the app `deps` belongs to; returns the unregister function. */
export function registerNotifyKick(deps: Pick<AppDeps, 'config'>, kick: Kick): () => void {
  const set = kicksOf(deps);
  set.add(kick);
  return () => {
    set.delete(kick);
  };
}

/** Ask for a delivery of `ws`'s pending notices soon (never throws, never waits). */
export function kickNotify(deps: Pick<AppDeps, 'config'>, ws: string): void {
  for (const k of kicksOf(deps)) {
    try {
      k(ws);
    } catch {
      // A kick only hurries delivery; the runtime's next tick delivers anyway.
    }
  }
}

/** A `kick` argument for the ops (`cancelPlanRequestTracked({ kick })`). */
export function notifyKicker(deps: Pick<AppDeps, 'config'>): (ws: string) => void {
  return (ws) => kickNotify(deps, ws);
}
