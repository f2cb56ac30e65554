/** `/dwm watches`: this channel's job subscriptions, who created them, Resume/Unsubscribe buttons. */
import { commandList } from '../../kit/commands/registry.js';
import { replyAudience } from '../../kit/context/roles/admission.js';
import { watchesMessage } from './render-subscriptions.js';
import { outagesOf, subscriptionsOf } from './shared.js';

const list = commandList();

list.add({
  command: '/dwm',
  path: ['watches'],
  args: {},
  role: 'member',
  summary: "List this channel's job subscriptions (with who created them)",
  examples: ['watches'],
  async handler(ctx) {
    const channelId = ctx.channelId;
    if (!channelId) throw new Error('No channel: /dwm watches runs in a channel');
    const list = await subscriptionsOf(ctx).list(ctx.workspace, { channelId });
    // Resume/Unsubscribe only where this reader may use them (a shared list has none).
    const viewer = { audience: await replyAudience(ctx), userId: ctx.userId };
    // Sites of this channel whose notifications an outage of the service delays, while it lasts.
    await ctx.respond(watchesMessage(list, channelId, 0, viewer, await outagesOf(ctx, list)));
  },
});

/** This file's commands, in help order. */
export const commands = list.done();
