/** `/drm audit [limit]`: recent audit entries (admins). */
import { recentAudit } from '../../../ops/audit.js';
import { optional, values } from '../../kit/commands/parse.js';
import { commandList } from '../../kit/commands/registry.js';
import { auditListMessage } from './render.js';

const list = commandList();

list.add({
  command: '/drm',
  path: ['audit'],
  args: {
    limit: optional(values.int(1, 100), {
      hint: '<1-100>',
      description: 'How many entries, newest first (default 20).',
    }),
  },
  role: 'admin',
  summary: 'List recent audited actions (who did what, when, result)',
  examples: ['audit', 'audit 50'],
  async handler(ctx, args) {
    const [entries, tz] = await Promise.all([
      recentAudit(ctx.deps, ctx.workspace, args.limit ?? 20),
      ctx.timeZone(),
    ]);
    await ctx.respond(auditListMessage(entries, tz));
  },
});

/** This file's commands, in help order. */
export const commands = list.done();
