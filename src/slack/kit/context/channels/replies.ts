/**
 * Replies shared by the channel features that subscribe a channel (license alerts, the daily
 * digest): the bot cannot post in the channel (how to invite it), and the ops refused because of
 * who asks (whom to ask instead). Pure.
 */
import { type Message, message, section } from '../../blocks/blocks.js';
import { channelMention, code, esc, userMention } from '../../blocks/mrkdwn.js';
import type { CommandContext } from '../context.js';
import { mayShareIn, type PostAbility } from './access.js';

/**
 * The bot cannot post in the channel: why, and how to invite it. `what` is what could not be set
 * up ("alerts", "the digest"), `them` how the reply speaks of its posts ("them", "it"), `again`
 * the command to rerun.
 */
export function inviteMessage(
  channelId: string,
  why: Exclude<PostAbility, 'ok'>,
  again: string,
  what: string,
  them: string,
): Message {
  if (why === 'external') return sharedChannelMessage(channelId, `set up ${what} here`);
  if (why === 'archived') {
    return message('This channel is archived: the app cannot post here.', [
      section(
        `:warning: *Couldn't set up ${what} here*\nThis channel is archived, so the app cannot post in it.`,
      ),
      section(`Run ${code(again)} in an active channel.`),
    ]);
  }
  const where = why === 'not_member' ? channelMention(channelId) : 'this channel';
  return message(
    `The app is not in this channel. Invite it with /invite @drm-chatops, then run ${again} again.`,
    [
      section(
        `:warning: *Couldn't set up ${what} here*\nThe app is not in ${where}, so it could not post ${them}.`,
      ),
      section(
        `Invite it with ${code('/invite @drm-chatops')} in this channel, then run ${code(again)} again.`,
      ),
    ],
  );
}

/**
 * The ops refused because of who asks (not in the channel, someone else's settings): what, why,
 * and whom to ask (`owner`, who set it up, when there is one; else the admins, with `unowned`
 * after them, e.g. " if you need it changed").
 */
export function refusedMessage(
  what: string,
  why: string,
  owner: string | undefined,
  admins: string,
  unowned = '',
): Message {
  const ask = owner ? `Ask ${userMention(owner)} (who set it up) or ${admins}.` : `Ask ${admins}${unowned}.`;
  return message(`${what}: ${why}`, [section(`:lock: *${esc(what)}*\n${esc(why)}`), section(ask)]);
}

/** The admin command that allows one channel shared with another organisation. */
export const ALLOW_SHARED = '/dwm setup shared-channel allow';

/**
 * The channel is shared with another organisation (Slack Connect) and no admin allowed it: why
 * the app refuses (what it would show), and what an admin can do. `what`: what was refused
 * ("set up alerts here", "share this reply").
 */
export function sharedChannelMessage(channelId: string, what: string): Message {
  const where = channelMention(channelId);
  return message(
    `Couldn't ${what}: this channel is shared with another organisation (Slack Connect). An admin can allow it with ${ALLOW_SHARED} #channel.`,
    [
      section(
        `:lock: *Couldn't ${esc(what)}*\n${where} is shared with another organisation (Slack Connect), or an invitation to share it is pending. The app does not post content ids, recipients, license data or failures where people of another company can read them.`,
      ),
      section(
        `If this channel is meant for it, a drm-chatops admin can allow this one channel with ${code(`${ALLOW_SHARED} #channel`)} (audited; ${code('/dwm setup shared-channels')} lists the allowed ones, ${code('/dwm setup shared-channel revoke #channel')} takes it back). Otherwise use a channel of your organisation only.`,
      ),
    ],
  );
}

/** Why a reply for everyone in a channel is refused: shared and not allowed, or unreadable. */
export type ShareRefusal = 'external' | 'not_visible';

/**
 * May something be posted for everyone in `channelId`? undefined when it may; else the reason,
 * audited as `share.refused` (`detail` names what was refused). The one decision behind every
 * reply that goes to a channel from a request (`share`, a button's reply on a channel message, a
 * request card, a form replacing a channel card). `unreadable: 'try'`: a channel the app cannot
 * read is not refused here (the post itself then fails with its own reason, e.g. a DM between
 * people, where a request card falls back to the requester's DM).
 */
export async function sharingRefusal(
  ctx: CommandContext,
  channelId: string,
  detail: string,
  o: { unreadable?: 'refuse' | 'try' } = {},
): Promise<ShareRefusal | undefined> {
  const may = await mayShareIn(ctx, channelId);
  if (may === 'ok' || (may === 'not_visible' && o.unreadable === 'try')) return undefined;
  await ctx.audit({
    action: 'share.refused',
    detail: `${detail} in ${channelId}: ${may === 'external' ? 'shared with another organisation' : 'channel not readable'}`,
    result: 'refused',
  });
  return may;
}

/**
 * The refusal of `what` in `channelId` ("share this reply in the channel"), for the user only.
 * `after`: what happens instead (bot-authored mrkdwn), e.g. "The answer is shown only to you."
 */
export function sharingRefusedMessage(
  why: ShareRefusal,
  channelId: string,
  what: string,
  after?: string,
): Message {
  const m =
    why === 'external'
      ? sharedChannelMessage(channelId, what)
      : message(
          `Couldn't ${what}: the app cannot read this channel, so it cannot check whether it is shared with another organisation.`,
          [
            section(
              `:lock: *Couldn't ${esc(what)}*\nThe app cannot read this channel, so it cannot check whether people of another organisation read it. Invite it with ${code('/invite @drm-chatops')}; a command run without ${code('share')} answers only you.`,
            ),
          ],
        );
  return after ? { ...m, blocks: [...(m.blocks ?? []), section(after)] } : m;
}

/**
 * Something is about to be posted for everyone in `channelId` (the `share` option): refused (told
 * privately, and audited as `share.refused`) in a channel shared with another organisation that no
 * admin allowed, and in one the app cannot read (it cannot tell whether it is shared). `detail`
 * names what was refused in the audit, `what` in the reply ("share this reply in the channel").
 * Returns true when refused.
 */
export async function refuseSharingIn(
  ctx: CommandContext,
  channelId: string,
  detail: string,
  what: string,
): Promise<boolean> {
  const why = await sharingRefusal(ctx, channelId, detail);
  if (!why) return false;
  await ctx.respond(sharingRefusedMessage(why, channelId, what), { share: false });
  return true;
}

/**
 * The replies of a request made on a message everyone in `channelId` reads (a button on a card
 * posted or shared in the channel): a reply that would show in the channel (`share`, or
 * `replaceOriginal` of that message) is checked once per request; in a channel shared with another
 * organisation and not allowed (or unreadable) it is not posted there: the user is told why
 * (audited once as `share.refused`) and gets the reply privately instead (ephemeral, the channel's
 * message left as it was). Ephemeral replies pass unchecked. `detail` names the request in the audit.
 */
export function guardChannelReplies(ctx: CommandContext, channelId: string, detail: string): void {
  const inner = ctx.respond.bind(ctx);
  let verdict: Promise<ShareRefusal | undefined> | undefined;
  let told = false;
  ctx.respond = async (msg, opts = {}) => {
    const share = !opts.secret && (opts.share ?? ctx.share);
    if (!share && !opts.replaceOriginal) return inner(msg, opts);
    verdict ??= sharingRefusal(ctx, channelId, detail);
    const why = await verdict;
    if (!why) return inner(msg, opts);
    if (!told) {
      told = true;
      await inner(
        sharingRefusedMessage(
          why,
          channelId,
          opts.replaceOriginal ? 'update this message in the channel' : 'share this reply in the channel',
          'The answer is shown only to you, below.',
        ),
        { share: false },
      );
    }
    await inner(msg, { ...opts, share: false, replaceOriginal: false });
  };
}
