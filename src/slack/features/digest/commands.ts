/**
 * `/dwm digest` (the schedule), `/dwm digest daily HH:MM [zone]` (schedule or move it; the zone
 * defaults to the invoking user's Slack zone, users.info tz), `/dwm digest now`, `/dwm digest off`.
 *
 * Rules (the ops enforce them, src/ops/digest.ts): a member schedules a channel they are in (a
 * slash command comes only from such a channel); moving or stopping a schedule someone else set
 * takes an admin. Changes are audited by the ops (mirrored to the audit channel).
 */
import { z } from 'zod';
import { ValidationError } from '../../../api/errors.js';
import { normaliseTime } from '../../../notices/digest-schedules.js';
import { NotifyRefusedError } from '../../../ops/alerts.js';
import { digestNow, scheduleDigest, showDigest, stopDigest } from '../../../ops/digest.js';
import { opsEndpoint } from '../../../ops/service/common.js';
import { isIanaTimeZone } from '../../../time.js';
import { message, section } from '../../kit/blocks/blocks.js';
import { optional, required } from '../../kit/commands/parse.js';
import { commandList } from '../../kit/commands/registry.js';
import { actorOf, botCanPost } from '../../kit/context/channels/access.js';
import { auditMirrorOf } from '../../kit/context/channels/audit-mirror.js';
import { inviteMessage, refusedMessage } from '../../kit/context/channels/replies.js';
import type { CommandContext } from '../../kit/context/context.js';
import { notifyKicker } from '../../kit/runtime/notify-kick.js';
import { digestNowMessage, scheduledMessage, scheduleMessage, stoppedMessage } from './render.js';

const list = commandList();

const time = z
  .string()
  .refine((s) => normaliseTime(s) !== undefined, { error: 'must be a 24-hour time like 09:00 or 17:30' });
const zone = z
  .string()
  .refine((s) => isIanaTimeZone(s), { error: 'must be an IANA time zone like Europe/Berlin or UTC' });

function channelOf(ctx: CommandContext, what: string): string {
  if (ctx.channelId) return ctx.channelId;
  throw new ValidationError(opsEndpoint('digest'), [
    { field: 'channel', message: `Run ${what} in the channel that should get the digest.` },
  ]);
}

async function refused(ctx: CommandContext, what: string, e: NotifyRefusedError) {
  if (e.reason === 'alreadyRunning') {
    return message(`${what}: a digest for this channel is already on its way.`, [
      section(`:hourglass_flowing_sand: *${what}*\n${e.issues[0]?.message ?? ''}`),
    ]);
  }
  return refusedMessage(
    what,
    e.issues[0]?.message ?? '',
    e.owner,
    await ctx.admins(),
    ' if you need it changed',
  );
}

/**
 * The channel of `command` when the bot can post there; otherwise the user is told how to invite
 * it (`retry`: the command to run again then) and undefined is returned.
 */
async function postableChannel(
  ctx: CommandContext,
  command: string,
  retry = command,
): Promise<string | undefined> {
  const channelId = channelOf(ctx, command);
  const ability = await botCanPost(ctx, channelId);
  if (ability === 'ok') return channelId;
  await ctx.respond(inviteMessage(channelId, ability, retry, 'the digest', 'it'));
  return undefined;
}

/** Runs a change of the schedule; a refusal of the op is answered in words under `what`. */
async function answeringRefusals(
  ctx: CommandContext,
  what: string,
  change: () => Promise<void>,
): Promise<void> {
  try {
    await change();
  } catch (e) {
    if (!(e instanceof NotifyRefusedError)) throw e;
    await ctx.respond(await refused(ctx, what, e));
  }
}

list.add({
  command: '/dwm',
  path: ['digest'],
  args: {},
  role: 'member',
  summary: "Show this channel's daily digest schedule",
  description:
    'The digest sums up the last 24 hours: jobs by status with the failed ones listed, recipients registered, license successes and failures per site, pending plan requests.',
  examples: ['digest'],
  async handler(ctx) {
    const channelId = channelOf(ctx, '/dwm digest');
    await ctx.respond(scheduleMessage(channelId, await showDigest(ctx.deps, ctx.workspace, channelId)));
  },
});

list.add({
  command: '/dwm',
  path: ['digest', 'daily'],
  args: {
    time: required(time, { hint: 'HH:MM', description: 'Time of day, 24-hour, like 09:00.' }),
    zone: optional(zone, {
      hint: 'zone',
      description: 'IANA time zone, like Europe/Berlin (default: your Slack time zone).',
    }),
  },
  role: 'member',
  changesHome: true,
  summary: 'Post a digest of the last 24 hours in this channel every day at HH:MM',
  description:
    'Posted within a minute of the time, once a day (also with several bot replicas); a day the bot was down is posted late once, with a note. Moving someone else’s schedule takes an admin.',
  examples: ['digest daily 09:00', 'digest daily 17:30 Europe/Berlin'],
  async handler(ctx, args) {
    const channelId = await postableChannel(ctx, '/dwm digest daily', `/dwm digest daily ${args.time}`);
    if (!channelId) return;
    await answeringRefusals(ctx, "Couldn't change the daily digest", async () => {
      const userZone = args.zone === undefined ? await ctx.timeZone() : undefined;
      const r = await scheduleDigest(
        ctx.deps,
        ctx.workspace,
        {
          channelId,
          actor: await actorOf(ctx, true),
          time: args.time,
          ...(args.zone !== undefined ? { zone: args.zone } : {}),
          ...(userZone ? { userZone } : {}),
        },
        auditMirrorOf(ctx),
      );
      await ctx.respond(scheduledMessage(r, ctx.userId));
    });
  },
});

list.add({
  command: '/dwm',
  path: ['digest', 'now'],
  args: {},
  role: 'member',
  summary: 'Post a digest of the last 24 hours in this channel now',
  examples: ['digest now'],
  async handler(ctx) {
    const channelId = await postableChannel(ctx, '/dwm digest now');
    if (!channelId) return;
    await answeringRefusals(ctx, "Couldn't post a digest now", async () => {
      const [actor, tz] = await Promise.all([actorOf(ctx, true), ctx.timeZone()]);
      await digestNow(
        ctx.deps,
        ctx.workspace,
        {
          channelId,
          actor,
          zone: tz,
          // The runtime delivers at once (without one running, its next pass does).
          kick: notifyKicker(ctx.deps),
        },
        auditMirrorOf(ctx),
      );
      await ctx.respond(digestNowMessage(channelId));
    });
  },
});

list.add({
  command: '/dwm',
  path: ['digest', 'off'],
  aliases: ['stop'],
  args: {},
  role: 'member',
  changesHome: true,
  summary: "Stop this channel's daily digest",
  description: 'Stopping a schedule someone else set takes an admin.',
  examples: ['digest off'],
  async handler(ctx) {
    const channelId = channelOf(ctx, '/dwm digest off');
    await answeringRefusals(ctx, "Couldn't stop the daily digest", async () => {
      const removed = await stopDigest(
        ctx.deps,
        ctx.workspace,
        { channelId, actor: await actorOf(ctx, true) },
        auditMirrorOf(ctx),
      );
      await ctx.respond(stoppedMessage(channelId, removed));
    });
  },
});

/** This file's commands, in help order. */
export const commands = list.done();
