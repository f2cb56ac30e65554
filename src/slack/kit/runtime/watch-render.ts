/**
 * What the job watcher's runtime (src/slack/watch-runtime.ts) needs from the features to turn the
 * Slack-free events of src/watch into messages: the channel cards and thread replies of jobs, and
 * the direct messages it sends itself. Each renderer is pure (plain data in, a message out, every
 * service or user string escaped by the renderer).
 *
 * The watch feature provides them through `Feature.watchRenderers`; the runtime merges them from
 * the feature list it is given and refuses to start when one is missing (`watchRenderersOf` in
 * ../features.ts), so the runtime imports no feature.
 */
import type { Subscription, WatchRenderer } from '../../../watch/types.js';
import type { Message } from '../blocks/blocks.js';

export interface WatchRenderers {
  /** The job card, its thread updates and the channel digest (the watcher's `renderer`). */
  jobCard: WatchRenderer;
  /** DM to a subscription's creator: the core paused it after a permanent Slack error. */
  subscriptionPaused(sub: Subscription, code: string, message: string): Message;
  /** DM to the workspace's admins: polling is paused (credentials refused, no permission). */
  pollingPaused(reason: 'auth' | 'permission', message: string): Message;
}

/** Every renderer the runtime needs (the keys of `WatchRenderers`). */
export const WATCH_RENDERER_NAMES: ReadonlyArray<keyof WatchRenderers> = [
  'jobCard',
  'subscriptionPaused',
  'pollingPaused',
];
