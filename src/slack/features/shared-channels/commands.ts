/**
 * `/dwm setup shared-channels` and `/dwm setup shared-channel allow|revoke #channel` (admins,
 * audited): the channels shared with another organisation (Slack Connect) the app may post in.
 * Everything else about the rule (the check, the refusals) is in kit/context/channels/access.ts.
 */
import { z } from 'zod';
import { allowSharedChannel, revokeSharedChannel } from '../../../ops/admins.js';
import { SHARED_CHANNEL } from '../../../watch/types.js';
import { required } from '../../kit/commands/parse.js';
import { commandList } from '../../kit/commands/registry.js';
import { botCanPost } from '../../kit/context/channels/access.js';
import { pauseChannelSubscriptions } from '../../kit/runtime/hooks.js';
import { sharedChannelsMessage } from './render.js';

const list = commandList();
const word = z.string().min(1).max(200);
const both = ['/dwm', '/drm'] as const;

list.add({
  command: both,
  path: ['setup', 'shared-channels'],
  args: {},
  role: 'admin',
  summary: 'List the channels shared with another organisation (Slack Connect) the app may post in',
  examples: ['setup shared-channels'],
  async handler(ctx) {
    await ctx.respond(sharedChannelsMessage(await ctx.deps.store.settings.get(ctx.workspace)));
  },
});

list.add({
  command: both,
  path: ['setup', 'shared-channel', 'allow'],
  args: {
    channel: required(word, {
      hint: '#channel',
      description: 'A channel shared with another organisation.',
      picker: 'channel',
    }),
  },
  role: 'admin',
  summary:
    'Let the app post in one channel shared with another organisation (watches, digests, alerts, share)',
  description:
    'Everything the app posts there (content ids, recipients, license data, failures) is read by the other organisation too. Subscriptions paused because the channel became shared stay paused until resumed.',
  examples: ['setup shared-channel allow #partner-delivery'],
  async handler(ctx, args) {
    const at = new Date(ctx.deps.now()).toISOString();
    const r = await allowSharedChannel(ctx.deps, ctx.workspace, args.channel, ctx.userId, at);
    await ctx.audit({
      action: 'shared-channel.allow',
      detail: r.already ? `${args.channel} was already allowed` : `allowed ${args.channel}`,
      result: 'ok',
    });
    await ctx.respond(
      sharedChannelsMessage(
        r.settings,
        r.already
          ? 'That channel was already allowed.'
          : 'Allowed: the app may post in that channel although it is shared with another organisation. Paused subscriptions there stay paused until resumed.',
      ),
    );
  },
});

list.add({
  command: both,
  path: ['setup', 'shared-channel', 'revoke'],
  args: {
    channel: required(word, {
      hint: '#channel',
      description: 'An allowed shared channel.',
      picker: 'channel',
    }),
  },
  role: 'admin',
  summary: 'Take back the allowance of a shared channel (its subscriptions are paused if it is still shared)',
  examples: ['setup shared-channel revoke #partner-delivery'],
  async handler(ctx, args) {
    const r = await revokeSharedChannel(ctx.deps, ctx.workspace, args.channel);
    await ctx.audit({
      action: 'shared-channel.revoke',
      detail: r.was ? `revoked ${args.channel}` : `${args.channel} was not allowed`,
      result: 'ok',
    });
    let paused = false;
    if (r.was && (await botCanPost(ctx, args.channel)) === 'external') {
      paused = (await pauseChannelSubscriptions(ctx.deps, ctx.workspace, args.channel, SHARED_CHANNEL)) > 0;
    }
    await ctx.respond(
      sharedChannelsMessage(
        r.settings,
        !r.was
          ? 'That channel was not on the list.'
          : paused
            ? 'Revoked: the channel is still shared, so its job watches, alerts and digest are paused (their creators are told).'
            : 'Revoked.',
      ),
    );
  },
});

export const commands = list.done();
