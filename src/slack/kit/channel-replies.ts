/**
 * Replies shared by the channel features that subscribe a channel (license alerts, the daily
 * digest): the bot cannot post in the channel (how to invite it), and the ops refused because of
 * who asks (whom to ask instead). Pure.
 */
import { type Message, message, section } from './blocks.js';
import type { PostAbility } from './channel-access.js';
import { channelMention, code, esc, userMention } from './mrkdwn.js';

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
