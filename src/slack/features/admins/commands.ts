/**
 * `/dwm setup admins [add|remove|group]` and `/dwm setup audit-channel`: who counts as an admin
 * besides Slack's workspace admins/owners, and where the audit log is mirrored (admins only; not a
 * channel shared with another organisation unless an admin allowed it: kit/context/channels/access.ts).
 */

import { z } from 'zod';
import { configAdminIds } from '../../../config.js';
import { addAdmins, removeAdmins, setAdminGroup, setAuditChannel } from '../../../ops/admins.js';
import { type EraseUserResult, eraseUserData } from '../../../ops/erase-user.js';
import type { WorkspaceSettings } from '../../../store/types.js';
import { isChannelId, ParseError, required, rest } from '../../kit/commands/parse.js';
import { commandList } from '../../kit/commands/registry.js';
import { botCanPost } from '../../kit/context/channels/access.js';
import { sharedChannelMessage } from '../../kit/context/channels/replies.js';
import type { CommandContext } from '../../kit/context/context.js';
import { clearRoleCaches } from '../../kit/context/roles/slack-users.js';
import { audited } from '../../kit/context/support.js';
import { adminsMessage, erasedMessage } from './render.js';

const list = commandList();

const word = z.string().min(1).max(200);
const both = ['/dwm', '/drm'] as const;

/** The people a command acts on: one or more mentions, picked with the users picker. */
const people = (description: string) =>
  rest(word, { hint: '@user…', description, required: true, picker: 'users' });

/** A setting typed as a value or `none` (any case), which clears it. */
const unlessNone = (typed: string): string | undefined =>
  typed.toLowerCase() === 'none' ? undefined : typed;

/** The audit detail of a setting set or cleared. */
const setOrCleared = (id: string | undefined): string => (id ? `set to ${id}` : 'cleared');

async function show(ctx: CommandContext, settings: WorkspaceSettings, changed?: string): Promise<void> {
  const cfg = ctx.deps.config;
  await ctx.respond(
    adminsMessage({
      settings,
      envAdminIds: configAdminIds(cfg, ctx.workspace),
      ...(cfg.auditChannelId ? { envAuditChannelId: cfg.auditChannelId } : {}),
      ...(changed ? { changed } : {}),
    }),
  );
}

list.add({
  command: both,
  path: ['setup', 'admins'],
  args: {},
  role: 'admin',
  summary: 'Show who counts as an admin here and where the audit log is mirrored',
  examples: ['setup admins'],
  async handler(ctx) {
    await show(ctx, await ctx.deps.store.settings.get(ctx.workspace));
  },
});

list.add({
  command: both,
  path: ['setup', 'admins', 'add'],
  args: {
    users: people('People to make admins.'),
  },
  role: 'admin',
  summary: 'Make people admins of drm-chatops (besides Slack workspace admins)',
  examples: ['setup admins add @alex @sam'],
  async handler(ctx, args) {
    const next = await addAdmins(ctx.deps, ctx.workspace, args.users);
    clearRoleCaches(ctx.deps);
    await ctx.audit({ action: 'admins.add', detail: `added ${args.users.join(', ')}`, result: 'ok' });
    await show(ctx, next, `Added ${args.users.length} admin(s).`);
  },
});

list.add({
  command: both,
  path: ['setup', 'admins', 'remove'],
  args: {
    users: people('People to remove as admins.'),
  },
  role: 'admin',
  summary: 'Remove people added as admins (Slack workspace admins stay admins)',
  examples: ['setup admins remove @sam'],
  async handler(ctx, args) {
    const { settings, notAdmins } = await removeAdmins(ctx.deps, ctx.workspace, args.users);
    clearRoleCaches(ctx.deps);
    await ctx.audit({ action: 'admins.remove', detail: `removed ${args.users.join(', ')}`, result: 'ok' });
    const note = notAdmins.length ? ` ${notAdmins.length} of them were not on the list.` : '';
    await show(ctx, settings, `Removed ${args.users.length - notAdmins.length} admin(s).${note}`);
  },
});

list.add({
  command: both,
  path: ['setup', 'admins', 'group'],
  args: {
    group: required(word, { hint: '@group|none', description: 'A user group whose members are admins.' }),
  },
  // Block Kit has no user-group picker, and a typed "@group" is not turned into its id outside a
  // slash command: a missing group is answered with the usage.
  onMissing: 'error',
  role: 'admin',
  summary: 'Make a user group admins (or "none" to clear it)',
  examples: ['setup admins group @media-admins', 'setup admins group none'],
  async handler(ctx, args) {
    const id = unlessNone(args.group);
    const next = await setAdminGroup(ctx.deps, ctx.workspace, id);
    clearRoleCaches(ctx.deps);
    await ctx.audit({ action: 'admins.group', detail: setOrCleared(id), result: 'ok' });
    await show(ctx, next, id ? 'Admin user group set.' : 'Admin user group cleared.');
  },
});

list.add({
  command: both,
  path: ['setup', 'audit-channel'],
  args: {
    channel: required(word, {
      hint: '#channel|none',
      description: 'Where audit entries are mirrored.',
      picker: 'channel',
    }),
  },
  role: 'admin',
  summary: 'Mirror the audit log to a channel (or "none" to stop)',
  examples: ['setup audit-channel #media-audit', 'setup audit-channel none'],
  async handler(ctx, args) {
    const id = unlessNone(args.channel);
    // A channel as Slack links it (`#name` picked from the list arrives as its id): a name typed
    // as plain text cannot be checked or posted to.
    if (id && !isChannelId(id)) {
      throw new ParseError(
        `${id} is not a channel Slack linked: type # and pick the channel from the list (or give its id, like C0123ABCD), or none.`,
      );
    }
    // Audit lines name people, sites and what they did: not in a channel another organisation
    // reads, unless an admin allowed that channel (the kit's rule; checked again at each line).
    if (id && (await botCanPost(ctx, id)) === 'external') {
      await ctx.audit({
        action: 'audit.channel',
        detail: `refused ${id}: shared with another organisation`,
        result: 'refused',
      });
      await ctx.respond(sharedChannelMessage(id, 'mirror the audit log to that channel'));
      return;
    }
    const next = await setAuditChannel(ctx.deps, ctx.workspace, id);
    await ctx.audit({ action: 'audit.channel', detail: setOrCleared(id), result: 'ok' });
    await show(ctx, next, id ? 'The audit log is now mirrored to that channel.' : 'Audit mirroring stopped.');
  },
});

list.add({
  command: both,
  path: ['setup', 'erase-user'],
  args: {
    users: people('People whose data the bot erases here.'),
  },
  role: 'admin',
  summary: "Erase people's data here: watches, alerts and digests they created, their pending DMs",
  examples: ['setup erase-user @sam'],
  async handler(ctx, args) {
    const results: Array<{ userId: string; erased: EraseUserResult }> = [];
    for (const userId of [...new Set(args.users)]) {
      const erased = await audited(ctx, 'user.erase', `erased the data of user ${userId}`, undefined, () =>
        eraseUserData({ store: ctx.deps.store, now: ctx.deps.now }, ctx.workspace, userId),
      );
      results.push({ userId, erased });
    }
    await ctx.respond(erasedMessage(results));
  },
});

/** This file's commands, in help order. */
export const commands = list.done();
