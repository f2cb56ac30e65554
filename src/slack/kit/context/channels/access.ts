/**
 * What the channel features (job watches, license alerts, the daily digest) check before they
 * subscribe a channel, and what they hand to the ops: can the bot post there (and may it: a
 * channel shared with another organisation is refused unless an admin allowed it), is the user a
 * member, who asks (the ops' `Actor`), (the audit mirror of a request's context is in ./audit-mirror.ts). The same
 * sharing rule serves the `share` option (../../commands/registry.ts) and the background senders (../../../poster.ts).
 */
import type { WebClient } from '@slack/web-api';
import { TtlLru } from '../../../../lru.js';
import type { AppDeps } from '../../../deps.js';
import { appState } from '../../app-state.js';
import type { CommandContext } from '../types.js';

export type PostAbility = 'ok' | 'not_member' | 'not_visible' | 'archived' | 'external';

/** What conversations.info says of a channel's sharing (Slack Connect and org-wide sharing). */
interface SharingFields {
  is_im?: boolean;
  is_ext_shared?: boolean;
  is_pending_ext_shared?: boolean;
  is_shared?: boolean;
  is_org_shared?: boolean;
  shared_team_ids?: string[];
  pending_shared?: string[];
  pending_connected_team_ids?: string[];
}

/**
 * Is the channel shared with another organisation (Slack Connect), or about to be? Slack says so
 * with `is_ext_shared`, `is_pending_ext_shared` (an invitation not yet accepted) and
 * `pending_shared` / `pending_connected_team_ids`; a channel `is_shared` with a team outside this
 * workspace that is not an org-wide share (`is_org_shared`: workspaces of the same Enterprise
 * organisation) counts too. `own`: this workspace's team and enterprise ids.
 */
export function isExternallyShared(ch: SharingFields, own: readonly string[]): boolean {
  if (ch.is_ext_shared || ch.is_pending_ext_shared) return true;
  if ((ch.pending_shared?.length ?? 0) > 0 || (ch.pending_connected_team_ids?.length ?? 0) > 0) return true;
  if (ch.is_shared && !ch.is_org_shared) {
    // Inside an Enterprise organisation (an E id among the own ids: an org install, or a workspace
    // of an org), a channel shared with a sibling workspace is one organisation: Slack marks
    // another organisation with is_ext_shared, read above. Outside one, another team is another
    // organisation.
    if (own.some((t) => t.startsWith('E'))) return false;
    return (ch.shared_team_ids ?? []).some((t) => !own.includes(t));
  }
  return false;
}

/**
 * How long a channel's sharing, as read from conversations.info, is reused by the senders: the
 * channel_shared event is the prompt path, this check the backstop. conversations.info is Tier 3
 * (about 50 calls a minute): 30 minutes keeps a thousand busy channels near 35 calls a minute.
 */
export const SHARING_CACHE_MS = 30 * 60_000;

/** Per app: `ws|channel` -> shared with another organisation (conversations.info, or the events). */
const sharingOf = appState<TtlLru<boolean>, Pick<AppDeps, 'config'>>(
  () => new TtlLru(5000, SHARING_CACHE_MS),
);

/** Record what is known of a channel's sharing (a reading, or channel_shared / channel_unshared). */
export function rememberSharing(
  deps: Pick<AppDeps, 'config' | 'now'>,
  ws: string,
  channelId: string,
  shared: boolean,
) {
  sharingOf(deps).set(`${ws}|${channelId}`, shared, deps.now());
}

/** Forget what is known of a channel's sharing (channel_unshared): the next post reads it again. */
export function forgetSharing(deps: Pick<AppDeps, 'config'>, ws: string, channelId: string) {
  sharingOf(deps).delete(`${ws}|${channelId}`);
}

/** Is `channelId` one an admin allowed although it is shared with another organisation? */
export async function sharedChannelAllowed(
  deps: Pick<AppDeps, 'store'>,
  ws: string,
  channelId: string,
): Promise<boolean> {
  const s = await deps.store.settings.get(ws);
  return (s.sharedChannels ?? []).some((c) => c.channelId === channelId);
}

/**
 * The sharing check of the background senders (job cards, alerts, digests) before each post:
 * true when the channel is shared with another organisation and no admin allowed it. The reading
 * is cached (`SHARING_CACHE_MS`; the channel_shared / channel_unshared events update it at once)
 * so a busy channel costs one conversations.info per period, not one per post. A channel the app
 * cannot read (channel_not_found) is left to the post itself, which fails with its own reason.
 */
export async function sharedAndNotAllowed(
  deps: Pick<AppDeps, 'config' | 'store' | 'now'>,
  ws: string,
  client: () => Promise<WebClient>,
  channelId: string,
): Promise<boolean> {
  const key = `${ws}|${channelId}`;
  let shared = sharingOf(deps).get(key, deps.now());
  if (shared === undefined) {
    try {
      const r = await (await client()).conversations.info({ channel: channelId });
      shared = r.channel ? isExternallyShared(r.channel as SharingFields, [ws]) : false;
    } catch (e) {
      if ((e as { data?: { error?: string } }).data?.error === 'channel_not_found') return false;
      throw e;
    }
    rememberSharing(deps, ws, channelId, shared);
  }
  return shared && !(await sharedChannelAllowed(deps, ws, channelId));
}

/** Who reads a channel check: the request's workspace, its team ids and client. */
export type ChannelCheckContext = Pick<
  CommandContext,
  'deps' | 'workspace' | 'client' | 'teamId' | 'enterpriseId'
>;

/** This workspace's own team and enterprise ids (a share among them is not external). */
function ownTeams(ctx: ChannelCheckContext): string[] {
  return [
    ctx.workspace,
    ...(ctx.teamId ? [ctx.teamId] : []),
    ...(ctx.enterpriseId ? [ctx.enterpriseId] : []),
  ];
}

/**
 * Can the bot post in the channel, and may it? conversations.info: `is_member` (IMs always),
 * `is_archived`; channel_not_found means the bot cannot see it (a private channel it is not in).
 * 'external': the channel is shared with another organisation (Slack Connect, also a pending
 * share) and no admin allowed it (`/dwm setup shared-channel allow`): job cards, alerts and
 * digests show content ids, recipients and failures, which must not reach another company.
 */
export async function botCanPost(ctx: ChannelCheckContext, channelId: string): Promise<PostAbility> {
  try {
    const r = await ctx.client.conversations.info({ channel: channelId });
    const ch = r.channel;
    if (!ch) return 'not_visible';
    if (ch.is_archived) return 'archived';
    const shared = isExternallyShared(ch as SharingFields, ownTeams(ctx));
    rememberSharing(ctx.deps, ctx.workspace, channelId, shared);
    if (shared && !(await sharedChannelAllowed(ctx.deps, ctx.workspace, channelId))) return 'external';
    if (ch.is_im) return 'ok';
    return ch.is_member ? 'ok' : 'not_member';
  } catch (e) {
    const code = (e as { data?: { error?: string } }).data?.error;
    if (code === 'channel_not_found') return 'not_visible';
    throw e;
  }
}

/**
 * May a reply be posted for everyone to read in `channelId` (the `share` option)? 'external' when
 * the channel is shared with another organisation and not allowed; 'not_visible' when the app
 * cannot read the channel (it cannot tell, so it does not share); else 'ok'.
 */
export async function mayShareIn(
  ctx: ChannelCheckContext,
  channelId: string,
): Promise<'ok' | 'external' | 'not_visible'> {
  const a = await botCanPost(ctx, channelId);
  return a === 'external' || a === 'not_visible' ? a : 'ok';
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
