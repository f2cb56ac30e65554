/**
 * `/dwm debug` (admin): ids, modes, store backend, poll leases and last poll per site, pending
 * outbox and versions, for this workspace. Ephemeral, no secrets.
 *
 * The watch runtime (src/slack/watch-runtime.ts, another feature) is looked up at run time so this
 * command works with or without it: when that module exports `activeWatchRuntimes()` (or `watchRuntime()`) returning
 * runtimes with `watcher.status()` (or `status()`), this replica's own view is added.
 */
import { type DebugInfo, gatherDebug, type RuntimeStatus } from '../../../ops/debug.js';
import type { CommandContext } from '../../context.js';
import { registry } from '../../registry.js';
import { debugMessage } from '../../render/home/debug.js';

const RUNTIME_MODULE = '../../watch-runtime.js';

type StatusSource = {
  status?: () => Promise<RuntimeStatus>;
  watcher?: { status?: () => Promise<RuntimeStatus> };
};

function statusOf(rt: unknown): (() => Promise<RuntimeStatus>) | undefined {
  const r = rt as StatusSource | undefined;
  if (r && typeof r.status === 'function') return () => r.status!();
  if (r?.watcher && typeof r.watcher.status === 'function') return () => r.watcher!.status!();
  return undefined;
}

/** This replica's watcher status, when a watch runtime is loaded and running. */
export async function runtimeStatus(): Promise<RuntimeStatus | undefined> {
  try {
    const mod = (await import(RUNTIME_MODULE)) as Record<string, unknown>;
    for (const name of ['activeWatchRuntimes', 'watchRuntimes', 'watchRuntime', 'getWatchRuntime']) {
      const fn = mod[name];
      if (typeof fn !== 'function') continue;
      const got = (fn as () => unknown)();
      for (const rt of Array.isArray(got) ? got : [got]) {
        const st = statusOf(rt);
        if (st) return await st();
      }
    }
  } catch {
    // No watch runtime in this build or it is not started: the store view is enough.
  }
  return undefined;
}

export async function debugInfo(ctx: CommandContext): Promise<DebugInfo> {
  const runtime = await runtimeStatus();
  const c = ctx.deps.config.slack;
  let botId = c.botId;
  let botUserId = c.botUserId;
  if (ctx.deps.config.distribution === 'oauth') {
    // The installation knows the bot of this workspace (its token is not read here).
    const inst = (await ctx.deps.store.installations.get(ctx.workspace).catch(() => undefined)) as
      | { bot?: { id?: string; userId?: string } }
      | undefined;
    botId = inst?.bot?.id ?? botId;
    botUserId = inst?.bot?.userId ?? botUserId;
  }
  return gatherDebug(ctx.deps, {
    workspace: ctx.workspace,
    ...(ctx.teamId ? { teamId: ctx.teamId } : {}),
    ...(ctx.enterpriseId ? { enterpriseId: ctx.enterpriseId } : {}),
    ...(botId ? { botId } : {}),
    ...(botUserId ? { botUserId } : {}),
    ...(runtime ? { runtime } : {}),
  });
}

registry.add({
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
