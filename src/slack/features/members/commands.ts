/** `/drm members [page:]` (admin: list with per-member buttons) and `/drm members add <email> [group]`. */
import { addMember, listMembers } from '../../../ops/service/index.js';
import { cardMetaOf } from '../../kit/blocks/cards.js';
import { option, optional, required, values } from '../../kit/commands/parse.js';
import { commandList } from '../../kit/commands/registry.js';
import type { CommandContext } from '../../kit/context/context.js';
import { audited } from '../../kit/context/support.js';
import { MEMBERS_PAGE_SIZE, memberAddedMessage, membersMessage } from './render.js';

const list = commandList();

/** Fetch one page of sub-members and answer (replacing the list for buttons). */
export async function showMembers(
  ctx: CommandContext,
  page: number,
  opts: { replace?: boolean; banner?: string } = {},
): Promise<void> {
  const c = await ctx.clients();
  const [result, tz] = await Promise.all([
    listMembers(c.service(), { page, pageSize: MEMBERS_PAGE_SIZE }),
    ctx.timeZone(),
  ]);
  await ctx.respond(
    membersMessage(result, {
      workspace: ctx.workspace,
      ...cardMetaOf(ctx, tz),
      shared: ctx.share && !opts.replace,
      ...(opts.banner ? { banner: opts.banner } : {}),
    }),
    opts.replace ? { replaceOriginal: true, share: false } : {},
  );
}

list.add({
  command: '/drm',
  path: ['members'],
  aliases: ['member'],
  args: { page: option(values.int(1, 10_000), { hint: '<page>', description: 'Page number (default 1).' }) },
  role: 'admin',
  summary: 'List sub-members with status and group; reset passwords, activate, change groups',
  examples: ['members', 'members page:2'],
  async handler(ctx, args) {
    await showMembers(ctx, args.page ?? 1);
  },
});

list.add({
  command: '/drm',
  path: ['members', 'add'],
  args: {
    email: required(values.text(254), {
      hint: '<email>',
      description: 'The new member\u2019s e-mail address.',
    }),
    group: optional(values.oneOf(['biz', 'ts', 'clients']), {
      hint: 'biz|ts|clients',
      description: "The group (default: the service's default).",
    }),
  },
  role: 'admin',
  summary: 'Add a sub-member to the service console',
  examples: ['members add ana@example.com ts'],
  async handler(ctx, args) {
    const c = await ctx.clients();
    const added = await audited(
      ctx,
      'members.add',
      `add ${args.email}${args.group ? ` to ${args.group}` : ''}`,
      undefined,
      () => addMember(c.service(), args.email, args.group),
    );
    const tz = await ctx.timeZone();
    await ctx.respond(memberAddedMessage(added, cardMetaOf(ctx, tz)));
  },
});

/** This file's commands, in help order. */
export const commands = list.done();
