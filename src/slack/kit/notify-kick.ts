/**
 * How a command handler asks the notification runtime (../notify-runtime.ts) to deliver a
 * workspace's pending notices now (after a cancel through the bot, `/dwm digest now`...), without
 * importing the runtime (which would tie every feature to it). The runtime registers its `kick`
 * for the app's configuration object when it starts and removes it when it stops; with no runtime
 * running (tests without one, `notify: false`) a kick does nothing and the next tick delivers.
 */
import type { AppDeps } from '../deps.js';

type Kick = (ws: string) => void;

const kicks = new WeakMap<object, Set<Kick>>();

/** Register a runtime's kick for the app `deps` belongs to; returns the unregister function. */
export function registerNotifyKick(deps: Pick<AppDeps, 'config'>, kick: Kick): () => void {
  let set = kicks.get(deps.config);
  if (!set) {
    set = new Set();
    kicks.set(deps.config, set);
  }
  set.add(kick);
  return () => {
    set.delete(kick);
  };
}

/** Ask for a delivery of `ws`'s pending notices soon (never throws, never waits). */
export function kickNotify(deps: Pick<AppDeps, 'config'>, ws: string): void {
  for (const k of kicks.get(deps.config) ?? []) {
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
