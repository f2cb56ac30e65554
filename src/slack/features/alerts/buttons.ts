/**
 * The buttons of a license alert:
 * - Stop: stops that channel's alerts for the alert's site, exactly like `/drm alerts stop site:…`;
 * - Mute 1 h: the alert is neither posted again nor updated for an hour, then resumes by itself.
 * Both are open to members at the kit (the alert is in a channel they read) and the op decides
 * with the one check for both (mayManage: the alert's creator or an admin), telling anyone
 * else who can; both are audited by the op.
 */
import { z } from 'zod';
import { type Actor, muteAlert, stopAlerts } from '../../../ops/alerts.js';
import type { AuditMirror } from '../../../ops/audit.js';
import type { AppDeps } from '../../deps.js';
import type { Message } from '../../kit/blocks/blocks.js';
import { actorOf } from '../../kit/context/channels/access.js';
import { auditMirrorOf } from '../../kit/context/channels/audit-mirror.js';
import type { CommandContext } from '../../kit/context/context.js';
import { button } from '../../kit/interactions/registry.js';
import { notifyKicker } from '../../kit/runtime/notify-kick.js';
import { workspaceTag } from '../../shared/svc/values.js';
import { ALERT_MUTE_ACTION, ALERT_STOP_ACTION, mutedMessage, stoppedMessage } from './render.js';

export const alertStopValue = z.object({
  w: workspaceTag,
  c: z.string().regex(/^[CGD][A-Z0-9]{2,30}$/),
  s: z.string().regex(/^[A-Za-z0-9]{1,16}$/),
});

type AlertValue = z.infer<typeof alertStopValue>;
type Alert = { channelId: string; actor: Actor; siteId: string; kick: (ws: string) => void };

/**
 * A button on an alert (open to members at the kit: the op checks "creator or admin",
 * mayManage, and audits): the op on the alert the value names, then the reply to the one
 * who clicked.
 */
function alertButton<R>(spec: {
  name: string;
  actionId: string;
  failure: string;
  op: (deps: AppDeps, ws: CommandContext['workspace'], alert: Alert, mirror: AuditMirror) => Promise<R>;
  reply: (ctx: CommandContext, v: AlertValue, r: R) => Promise<Message>;
}) {
  return button({
    name: spec.name,
    command: '/drm',
    actionId: spec.actionId,
    value: alertStopValue,
    role: 'member',
    changesHome: true,
    failure: spec.failure,
    async run(ctx, v) {
      const alert = {
        channelId: v.c,
        actor: await actorOf(ctx, true),
        siteId: v.s,
        kick: notifyKicker(ctx.deps),
      };
      const r = await spec.op(ctx.deps, ctx.workspace, alert, auditMirrorOf(ctx));
      await ctx.respond(await spec.reply(ctx, v, r));
    },
  });
}

export const alertStopButton = alertButton({
  name: 'alerts.stop',
  actionId: ALERT_STOP_ACTION,
  failure: "Couldn't stop the alerts",
  op: stopAlerts,
  // Ephemeral to the one who clicked: the alert itself turns into its "stopped" form.
  reply: async (ctx, v, r) => stoppedMessage(v.c, r, await ctx.admins()),
});

export const alertMuteButton = alertButton({
  name: 'alerts.mute',
  actionId: ALERT_MUTE_ACTION,
  failure: "Couldn't mute the alert",
  op: muteAlert,
  reply: async (ctx, v, r) => mutedMessage(v.c, v.s, r, await ctx.admins(), await ctx.timeZone()),
});
