/**
 * `NotifyPorts` (src/notices/types.ts) over Slack's Web API, one set per workspace: what the
 * notifier (src/notices/notifier.ts) calls to tell people about request outcomes, license-failure
 * alerts and daily digests.
 *
 * Built on the job notifications' poster (./poster.ts), so there is ONE Slack sending path:
 * - the client is the poster factory's background client (the bot token from
 *   kit/web/client.ts, no SDK retries, rate limits rejected at once: the notifier's outbox paces and
 *   retries itself, keeping order);
 * - every failure becomes a `DeliveryError` (`toDeliveryError`), which `classifyDeliveryError`
 *   sorts into rate limit / transient / permanent / rejected exactly like the job notifications';
 * - every post carries the message metadata `{ event_type: 'drm_chatops_delivery',
 *   event_payload: { key } }` (DELIVERY_EVENT_TYPE), and `findPosted` is the poster's
 *   `findByMetadata` (conversations.history / conversations.replies with include_all_metadata,
 *   bounded pages, oldest = the given time).
 *
 * deliverDm = conversations.open + chat.postMessage in the IM channel; updateCard / updateAlert =
 * chat.update; postAlert / postDigest = chat.postMessage (thread_ts for the recovery reply).
 *
 * Time zones (users.info tz, cached; UTC when unknown): a DM is shown in its reader's zone, a
 * request card in its requester's, a license alert in its subscription creator's (a channel has
 * no zone of its own); a digest carries the zone of its schedule.
 *
 * Renderers come from the features (`Feature.notifyRenderers`). A renderer no feature provides
 * yet makes that call fail with `DeliveryError('renderer_missing')`: the outbox classifies it as
 * a rejection and drops that one notice with the reason logged (see ./notify-runtime.ts).
 */
import type { WebClient } from '@slack/web-api';
import type { NotifyPorts, PostedRef } from '../notices/types.js';
import { withPlainTextRetry } from '../watch/delivery-errors.js';
import {
  type ChannelMessage,
  type ChannelPoster,
  DELIVERY_EVENT_TYPE,
  DeliveryError,
} from '../watch/types.js';
import type { Message } from './kit/blocks/blocks.js';
import type { NotifyRenderers } from './kit/runtime/notify-render.js';
import { toDeliveryError } from './poster.js';

/** The error code of a notice whose renderer no feature provides (dropped, logged). */
export const RENDERER_MISSING = 'renderer_missing';

export interface NotifyPortsInput {
  /** The workspace's background client (PosterFactory.client). */
  client: () => Promise<WebClient>;
  /** The job notifications' poster over the same client (PosterFactory.poster). */
  poster: ChannelPoster;
  renderers: Partial<NotifyRenderers>;
  /** The reader's IANA zone (users.info, cached; 'UTC' when unknown). */
  zoneOf: (userId: string) => Promise<string>;
  /** Called once per missing renderer use (the runtime logs it). */
  onMissing?: (renderer: keyof NotifyRenderers) => void;
  /** A notice Slack refused for its content (invalid_blocks, msg_too_long): sent again as plain text. */
  onRefused?: (code: string) => void;
}

function toChannelMessage(m: Message): ChannelMessage {
  return { text: m.text, ...(m.blocks ? { blocks: m.blocks } : {}) };
}

/** Slack's `oldest` parameter from epoch ms (seconds with microseconds). */
export function slackTsOf(ms: number): string {
  return (Math.max(0, ms) / 1000).toFixed(6);
}

export function createNotifyPorts(input: NotifyPortsInput): NotifyPorts {
  const { renderers } = input;
  // A notice Slack refuses for its content goes out again as plain text (not dropped).
  const poster = withPlainTextRetry(input.poster, (code) => input.onRefused?.(code));

  function renderer<K extends keyof NotifyRenderers>(name: K): NotifyRenderers[K] {
    const r = renderers[name];
    if (typeof r !== 'function') {
      input.onMissing?.(name);
      throw new DeliveryError(RENDERER_MISSING, { message: `No feature renders ${name} yet` });
    }
    return r as NotifyRenderers[K];
  }

  async function openDm(userId: string): Promise<string> {
    let r: Awaited<ReturnType<WebClient['conversations']['open']>>;
    try {
      r = await (await input.client()).conversations.open({ users: userId });
    } catch (e) {
      throw toDeliveryError(e);
    }
    const id = r.channel?.id;
    // Unknown shape: the outbox keeps the entry and tries again later (nothing was posted).
    if (typeof id !== 'string' || !id) throw new Error('conversations.open returned no channel');
    return id;
  }

  const metadata = (key: string) => ({ event_type: DELIVERY_EVENT_TYPE, event_payload: { key } });

  return {
    async deliverDm(userId, notice, opts) {
      const render = renderer('requestOutcomeDm');
      const msg = render(notice, await input.zoneOf(userId));
      const channel = await openDm(userId);
      const { ts } = await poster.post(channel, toChannelMessage(msg), { metadata: metadata(opts.key) });
      return { channel, ts };
    },
    async updateCard(card, notice) {
      const render = renderer('requestOutcomeCard');
      const msg = render(notice, await input.zoneOf(notice.requestedBy));
      await poster.update(card.channel, card.ts, toChannelMessage(msg));
    },
    async postAlert(channel, alert, opts) {
      const render = renderer('licenseAlert');
      const msg = render(alert, await input.zoneOf(alert.subscription.createdBy));
      const { ts } = await poster.post(channel, toChannelMessage(msg), {
        metadata: metadata(opts.key),
        ...(opts.threadTs ? { threadTs: opts.threadTs } : {}),
      });
      return { channel, ts };
    },
    async updateAlert(channel, ts, alert) {
      const render = renderer('licenseAlert');
      const msg = render(alert, await input.zoneOf(alert.subscription.createdBy));
      await poster.update(channel, ts, toChannelMessage(msg));
    },
    async postDigest(channel, digest, opts) {
      const render = renderer('digest');
      const { ts } = await poster.post(channel, toChannelMessage(render(digest)), {
        metadata: metadata(opts.key),
      });
      return { channel, ts };
    },
    async findPosted(where, key, sinceMs): Promise<PostedRef | undefined> {
      const channel = where.channel ?? (where.userId ? await openDm(where.userId) : undefined);
      if (!channel) return undefined;
      const found = await poster.findByMetadata(channel, key, slackTsOf(sinceMs), where.threadTs);
      return found ? { channel, ts: found.ts } : undefined;
    },
  };
}
