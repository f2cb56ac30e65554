/**
 * `/dwm watch [site:<site id>] [status:completed,error] [content:prefix*] [mode:all|failures]`:
 * subscribe the channel to job notifications. With no options it opens a form (the modal's
 * submission is ./modal.ts).
 */
import { z } from 'zod';
import { loadCredentials, NotConfiguredError } from '../../../ops/workspace.js';
import { parseWatchArgs } from '../../../watch/index.js';
import { listOption, option } from '../../kit/commands/parse.js';
import { commandList } from '../../kit/commands/registry.js';
import { watchIssuesMessage, watchModal, watchPickView } from './render-subscriptions.js';
import { subscribeChannel } from './shared.js';

const list = commandList();

const word = z.string().min(1).max(300);

list.add({
  command: '/dwm',
  path: ['watch'],
  args: {
    site: option(word, { hint: '<site id>', description: 'Site id (default: the default site).' }),
    status: listOption(word, {
      hint: 'completed,error',
      description:
        'Job statuses that notify: ready, preprocessing, completed, error (default: every status).',
    }),
    content: option(word, {
      hint: 'prefix*',
      description: 'Content id, or a prefix ending in * (default: any content).',
    }),
    mode: option(word, {
      hint: 'all|failures',
      description: 'all: completions and failures are broadcast to the channel; failures: failures only.',
    }),
  },
  role: 'member',
  changesHome: true,
  // Run alone (or from Home) it opens a form: never queued behind other commands (trigger id: 3 s).
  opensModal: true,
  summary: 'Post job notifications in this channel (a card per job, updated as it moves)',
  description:
    'Each job gets one card in the channel, edited in place; progress and task failures go in its thread. A burst of finished jobs becomes one digest. Run it alone for a form.',
  examples: ['watch', 'watch site:AB12 status:completed,error', 'watch content:trailer-* mode:failures'],
  async handler(ctx, args) {
    const channelId = ctx.channelId;
    // No channel (the Home tab's "Watch a channel"): pick one first; its submission
    // (./home-pick.ts) checks the channel and opens the form below for it.
    if (!channelId) {
      await ctx.openView(watchPickView(ctx.workspace));
      return;
    }
    const given =
      args.site !== undefined ||
      args.status.length > 0 ||
      args.content !== undefined ||
      args.mode !== undefined;
    if (!given) {
      // The form: open it at once (trigger ids last 3 s); only a local store read happens first.
      const loaded = await loadCredentials(ctx.deps, ctx.workspace);
      if (!loaded?.credentials.watermarking) throw new NotConfiguredError(loaded ? 'watermarking' : 'all');
      const c = loaded.credentials;
      await ctx.openView(
        watchModal({
          workspace: ctx.workspace,
          channelId,
          siteIds: c.siteIds,
          defaultSiteId: c.defaultSiteId,
        }),
      );
      return;
    }
    const tokens: string[] = [];
    if (args.site !== undefined) tokens.push(`site:${args.site}`);
    if (args.status.length) tokens.push(`status:${args.status.join(',')}`);
    if (args.content !== undefined) tokens.push(`content:${args.content}`);
    if (args.mode !== undefined) tokens.push(`mode:${args.mode}`);
    const parsed = parseWatchArgs(tokens);
    if (parsed.issues.length) {
      await ctx.respond(watchIssuesMessage(parsed.issues));
      return;
    }
    const r = await subscribeChannel(ctx, channelId, parsed.siteId, parsed.filters);
    await ctx.respond(r.message);
  },
});

/** This file's commands, in help order. */
export const commands = list.done();
