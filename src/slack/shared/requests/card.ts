/**
 * The card of a request made through the bot (plan change, additional site): posted as a normal
 * message with chat.postMessage (never ephemeral or through a response_url, which cannot be
 * edited later) and recorded with the tracked request (`attachRequestCard`), so the notification
 * runtime can rewrite it in place when the provider decides (../../notify-runtime.ts).
 *
 * Where: the channel the request was made in. When the bot cannot post there (not a member, a
 * DM between people, a private channel it is not in, archived), the card goes to the requester's
 * DM with the bot instead and they are told why (ephemeral). When Slack refuses both, the card is
 * shown ephemerally as before (not tracked as a card: the outcome DM still goes out). A channel
 * shared with another organisation (Slack Connect) that no admin allowed gets no card either
 * (../../kit/context/channels/access.ts, the rule of every channel post): it goes to the DM, the requester is told
 * why (audited as `share.refused`); its later rewrite follows the card (the notifier's poster
 * checks the channel again before each edit). A request
 * decided upstream in the moment between being made and its card being posted has no card to
 * rewrite (`attachRequestCard` says false): its requester still gets the DM.
 */
import type { WebClient } from '@slack/web-api';
import { attachRequestCard } from '../../../ops/request-outcomes.js';
import type { Message } from '../../kit/blocks/blocks.js';
import {
  type ShareRefusal,
  sharingRefusal,
  sharingRefusedMessage,
} from '../../kit/context/channels/replies.js';
import type { CommandContext } from '../../kit/context/types.js';

export interface PostedCard {
  channel: string;
  ts: string;
  /** 'channel': where it was made; 'dm': the requester's DM (the channel refused the bot). */
  where: 'channel' | 'dm';
}

async function post(client: WebClient, channel: string, msg: Message) {
  const r = await client.chat.postMessage({
    channel,
    text: msg.text,
    ...(msg.blocks ? { blocks: msg.blocks } : {}),
    unfurl_links: false,
    unfurl_media: false,
  });
  if (typeof r.ts !== 'string' || typeof r.channel !== 'string')
    throw new Error('chat.postMessage returned no ts');
  return { channel: r.channel, ts: r.ts };
}

/**
 * Post the request's card and attach it to the tracked request `trackingId`. `channelId`: where
 * the request was made when the context has none (a modal submission). Never throws for Slack
 * refusing the post (falls back as described above); returns undefined when shown ephemerally.
 */
export async function postRequestCard(
  ctx: CommandContext,
  msg: Message,
  trackingId: string | undefined,
  o: { channelId?: string } = {},
): Promise<PostedCard | undefined> {
  const channel = o.channelId ?? ctx.channelId;
  let posted: PostedCard | undefined;
  let channelError: unknown;
  let refused: ShareRefusal | undefined;
  if (channel) {
    // Where people of another organisation read, the card (site, product, who asked) is not posted.
    refused = await sharingRefusal(ctx, channel, 'request card', { unreadable: 'try' }).catch(
      (err: unknown) => {
        ctx.logger.warn({ err, channel }, 'channel sharing not read; the request card goes to the DM');
        return 'not_visible' as const;
      },
    );
  }
  if (channel && !refused) {
    try {
      posted = { ...(await post(ctx.client, channel, msg)), where: 'channel' };
    } catch (err) {
      channelError = err;
      ctx.logger.info({ err, channel }, 'request card not posted in the channel; trying the DM');
    }
  }
  if (!posted) {
    try {
      posted = { ...(await post(ctx.client, ctx.userId, msg)), where: 'dm' };
    } catch (err) {
      ctx.logger.warn({ err }, 'request card not posted in the DM either; shown ephemerally');
    }
  }
  if (!posted) {
    await ctx.respond(msg, { share: false });
    return undefined;
  }
  if (trackingId) {
    // The request is made and its card posted: the store down here only costs the card's update.
    await attachRequestCard(ctx.deps, ctx.workspace, trackingId, {
      channel: posted.channel,
      ts: posted.ts,
    }).catch((err: unknown) =>
      ctx.logger.warn({ err }, 'request card posted but not attached to its tracking'),
    );
  }
  if (posted.where === 'dm' && channel && refused === 'external') {
    await ctx
      .respond(
        sharingRefusedMessage(
          refused,
          channel,
          'post the request card in this channel',
          'The request was sent. Its card is in our direct message and is updated there when the provider decides.',
        ),
        { share: false },
      )
      .catch((err: unknown) => ctx.logger.warn({ err }, 'could not say where the request card went'));
  } else if (posted.where === 'dm' && channel) {
    const code = (channelError as { data?: { error?: unknown } } | undefined)?.data?.error;
    const why =
      code === 'not_in_channel' || code === 'channel_not_found'
        ? "I'm not a member of this conversation"
        : code === 'is_archived'
          ? 'this channel is archived'
          : 'Slack did not let me post here';
    await ctx
      .respond(
        {
          text: `The request was sent. ${why}, so its card is in our direct message; it is updated there when the provider decides. To keep request cards in this channel, invite me with \`/invite @drm-chatops\`.`,
        },
        { share: false },
      )
      .catch((err: unknown) => ctx.logger.warn({ err }, 'could not say where the request card went'));
  }
  return posted;
}
