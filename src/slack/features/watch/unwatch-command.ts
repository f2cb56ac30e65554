/**
 * `/dwm unwatch [site:<site id>] [id:sub_…]`: stop this channel's job subscriptions (all of them, one
 * site's, or one by id). Members remove what they created; others' are kept unless an admin asks.
 */
import { z } from 'zod';
import type { Subscription } from '../../../watch/types.js';
import { option } from '../../kit/commands/parse.js';
import { commandList } from '../../kit/commands/registry.js';
import { unwatchedMessage } from './render-subscriptions.js';
import { subscriptionsOf } from './shared.js';

const list = commandList();

list.add({
  command: '/dwm',
  path: ['unwatch'],
  args: {
    site: option(z.string().min(1).max(40), {
      hint: '<site id>',
      description: 'Only the subscriptions of this site.',
    }),
    id: option(
      z
        .string()
        .regex(/^sub_[a-f0-9]{16}$/, { error: 'must be a subscription id like sub_0123456789abcdef' }),
      {
        hint: 'sub_…',
        description: 'One subscription (ids are in /dwm watches).',
      },
    ),
  },
  role: 'member',
  changesHome: true,
  summary: "Stop this channel's job notifications",
  examples: ['unwatch', 'unwatch site:AB12', 'unwatch id:sub_0123456789abcdef'],
  async handler(ctx, args) {
    const channelId = ctx.channelId;
    if (!channelId) throw new Error('No channel: /dwm unwatch runs in a channel');
    const subs = subscriptionsOf(ctx);
    const targets = (await subs.list(ctx.workspace, { channelId })).filter(
      (s) =>
        (args.site === undefined || s.siteId.toLowerCase() === args.site.toLowerCase()) &&
        (args.id === undefined || s.id === args.id),
    );
    const isAdmin = targets.some((s) => s.createdBy !== ctx.userId) ? (await ctx.role()) === 'admin' : false;
    const removed: Subscription[] = [];
    const refused: Subscription[] = [];
    for (const s of targets) {
      if (s.createdBy === ctx.userId || isAdmin) {
        await subs.remove(ctx.workspace, { id: s.id });
        removed.push(s);
        await ctx.audit({
          action: 'watch.remove',
          detail: `removed ${s.id} in ${channelId}`,
          result: 'ok',
          siteId: s.siteId,
        });
      } else {
        refused.push(s);
        await ctx.audit({
          action: 'watch.remove',
          detail: `refused: ${s.id} in ${channelId} was created by ${s.createdBy}`,
          result: 'refused',
          siteId: s.siteId,
        });
      }
    }
    await ctx.respond(
      unwatchedMessage(removed, refused, refused.length ? await ctx.admins() : '', channelId),
    );
  },
});

/** This file's commands, in help order. */
export const commands = list.done();
