/**
 * The digest schedules: one per channel (document `notify-digest`: `HH:MM` in an IANA zone, the
 * last local day handed to the outbox, paused when Slack refused the channel for good), the
 * check of a time, and the schedule's times: its occurrences in its zone, the one due
 * now with the days missed before it (dueDigest), the next one. The workspaces with schedules are
 * listed in the feature registry (registry.ts), the runtime's work list.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { AtomicDocRepo, Store, WorkspaceKey } from '../store/types.js';
import { dayIn, utcDay, zonedTimeToEpoch } from '../time.js';
import { FeatureRegistry } from './registry.js';
import type { DigestSchedule } from './types.js';

export const DIGEST_NS = 'notify-digest';
export const DAY_MS = 24 * 3600_000;
/** Missed days named in a late note at most (a longer outage says "and N more"). */
const MAX_MISSED_NAMED = 14;

export const TIME_RE = /^([01]?\d|2[0-3]):([0-5]\d)$/;

export const digestScheduleSchema = z.object({
  id: z.string().min(1),
  workspace: z.string().min(1),
  channelId: z.string().min(1),
  time: z.string().regex(TIME_RE),
  zone: z.string().min(1),
  createdBy: z.string(),
  createdAt: z.string(),
  updatedAt: z.string().optional(),
  updatedBy: z.string().optional(),
  lastDay: z.string().optional(),
  paused: z.object({ reason: z.string(), code: z.string(), at: z.string() }).optional(),
});

export function digestScheduleId(channelId: string): string {
  return `dgst_${createHash('sha256').update(channelId).digest('hex').slice(0, 16)}`;
}

/** "7:05" -> "07:05"; undefined when not a 24 h time. */
export function normaliseTime(input: string): string | undefined {
  const m = TIME_RE.exec(input.trim());
  if (!m) return undefined;
  return `${String(Number(m[1])).padStart(2, '0')}:${m[2]}`;
}

export class DigestSchedules {
  readonly docs: AtomicDocRepo<DigestSchedule>;
  private readonly registry: FeatureRegistry;

  constructor(store: Store) {
    this.docs = store.docs<DigestSchedule>(DIGEST_NS, digestScheduleSchema as never);
    this.registry = new FeatureRegistry(store);
  }

  async get(ws: WorkspaceKey, channelId: string): Promise<DigestSchedule | undefined> {
    return this.docs.get(ws, digestScheduleId(channelId));
  }

  async put(ws: WorkspaceKey, s: DigestSchedule): Promise<void> {
    await this.docs.put(ws, s.id, digestScheduleSchema.parse(s) as DigestSchedule);
    await this.registry.add('digest', ws);
  }

  async list(ws: WorkspaceKey): Promise<DigestSchedule[]> {
    const out: DigestSchedule[] = [];
    for (const id of await this.docs.list(ws)) {
      try {
        const s = await this.docs.get(ws, id);
        if (s) out.push(s);
      } catch {
        // unreadable: skipped
      }
    }
    return out;
  }

  async remove(ws: WorkspaceKey, channelId: string): Promise<boolean> {
    const id = digestScheduleId(channelId);
    const had = (await this.docs.get(ws, id)) !== undefined;
    await this.docs.delete(ws, id);
    return had;
  }

  /** Record that `day` was handed to the outbox (never moves back). */
  async markDay(ws: WorkspaceKey, id: string, day: string): Promise<void> {
    await this.docs.update(ws, id, (old) =>
      old && (!old.lastDay || old.lastDay < day) ? { ...old, lastDay: day } : old,
    );
  }

  async pause(ws: WorkspaceKey, id: string, paused: { reason: string; code: string; at: string }) {
    return this.docs.update(ws, id, (old) => (old && !old.paused ? { ...old, paused } : old));
  }

  async workspaces(): Promise<string[]> {
    return this.registry.workspaces('digest');
  }
}

/** The instant of `HH:MM` on local day `day` in `zone`. */
export function occurrenceAt(day: string, time: string, zone: string): number {
  return zonedTimeToEpoch(`${day}T${time}:00`, zone);
}

function prevDay(day: string): string {
  const d = new Date(`${day}T12:00:00Z`);
  return utcDay(d.getTime() - DAY_MS);
}

/** The latest occurrence at or before `now` (local day and instant). */
export function lastOccurrence(time: string, zone: string, now: number): { day: string; at: number } {
  let day = dayIn(now, zone);
  let at = occurrenceAt(day, time, zone);
  if (at > now) {
    day = prevDay(day);
    at = occurrenceAt(day, time, zone);
  }
  return { day, at };
}

/** The first occurrence after `now`. */
export function nextOccurrence(time: string, zone: string, now: number): { day: string; at: number } {
  const last = lastOccurrence(time, zone, now);
  const d = new Date(`${last.day}T12:00:00Z`);
  const day = utcDay(d.getTime() + DAY_MS);
  return { day, at: occurrenceAt(day, time, zone) };
}

export interface DueDigest {
  day: string;
  at: number;
  late: boolean;
  /** Earlier local days whose occurrence passed without a digest, oldest first. */
  missedDays: string[];
  missedMore: number;
}

/**
 * The occurrence due now for a schedule, if any (pure). An occurrence before the schedule was
 * created is never due (the first digest is the next HH:MM after scheduling).
 */
export function dueDigest(
  s: DigestSchedule,
  now: number,
  lateNoteAfterMs = 10 * 60_000,
): DueDigest | undefined {
  if (s.paused) return undefined;
  const createdMs = Date.parse(s.updatedAt ?? s.createdAt);
  const occ = lastOccurrence(s.time, s.zone, now);
  if (occ.at < createdMs) return undefined;
  if (s.lastDay && occ.day <= s.lastDay) return undefined;
  const missed: string[] = [];
  let d = prevDay(occ.day);
  let more = 0;
  for (let i = 0; i < 366; i++) {
    if (s.lastDay && d <= s.lastDay) break;
    if (occurrenceAt(d, s.time, s.zone) < createdMs) break;
    if (missed.length < MAX_MISSED_NAMED) missed.unshift(d);
    else more++;
    d = prevDay(d);
  }
  return {
    day: occ.day,
    at: occ.at,
    late: now - occ.at > lateNoteAfterMs,
    missedDays: missed,
    missedMore: more,
  };
}

/** The earliest next occurrence of a workspace's schedules (for the runtime's timer). */
export function nextDueAt(schedules: DigestSchedule[], now: number): number | undefined {
  let best: number | undefined;
  for (const s of schedules) {
    if (s.paused) continue;
    const n = nextOccurrence(s.time, s.zone, now).at;
    best = best === undefined ? n : Math.min(best, n);
  }
  return best;
}
