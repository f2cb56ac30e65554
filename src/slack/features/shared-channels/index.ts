/**
 * Shared channels: the admin list of channels shared with another organisation (Slack Connect)
 * the app may post in, and the channel_shared / channel_unshared events that pause a channel's
 * subscriptions when it becomes shared. The rule itself is kit/context/channels/access.ts.
 */
import type { Feature } from '../../kit/features.js';
import { commands } from './commands.js';
import { channelShared, channelUnshared } from './events.js';

export const sharedChannels: Feature = {
  name: 'shared-channels',
  commands,
  events: [channelShared, channelUnshared],
};
