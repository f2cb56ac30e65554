/**
 * What the channel features (job watches, license alerts, the daily digest) check before they
 * subscribe a channel, and what they hand to the ops: can the bot post there, is the user a
 * member, who asks (the ops' `Actor`), and the audit mirror of the request's context.
 */
import type { WebClient } from '@slack/web-api';
import type { AuditMirror } from '../../ops/audit.js';
import { appSender } from '../background-sender.js';
import { auditLine, type CommandContext } from './context.js';

export type PostAbility = 'ok' | 'not_member' | 'not_visible' | 'archived';

/**
 * Can the bot post in the channel? conversations.info: `is_member` (IMs always), `is_archived`;
 * channel_not_found means the bot cannot see it (a private channel it is not in).
 */
export async function botCanPost(client: WebClient, channelId: string): Promise<PostAbility> {
  try {
    const r = await client.conversations.info({ channel: channelId });
    const ch = r.channel;
    if (!ch) return 'not_visible';
    if (ch.is_archived) return 'archived';
    if (ch.is_im) return 'ok';
    return ch.is_member ? 'ok' : 'not_member';
  } catch (e) {
    const code = (e as { data?: { error?: string } }).data?.error;
    if (code === 'channel_not_found') return 'not_visible';
    throw e;
  }
}

/** Members per conversations.members page (Slack's maximum is 1000) and pages read at most. */
const MEMBERS_PAGE = 1000;
const MEMBERS_MAX_PAGES = 200;

/**
 * Is `userId` a member of `channelId`? conversations.members, paged ('unknown' when the bot cannot
 * read the list: a private channel it is not in). A bigger channel than the page cap counts as
 * "no", the safe side (an admin can still act).
 */
export async function isChannelMember(
  client: WebClient,
  channelId: string,
  userId: string,
): Promise<'yes' | 'no' | 'unknown'> {
  let cursor: string | undefined;
  try {
    for (let page = 0; page < MEMBERS_MAX_PAGES; page++) {
      const r = await client.conversations.members({
        channel: channelId,
        limit: MEMBERS_PAGE,
        ...(cursor ? { cursor } : {}),
      });
      if (r.members?.includes(userId)) return 'yes';
      cursor = r.response_metadata?.next_cursor || undefined;
      if (!cursor) return 'no';
    }
    return 'no';
  } catch (e) {
    const code = (e as { data?: { error?: string } }).data?.error;
    if (code === 'channel_not_found') return 'unknown';
    throw e;
  }
}

/**
 * Who asks, for the ops' membership and ownership rules. `inChannel`: true for a slash command
 * (Slack sends one only from a conversation the user is in); a form submission passes what
 * `isChannelMember` found ('unknown' is not a yes).
 */
export async function actorOf(ctx: CommandContext, inChannel: boolean) {
  return { userId: ctx.userId, isAdmin: (await ctx.role()) === 'admin', inChannel };
}

/** The audit mirror of a request: one line queued for the audit channel (paced), never awaited. */
export function auditMirrorOf(ctx: CommandContext): AuditMirror {
  return async (channel, entry) => {
    appSender(ctx.deps).send(
      ctx.workspace,
      channel,
      { text: auditLine(entry) },
      () => ctx.client,
      `audit ${entry.action}`,
    );
  };
}
