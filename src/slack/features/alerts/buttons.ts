/**
 * The Stop button on a license alert: stops that channel's alerts for the alert's site, exactly
 * like `/drm alerts stop site:…` (the op lets the alert's creator or an admin do it and tells
 * anyone else who can), so nobody has to type the command.
 */
import { z } from 'zod';
import { stopAlerts } from '../../../ops/alerts.js';
import { auditMirrorOf } from '../../kit/audit-mirror.js';
import { actorOf } from '../../kit/channel-access.js';
import { button } from '../../kit/interactions.js';
import { notifyKicker } from '../../kit/notify-kick.js';
import { ALERT_STOP_ACTION, stoppedMessage } from './render.js';

export const alertStopValue = z.object({
  w: z.string().min(1).max(64),
  c: z.string().regex(/^[CGD][A-Z0-9]{2,30}$/),
  s: z.string().regex(/^[A-Za-z0-9]{1,16}$/),
});

export const alertStopButton = button({
  name: 'alerts.stop',
  command: '/drm',
  actionId: ALERT_STOP_ACTION,
  value: alertStopValue,
  changesHome: true,
  failure: "Couldn't stop the alerts",
  async run(ctx, v) {
    const r = await stopAlerts(
      ctx.deps,
      ctx.workspace,
      { channelId: v.c, actor: await actorOf(ctx, true), siteId: v.s, kick: notifyKicker(ctx.deps) },
      auditMirrorOf(ctx),
    );
    // Ephemeral to the one who clicked: the alert itself turns into its "stopped" form.
    await ctx.respond(stoppedMessage(v.c, r, await ctx.admins()));
  },
});
