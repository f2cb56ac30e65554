/**
 * `/drm alerts` (list), `/drm alerts watch [site:<site id>] [ratio:PCT] [min:N] [window:MIN]` (subscribe
 * this channel; without thresholds a form, ./modal.ts), `/drm alerts stop [site:ID]`.
 *
 * Rules (the ops enforce them, src/ops/alerts.ts): a member subscribes a channel they are in (a
 * slash command comes only from such a channel); changing thresholds someone else set, or stopping
 * their alerts, takes an admin. Every change is audited by the ops (mirrored to the audit channel).
 */
import { z } from 'zod';
import { ValidationError } from '../../../api/errors.js';
import {
  alertFormValues,
  listAlerts,
  NotifyRefusedError,
  needsForm,
  parseAlertArgs,
  stopAlerts,
  subscribeAlerts,
} from '../../../ops/alerts.js';
import { opsEndpoint } from '../../../ops/service/common.js';
import type { Message } from '../../kit/blocks/blocks.js';
import { option } from '../../kit/commands/parse.js';
import { commandList } from '../../kit/commands/registry.js';
import { actorOf, botCanPost } from '../../kit/context/channels/access.js';
import { auditMirrorOf } from '../../kit/context/channels/audit-mirror.js';
import { inviteMessage, refusedMessage } from '../../kit/context/channels/replies.js';
import type { CommandContext } from '../../kit/context/context.js';
import { notifyKicker } from '../../kit/runtime/notify-kick.js';
import { siteOption, siteOptionWith } from '../../shared/svc/support.js';
import { alertsListMessage, alertsModal, stoppedMessage, subscribedMessage } from './render.js';

const list = commandList();

const value = z.string().min(1).max(40);

/** The `alerts watch` options as the ops' tokens (one parser for the command and the form). */
export function watchTokens(a: {
  site?: string | undefined;
  ratio?: string | undefined;
  min?: string | undefined;
  window?: string | undefined;
}): string[] {
  const t: string[] = [];
  if (a.site !== undefined) t.push(`site:${a.site}`);
  if (a.ratio !== undefined) t.push(`ratio:${a.ratio}`);
  if (a.min !== undefined) t.push(`min:${a.min}`);
  if (a.window !== undefined) t.push(`window:${a.window}`);
  return t;
}

/**
 * Subscribe `channelId` (command and form): the bot must be able to post there, then the ops
 * decide (membership, ownership). A refusal is answered as such, not as an error.
 */
export async function subscribe(
  ctx: CommandContext,
  channelId: string,
  args: ReturnType<typeof parseAlertArgs>['args'],
  inChannel: boolean,
): Promise<Message> {
  const ability = await botCanPost(ctx, channelId);
  if (ability !== 'ok') return inviteMessage(channelId, ability, '/drm alerts watch', 'alerts', 'them');
  try {
    const r = await subscribeAlerts(
      ctx.deps,
      ctx.workspace,
      { channelId, actor: await actorOf(ctx, inChannel), ...args },
      auditMirrorOf(ctx),
    );
    return subscribedMessage(r, ctx.userId);
  } catch (e) {
    if (e instanceof NotifyRefusedError) {
      return refusedMessage(
        "Couldn't change the license-failure alerts",
        e.issues[0]?.message ?? '',
        e.owner,
        await ctx.admins(),
      );
    }
    throw e;
  }
}

list.add({
  command: '/drm',
  path: ['alerts'],
  aliases: ['alert'],
  args: {},
  role: 'member',
  summary: "List this channel's license-failure alerts and their last numbers",
  description:
    'Shows each site this channel gets alerts for, its thresholds, who set it up, whether it is failing now and the last check.',
  examples: ['alerts'],
  async handler(ctx) {
    const channelId = ctx.channelId ?? '';
    const [items, zone] = await Promise.all([listAlerts(ctx.deps, ctx.workspace, channelId), ctx.timeZone()]);
    await ctx.respond(alertsListMessage(channelId, items, zone));
  },
});

list.add({
  command: '/drm',
  path: ['alerts', 'watch'],
  args: {
    site: siteOption,
    ratio: option(value, {
      hint: 'PCT',
      description: 'Fail ratio that alerts, in percent (default 20%).',
    }),
    min: option(value, {
      hint: 'N',
      description: 'Fewest license requests in the window before the ratio counts (default 20).',
    }),
    window: option(value, { hint: 'MIN', description: 'Window in minutes (default 15).' }),
  },
  role: 'member',
  changesHome: true,
  // Without thresholds it opens a form: run at the ack, never behind the handler queue.
  opensModal: true,
  summary: 'Alert this channel when license requests of a site start failing',
  description:
    'One alert when the fail ratio of the window reaches the threshold (with the top error codes, content ids and devices); it is updated while the spike lasts and a thread reply says when it is over. Its buttons list the window’s failed licenses (admins), mute it for an hour or stop it (whoever set it up, or an admin). Without thresholds a form opens. Changing thresholds someone else set takes an admin.',
  examples: ['alerts watch', 'alerts watch site:DEMO ratio:20% min:20 window:15'],
  async handler(ctx, args) {
    const channelId = ctx.channelId;
    const endpoint = opsEndpoint('alerts.watch');
    if (!channelId)
      throw new ValidationError(endpoint, [
        { field: 'channel', message: 'Run /drm alerts watch in the channel to alert.' },
      ]);
    const parsed = parseAlertArgs(watchTokens(args));
    if (parsed.issues.length > 0) throw new ValidationError(endpoint, parsed.issues);
    if (needsForm(parsed.args)) {
      // A local store read only, then the form (the trigger id lasts 3 s).
      const v = await alertFormValues(ctx.deps, ctx.workspace, channelId, parsed.args.siteId);
      await ctx.openView(alertsModal({ workspace: ctx.workspace, channelId, ...v }));
      return;
    }
    await ctx.respond(await subscribe(ctx, channelId, parsed.args, true));
  },
});

list.add({
  command: '/drm',
  path: ['alerts', 'stop'],
  args: {
    site: siteOptionWith('Only this site (default: every site of this channel).'),
  },
  role: 'member',
  changesHome: true,
  summary: "Stop this channel's license-failure alerts (one site with site:)",
  description: 'Removes the alerts you set up here; an admin can remove anyone’s.',
  examples: ['alerts stop', 'alerts stop site:DEMO'],
  async handler(ctx, args) {
    const channelId = ctx.channelId ?? '';
    const r = await stopAlerts(
      ctx.deps,
      ctx.workspace,
      {
        channelId,
        actor: await actorOf(ctx, true),
        ...(args.site !== undefined ? { siteId: args.site } : {}),
        // An open alert's final "stopped" update is delivered at once.
        kick: notifyKicker(ctx.deps),
      },
      auditMirrorOf(ctx),
    );
    await ctx.respond(stoppedMessage(channelId, r, await ctx.admins()));
  },
});

/** This file's commands, in help order. */
export const commands = list.done();
