/**
 * `/dwm debug` (admin): ids, modes, store backend, poll leases and last poll per site, pending
 * outbox and versions, for this workspace. Ephemeral, no secrets.
 *
 * When the watch runtime runs in this process, this replica's own view (running, leases held,
 * last poll per site) is added to the store's view, which is right whichever replica polls.
 */
import { type DebugInfo, gatherDebug, type RuntimeStatus } from '../../../ops/debug.js';
import { commandList } from '../../kit/commands/registry.js';
import type { CommandContext } from '../../kit/context/context.js';
import { botIdsOf } from '../../kit/context/support.js';
import { watcherStatus } from '../../kit/runtime/hooks.js';
import { debugMessage } from './render.js';

const list = commandList();

/**
 * This replica's watcher status, when the watch runtime runs in this process (it registers the
 * snapshot through kit/runtime/hooks.ts; this feature does not import the runtime).
 */
export async function runtimeStatus(deps: CommandContext['deps']): Promise<RuntimeStatus | undefined> {
  return watcherStatus(deps);
}

export async function debugInfo(ctx: CommandContext): Promise<DebugInfo> {
  const runtime = await runtimeStatus(ctx.deps);
  return gatherDebug(ctx.deps, {
    workspace: ctx.workspace,
    ...(ctx.teamId ? { teamId: ctx.teamId } : {}),
    ...(ctx.enterpriseId ? { enterpriseId: ctx.enterpriseId } : {}),
    ...(await botIdsOf(ctx.deps, ctx.workspace)),
    ...(runtime ? { runtime } : {}),
  });
}

list.add({
  command: '/dwm',
  path: ['debug'],
  args: {},
  role: 'admin',
  summary: 'Show ids, modes, store, poll leases, last poll per site and pending notifications',
  description: 'For troubleshooting: what this deployment is doing for the workspace. Never shows a secret.',
  examples: ['debug'],
  async handler(ctx) {
    const [info, tz] = await Promise.all([debugInfo(ctx), ctx.timeZone()]);
    await ctx.respond(debugMessage(info, tz), { secret: true });
  },
});

/** This file's commands, in help order. */
export const commands = list.done();
