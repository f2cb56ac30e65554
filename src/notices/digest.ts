/**
 * The daily digest: one post a day per scheduled channel, at `HH:MM` in the schedule's IANA zone.
 *
 * Exactly once per day, across replicas and restarts:
 * - The occurrence's notice key is `digest:<channel>:<local day>`. Scheduling adds it to the
 *   notices outbox (which skips a key that is live or tombstoned), THEN records the day as the
 *   schedule's `lastDay`. Two replicas scheduling at once write the same key (one entry); a crash
 *   in between re-adds the same key (skipped).
 * - Delivery composes the digest once (saved in the entry before posting, so a retry posts the
 *   same content) and posts it as one step under the workspace's delivery lease (see
 *   notify-outbox.ts for the crash-between-post-and-record recovery).
 * Missed days: when the bot was not running at the scheduled time, the latest missed occurrence
 * is posted as soon as it runs again, ONCE, with a note saying when it was due; earlier days that
 * were missed too are named in that note (never posted one after another, never silently
 * skipped). The note appears when the post is more than `lateNoteAfterMs` (default 10 min) late.
 *
 * Here: an occurrence as a notice (its payload, key and late note, handed to the outbox by
 * scheduleDigests) and the outbox handler that composes and posts it. The schedules and their
 * times are in digest-schedules.ts, the gathering of the figures in digest-compose.ts.
 */
import { z } from 'zod';
import type { Logger } from '../log.js';
import { type DigestSchedules, digestScheduleId, dueDigest } from './digest-schedules.js';
import {
  type DeliverResult,
  type NoticeEntry,
  type NoticeHandler,
  type NoticeOutbox,
  newNotice,
} from './outbox.js';
import type { Digest, NotifyEvent } from './types.js';

export interface DigestPayload {
  channelId: string;
  zone: string;
  scheduledFor?: number;
  day?: string;
  late?: boolean;
  missedDays?: string[];
  missedMore?: number;
  /** A digest asked for now (not scheduled): who asked. */
  requestedBy?: string;
  /** Filled once, before the post (a retry posts the same content). */
  digest?: Digest;
}

export function digestKey(channelId: string, day: string): string {
  return `digest:${channelId}:${day}`;
}

export function lateNote(p: DigestPayload): string | undefined {
  if (!p.late || p.scheduledFor === undefined) return undefined;
  const at = new Date(p.scheduledFor).toISOString().replace('T', ' ').slice(0, 16);
  return `This digest was due at ${at} UTC and is posted late: the bot was not running at that time.`;
}

/** Hand every due occurrence of a workspace to the outbox; returns the keys added. */
export async function scheduleDigests(input: {
  workspace: string;
  schedules: DigestSchedules;
  outbox: NoticeOutbox;
  now: () => number;
  lateNoteAfterMs?: number;
}): Promise<string[]> {
  const ws = input.workspace;
  const added: string[] = [];
  for (const s of await input.schedules.list(ws)) {
    const now = input.now();
    const due = dueDigest(s, now, input.lateNoteAfterMs);
    if (!due) continue;
    const payload: DigestPayload = {
      channelId: s.channelId,
      zone: s.zone,
      scheduledFor: due.at,
      day: due.day,
      // Late only when THIS occurrence is posted late: a digest on time after missed days is not
      // late (the missed days are named separately, see `missedDays`).
      late: due.late,
      ...(due.missedDays.length > 0 ? { missedDays: due.missedDays } : {}),
      ...(due.missedMore > 0 ? { missedMore: due.missedMore } : {}),
    };
    const key = digestKey(s.channelId, due.day);
    const n = await input.outbox.add([
      newNotice({ key, workspace: ws, kind: 'digest', lane: s.channelId, payload }, now),
    ]);
    if (n > 0) added.push(key);
    await input.schedules.markDay(ws, s.id, due.day);
  }
  return added;
}

// ---------------------------------------------------------------------------------------------
// Delivery
// ---------------------------------------------------------------------------------------------

export interface DigestHandlerDeps {
  schedules: DigestSchedules;
  /** Build the digest's content for a workspace (reads the service; see composeDigest). */
  compose: (ws: string, p: DigestPayload, now: number) => Promise<Digest>;
  emit: (e: NotifyEvent) => void;
  logger?: Logger;
}

const digestPayloadSchema = z
  .object({ channelId: z.string().min(1), zone: z.string().min(1), digest: z.unknown().optional() })
  .passthrough();

export function digestHandler(d: DigestHandlerDeps): NoticeHandler {
  return {
    resumeStep: { do: 'digest-daily-again' },
    async onPermanent(entry: NoticeEntry, code: string, message: string) {
      const p = entry.payload as DigestPayload;
      const id = digestScheduleId(p.channelId);
      const paused = await d.schedules.pause(entry.workspace, id, {
        reason: message,
        code,
        at: new Date().toISOString(),
      });
      if (paused?.paused?.code === code) {
        d.emit({
          type: 'notify-paused',
          workspace: entry.workspace,
          feature: 'digest',
          channelId: p.channelId,
          createdBy: paused.createdBy,
          code,
          message,
        });
      }
    },
    async deliver(entry, ctx): Promise<DeliverResult> {
      const p = digestPayloadSchema.parse(entry.payload) as unknown as DigestPayload;
      // A scheduled digest whose schedule was stopped (the digest turned off) while it waited is not
      // posted (checked before composing and again before the post; a post already sent stays).
      const stopped = async () =>
        p.day !== undefined &&
        !entry.steps.post &&
        !entry.sending &&
        !(await d.schedules.get(entry.workspace, p.channelId));
      if (await stopped()) return { done: true };
      let digest = p.digest;
      if (!digest && !entry.steps.post) {
        digest = await d.compose(entry.workspace, p, ctx.now());
        if (p.scheduledFor !== undefined) digest.scheduledFor = p.scheduledFor;
        if (p.day) digest.day = p.day;
        const note = lateNote(p);
        if (note) digest.lateNote = note;
        if (p.missedDays && p.missedDays.length > 0) {
          digest.missedDays = p.missedDays;
          const more = p.missedMore ? ` and ${p.missedMore} earlier day(s)` : '';
          // Only a late digest carries a late note; an on-time one names the missed days alone
          // (`missedDays`, rendered as their own line).
          if (note)
            digest.lateNote = `${note} The digests of ${p.missedDays.join(', ')}${more} were not posted: the bot was not running then.`;
        }
        entry.payload = { ...p, digest };
        await ctx.outbox.save(entry);
      }
      const body = digest as Digest;
      if (await stopped()) return { done: true };
      const main = await ctx.postOnce('post', { channel: p.channelId }, (key) =>
        ctx.ports.postDigest(p.channelId, body, { key }),
      );
      return { done: true, main };
    },
  };
}
