/**
 * A channel Slack refused for good (archived, the bot removed, gone, token revoked) pauses its
 * license-failure alerts or daily digest (src/watch). This is how it is said: the Slack error in
 * words (`pausedWhy`, also for lists and the Home tab) and the DM to the creator naming the
 * channel, what stopped, why and what to do (../../notify-runtime.ts sends it).
 */
import type { NotifyEvent } from '../../../notices/types.js';
import { SHARED_CHANNEL } from '../../../watch/types.js';
import { type Message, message, section } from '../../kit/blocks/blocks.js';
import { channelMention, esc } from '../../kit/blocks/mrkdwn.js';

type PausedEvent = Extract<NotifyEvent, { type: 'notify-paused' }>;

/** The Slack error behind a paused channel, in words. */
export function pausedWhy(code: string): string {
  switch (code) {
    case 'not_in_channel':
      return 'the app is no longer a member of the channel (it was removed)';
    case 'channel_not_found':
      return 'the channel no longer exists, or it is private and the app is not in it';
    case 'is_archived':
      return 'the channel was archived';
    case 'missing_scope':
      return 'the app lacks the permission to post there (chat:write)';
    case SHARED_CHANNEL:
      return 'the channel is now shared with another organisation (Slack Connect), which would read content ids and license data';
    case 'account_inactive':
    case 'token_revoked':
      return "the app's Slack token was revoked or its account is inactive";
    default:
      return `Slack refused the post (${code})`;
  }
}

/** The DM to the creator of an alert subscription or digest schedule Slack refused to post for. */
export function notifyPausedMessage(e: Pick<PausedEvent, 'feature' | 'channelId' | 'code'>): Message {
  const channel = channelMention(e.channelId);
  const what = e.feature === 'alerts' ? 'License-failure alerts' : 'The daily digest';
  const again =
    e.feature === 'alerts'
      ? '`/drm alerts watch` (with the same options) in that channel'
      : '`/dwm digest daily HH:MM` in that channel';
  const why = esc(pausedWhy(e.code));
  let todo: string;
  switch (e.code) {
    case 'is_archived':
      todo = `Unarchive the channel (or pick another one), invite the app with \`/invite @drm-chatops\` if needed, then run ${again}.`;
      break;
    case SHARED_CHANNEL:
      todo = `Use a channel of your organisation only, or ask a drm-chatops admin to allow this one channel with \`/dwm setup shared-channel allow #channel\`, then run ${again}.`;
      break;
    case 'missing_scope':
    case 'account_inactive':
    case 'token_revoked':
      todo = `Ask a workspace admin to reinstall the app, then run ${again}.`;
      break;
    default:
      todo = `Invite the app to the channel with \`/invite @drm-chatops\` (or pick a channel it is in), then run ${again}.`;
  }
  const head = `:pause_button: ${what} in ${channel} stopped: ${why}.`;
  return message(`${what} in ${channel} stopped: ${esc(pausedWhy(e.code))}.`, [
    section(head),
    section(`*What to do:* ${todo}`),
  ]);
}
