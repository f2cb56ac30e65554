/**
 * The daily digest, the user side (`/dwm digest ...`):
 *
 *   /dwm digest daily HH:MM [zone]   scheduleDigest (zone: IANA name; default the user's Slack zone)
 *   /dwm digest now                  digestNow (posted at once through the notices outbox)
 *   /dwm digest off                  stopDigest
 *   /dwm digest                      showDigest
 *
 * One schedule per channel. Rules: a member schedules a channel they are in; changing or stopping
 * a schedule someone else set takes an admin. Every change is audited. The runtime side is
 * src/notices/digest.ts (due times, composition) and src/notices/notifier.ts (delivery).
 */
import { ValidationError } from '../api/errors.js';
import {
  DigestSchedules,
  digestScheduleId,
  nextOccurrence,
  normaliseTime,
} from '../notices/digest-schedules.js';
import { NoticeOutbox, newNotice, uniqueSuffix } from '../notices/outbox.js';
import type { DigestSchedule } from '../notices/types.js';
import type { WorkspaceKey } from '../store/types.js';
import { isIanaTimeZone, knownZone } from '../time.js';
import { checkLimit, DEFAULT_WORKSPACE_LIMITS } from '../watch/limits.js';
import { type Actor, mayManage, NotifyRefusedError, refuseUnlessInChannel } from './alerts.js';
import { type AuditMirror, audit } from './audit.js';
import { opsEndpoint } from './service/common.js';
import type { OpsDeps } from './workspace.js';

export interface ScheduleDigestInput {
  channelId: string;
  actor: Actor;
  /** HH:MM (24 h). */
  time: string;
  /** IANA zone; default `userZone`. */
  zone?: string;
  /** The invoking user's Slack zone (users.info tz); default UTC. */
  userZone?: string;
}

export interface DigestScheduleView {
  schedule: DigestSchedule;
  /** Next post: epoch ms and local day. */
  next: { at: number; day: string };
}

export interface ScheduleDigestResult extends DigestScheduleView {
  status: 'created' | 'updated' | 'unchanged';
  previous?: { time: string; zone: string };
}

/** A member (not an admin) changing or stopping a schedule someone else set: audited as refused, then refused. */
async function refuseUnlessTheirs(
  deps: OpsDeps,
  ws: WorkspaceKey,
  mirror: AuditMirror | undefined,
  action: 'digest.schedule' | 'digest.off',
  actor: Actor,
  owner: string,
  words: { detail: string; message: string },
): Promise<void> {
  if (mayManage({ createdBy: owner }, actor)) return;
  await audit(deps, ws, { userId: actor.userId, action, detail: words.detail, result: 'refused' }, mirror);
  throw new NotifyRefusedError(opsEndpoint(action), 'notYours', 'schedule', words.message, owner);
}

/** Schedule (or move) the channel's daily digest. A paused schedule is resumed by scheduling again. */
export async function scheduleDigest(
  deps: OpsDeps,
  ws: WorkspaceKey,
  input: ScheduleDigestInput,
  mirror?: AuditMirror,
): Promise<ScheduleDigestResult> {
  const endpoint = opsEndpoint('digest.schedule');
  if (!input.channelId)
    throw new ValidationError(endpoint, [
      { field: 'channel', message: 'Run the command in the channel that should get the digest.' },
    ]);
  refuseUnlessInChannel(endpoint, input.actor, 'schedule a digest');
  const time = normaliseTime(input.time);
  if (!time)
    throw new ValidationError(endpoint, [{ field: 'time', message: 'Use 24-hour HH:MM, like 09:00.' }]);
  const zone = input.zone ?? knownZone(input.userZone);
  if (!isIanaTimeZone(zone)) {
    throw new ValidationError(endpoint, [
      {
        field: 'zone',
        message: `"${zone.slice(0, 40)}" is not a time zone: use an IANA name like Europe/Berlin.`,
      },
    ]);
  }
  const schedules = new DigestSchedules(deps.store);
  const existing = await schedules.get(ws, input.channelId);
  const now = deps.now();
  if (existing && existing.time === time && existing.zone === zone && !existing.paused) {
    return { status: 'unchanged', schedule: existing, next: nextOccurrence(time, zone, now) };
  }
  if (existing) {
    await refuseUnlessTheirs(deps, ws, mirror, 'digest.schedule', input.actor, existing.createdBy, {
      detail: `refused: change of the ${input.channelId} digest set by ${existing.createdBy}`,
      message: `This channel's digest (daily ${existing.time} ${existing.zone}) was scheduled by another member; only an admin can change it.`,
    });
  }
  if (!existing) {
    const limit = deps.config.workspaceLimits?.digests ?? DEFAULT_WORKSPACE_LIMITS.digests;
    checkLimit('digests', (await schedules.list(ws)).length, limit);
  }
  const nowIso = new Date(now).toISOString();
  const schedule: DigestSchedule = existing
    ? (() => {
        const { paused: _p, ...rest } = existing;
        // updatedAt moves the "first due" point: a time moved to earlier today is not posted
        // again today if today's digest already went out (lastDay), nor posted late for today.
        return { ...rest, time, zone, updatedAt: nowIso, updatedBy: input.actor.userId };
      })()
    : {
        id: digestScheduleId(input.channelId),
        workspace: ws,
        channelId: input.channelId,
        time,
        zone,
        createdBy: input.actor.userId,
        createdAt: nowIso,
      };
  await schedules.put(ws, schedule);
  await audit(
    deps,
    ws,
    {
      userId: input.actor.userId,
      action: 'digest.schedule',
      detail: `${existing ? 'moved' : 'scheduled'} the ${input.channelId} digest: daily ${time} ${zone}`,
      result: 'ok',
    },
    mirror,
  );
  return {
    status: existing ? 'updated' : 'created',
    schedule,
    next: nextOccurrence(time, zone, now),
    ...(existing ? { previous: { time: existing.time, zone: existing.zone } } : {}),
  };
}

/** The channel's schedule and next post, or undefined. */
export async function showDigest(
  deps: Pick<OpsDeps, 'store' | 'now'>,
  ws: WorkspaceKey,
  channelId: string,
): Promise<DigestScheduleView | undefined> {
  const s = await new DigestSchedules(deps.store).get(ws, channelId);
  if (!s) return undefined;
  return { schedule: s, next: nextOccurrence(s.time, s.zone, deps.now()) };
}

/** Stop the channel's digest; returns the removed schedule (undefined when there was none). */
export async function stopDigest(
  deps: OpsDeps,
  ws: WorkspaceKey,
  input: { channelId: string; actor: Actor },
  mirror?: AuditMirror,
): Promise<DigestSchedule | undefined> {
  const schedules = new DigestSchedules(deps.store);
  const existing = await schedules.get(ws, input.channelId);
  if (!existing) return undefined;
  await refuseUnlessTheirs(deps, ws, mirror, 'digest.off', input.actor, existing.createdBy, {
    detail: `refused: stop of the ${input.channelId} digest set by ${existing.createdBy}`,
    message: "This channel's digest was scheduled by another member; only an admin can stop it.",
  });
  await schedules.remove(ws, input.channelId);
  // A scheduled digest already queued (or deferred after a Slack error) would still post once
  // after "off": discard it. A digest mid-post is not stopped here; the delivery checks the
  // schedule again before posting (src/notices/digest.ts). A `/dwm digest now` asked for
  // explicitly (key `…:now-…`) is kept.
  const outbox = new NoticeOutbox(deps.store);
  const prefix = `digest:${input.channelId}:`;
  for (const key of await outbox.entries.list(ws)) {
    if (key.startsWith(prefix) && !key.startsWith(`${prefix}now-`)) await outbox.discard(ws, key);
  }
  await audit(
    deps,
    ws,
    {
      userId: input.actor.userId,
      action: 'digest.off',
      detail: `stopped the ${input.channelId} digest (was daily ${existing.time} ${existing.zone})`,
      result: 'ok',
    },
    mirror,
  );
  return existing;
}

/**
 * Post the digest now (the last 24 h). One at a time per channel: while one is being composed or
 * posted, another is refused (each reads every site's jobs, recipients and licenses).
 * `kick` asks the runtime to deliver at once (Notifier.kick); the command answers right away.
 */
export async function digestNow(
  deps: OpsDeps,
  ws: WorkspaceKey,
  input: { channelId: string; actor: Actor; zone?: string; kick?: (ws: string) => void },
  mirror?: AuditMirror,
): Promise<{ key: string }> {
  const endpoint = opsEndpoint('digest.now');
  refuseUnlessInChannel(endpoint, input.actor, 'schedule a digest');
  const zone = knownZone(input.zone);
  const outbox = new NoticeOutbox(deps.store);
  const prefix = `digest:${input.channelId}:now-`;
  const pending = (await outbox.entries.list(ws)).filter((id) => id.startsWith(prefix));
  if (pending.length > 0) {
    throw new NotifyRefusedError(
      endpoint,
      'alreadyRunning',
      'digest',
      'A digest for this channel is already on its way: wait for it to appear, then try again if needed.',
    );
  }
  const key = `${prefix}${uniqueSuffix()}`;
  await outbox.add([
    newNotice(
      {
        key,
        workspace: ws,
        kind: 'digest',
        lane: input.channelId,
        payload: { channelId: input.channelId, zone, requestedBy: input.actor.userId },
      },
      deps.now(),
    ),
  ]);
  await audit(
    deps,
    ws,
    {
      userId: input.actor.userId,
      action: 'digest.now',
      detail: `asked for a digest in ${input.channelId}`,
      result: 'ok',
    },
    mirror,
  );
  input.kick?.(ws);
  return { key };
}
