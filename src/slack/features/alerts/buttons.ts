/**
 * The buttons of a license alert:
 * - Stop: stops that channel's alerts for the alert's site, exactly like `/drm alerts stop site:…`;
 * - Mute 1 h: the alert is neither posted again nor updated for an hour, then resumes by itself.
 * Both are open to members at the kit (the alert is in a channel they read) and the op decides
 * with the one check for both (mayManageAlert: the alert's creator or an admin), telling anyone
 * else who can; both are audited by the op.
 */
import { z } from 'zod';
import { muteAlert, stopAlerts } from '../../../ops/alerts.js';
import { actorOf } from '../../kit/context/channels/access.js';
import { auditMirrorOf } from '../../kit/context/channels/audit-mirror.js';
import type { CommandContext } from '../../kit/context/context.js';
import { button } from '../../kit/interactions/registry.js';
import { notifyKicker } from '../../kit/runtime/notify-kick.js';
import { ALERT_MUTE_ACTION, ALERT_STOP_ACTION, mutedMessage, stoppedMessage } from './render.js';

export const alertStopValue = z.object({
  w: z.string().min(1).max(64),
  c: z.string().regex(/^[CGD][A-Z0-9]{2,30}$/),
  s: z.string().regex(/^[A-Za-z0-9]{1,16}$/),
});

/** The alert a button stands for, and who clicked (the op decides: creator or admin). */
async function alertOf(ctx: CommandContext, v: z.infer<typeof alertStopValue>) {
  return { channelId: v.c, actor: await actorOf(ctx, true), siteId: v.s, kick: notifyKicker(ctx.deps) };
}

export const alertStopButton = button({
  name: 'alerts.stop',
  command: '/drm',
  actionId: ALERT_STOP_ACTION,
  value: alertStopValue,
  // The op checks "creator or admin" (mayManageAlert).
  role: 'member',
  changesHome: true,
  failure: "Couldn't stop the alerts",
  async run(ctx, v) {
    const r = await stopAlerts(ctx.deps, ctx.workspace, await alertOf(ctx, v), auditMirrorOf(ctx));
    // Ephemeral to the one who clicked: the alert itself turns into its "stopped" form.
    await ctx.respond(stoppedMessage(v.c, r, await ctx.admins()));
  },
});

export const alertMuteButton = button({
  name: 'alerts.mute',
  command: '/drm',
  actionId: ALERT_MUTE_ACTION,
  value: alertStopValue,
  // The op checks "creator or admin" (mayManageAlert), as for Stop.
  role: 'member',
  changesHome: true,
  failure: "Couldn't mute the alert",
  async run(ctx, v) {
    const r = await muteAlert(ctx.deps, ctx.workspace, await alertOf(ctx, v), auditMirrorOf(ctx));
    await ctx.respond(mutedMessage(v.c, v.s, r, await ctx.admins(), await ctx.timeZone()));
  },
});
