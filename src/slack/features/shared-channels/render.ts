/** The `/dwm setup shared-channels` card: channels shared with another organisation an admin allowed. */
import type { WorkspaceSettings } from '../../../store/types.js';
import { type Block, context, header, type Message, message, section } from '../../kit/blocks/blocks.js';
import { channelMention, code, esc, userMention } from '../../kit/blocks/mrkdwn.js';
import { ALLOW_SHARED } from '../../kit/context/channels/replies.js';

/**
 * Channels listed (up to 1000 may be allowed): each line is at most ~80 characters, so the list
 * stays within a section's 3000 and ends with how many more rather than being cut mid-line.
 */
const CHANNELS_SHOWN = 30;

export function sharedChannelsMessage(s: WorkspaceSettings, changed?: string): Message {
  const list = s.sharedChannels ?? [];
  const blocks: Block[] = [header('Shared channels the app may post in')];
  if (changed) blocks.push(section(`:white_check_mark: ${esc(changed)}`));
  blocks.push(
    section(
      'By default the app refuses channels shared with another organisation (Slack Connect, also while an invitation is pending): no job watches, digests, license alerts or shared replies there, and subscriptions of a channel that becomes shared are paused. Allowed one by one:',
    ),
    section(
      list.length
        ? [
            ...list
              .slice(0, CHANNELS_SHOWN)
              .map(
                (c) =>
                  `• ${channelMention(c.channelId)}: allowed by ${userMention(c.by)} on ${esc(c.at.slice(0, 10))}`,
              ),
            ...(list.length > CHANNELS_SHOWN
              ? [`…and ${list.length - CHANNELS_SHOWN} more (the ${CHANNELS_SHOWN} allowed first are shown).`]
              : []),
          ].join('\n')
        : '_none_',
    ),
    context(
      `Change with ${code(`${ALLOW_SHARED} #channel`)} · ${code('/dwm setup shared-channel revoke #channel')} (admins, audited)`,
    ),
  );
  return message(changed ?? 'Shared channels the app may post in', blocks);
}
