/**
 * What the notification runtime (src/slack/notify-runtime.ts) needs from the features to turn the
 * Slack-free notices of src/watch (request outcomes, license-failure alerts, daily digests) into
 * messages. Each renderer is pure: plain data in, a `Message` (fallback text + Block Kit within
 * LIMITS) out; every service or user string is escaped by the renderer.
 *
 * A feature provides the renderers of what it owns through `Feature.notifyRenderers` (plan and
 * sites: request outcomes; alerts: license alerts; digest: the daily digest); the runtime merges
 * them from the feature list and refuses to start when one is missing.
 */
import type { Digest, LicenseAlert, RequestOutcomeNotice } from '../../../notices/types.js';
import type { Message } from '../blocks/blocks.js';

export interface NotifyRenderers {
  /** The DM to the person who asked (zone: the reader's Slack zone, for times). */
  requestOutcomeDm(notice: RequestOutcomeNotice, zone: string): Message;
  /** The card the request was made on, rewritten in place (chat.update) with the outcome. */
  requestOutcomeCard(notice: RequestOutcomeNotice, zone: string): Message;
  /** The channel alert (first post and in-place updates) and its recovery reply. */
  licenseAlert(alert: LicenseAlert, zone: string): Message;
  /** The daily digest (times in `digest.zone`). */
  digest(digest: Digest): Message;
}

/** Every renderer the runtime needs (the keys of `NotifyRenderers`). */
export const NOTIFY_RENDERER_NAMES: ReadonlyArray<keyof NotifyRenderers> = [
  'requestOutcomeDm',
  'requestOutcomeCard',
  'licenseAlert',
  'digest',
];
