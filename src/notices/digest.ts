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
 */
import { createHash } from 'node:crypto';
import pLimit from 'p-limit';
import { z } from 'zod';
import { JOB_STATUS_CODES, SERVICE_CODE, type ServiceCode } from '../api/codes.js';
import { isApiError, isPerItemRefusal, unreadLatestOf } from '../api/errors.js';
import { PageWalk } from '../api/paging.js';
import type { Job, ServiceClient, WatermarkingClient } from '../api/types.js';
import type { Logger } from '../log.js';
import type { AtomicDocRepo, Store, WorkspaceKey } from '../store/types.js';
import { dayIn, utcDay, zonedTimeToEpoch } from '../time.js';
import { readLicenseWindow } from './license-alerts.js';
import {
  type DeliverResult,
  type NoticeEntry,
  type NoticeHandler,
  type NoticeOutbox,
  newNotice,
} from './outbox.js';
import { FeatureRegistry } from './registry.js';
import { requestLabel } from './requests.js';
import type {
  Digest,
  DigestFailedJob,
  DigestJobs,
  DigestLicenses,
  DigestPendingRequest,
  DigestRegistrations,
  DigestSchedule,
  DigestUnreadRequest,
  NotifyEvent,
  Section,
} from './types.js';

export const DIGEST_NS = 'notify-digest';
const DAY_MS = 24 * 3600_000;
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

// ---------------------------------------------------------------------------------------------
// Time
// ---------------------------------------------------------------------------------------------

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

export interface DigestPayload {
  channelId: string;
  zone: string;
  scheduledFor?: number;
  day?: string;
  late?: boolean;
  missedDays?: string[];
  missedMore?: number;
  /** /dwm digest now: who asked. */
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

// ---------------------------------------------------------------------------------------------
// Composition (plain data; the Slack layer renders it)
// ---------------------------------------------------------------------------------------------

export interface ComposeInput {
  channelId: string;
  zone: string;
  siteIds: string[];
  wm?: WatermarkingClient;
  svc?: ServiceClient;
  now: number;
  /** Failed jobs listed (the rest counted). Default 10. */
  failedListMax?: number;
  /** Page cap per site and list (1,000 per page). Default 5. */
  maxPages?: number;
  /** Site reads running at once, all sections together. Default 4. */
  concurrency?: number;
  /** Carried to the digest as they are (see `Digest`). */
  workspace?: string;
  alertRatioPct?: Record<string, number>;
}

function errorText(what: string, e: unknown): string {
  const why = isApiError(e) ? e.message : 'an unexpected error';
  return `${what} could not be read (${why.slice(0, 200)}). Run /dwm digest now to try again.`;
}

async function section<T>(what: string, fn: () => Promise<T>): Promise<Section<T>> {
  try {
    return { ok: true, value: await fn() };
  } catch (e) {
    return { ok: false, error: errorText(what, e) };
  }
}

const SETUP_WM = 'No Watermarking API credentials are configured: an admin can add them with /dwm setup.';
const SETUP_SVC = 'No Service API credentials are configured: an admin can add them with /dwm setup.';

/** Read everything the digest shows for the 24 h before `now`. Never throws: a section says why. */
export async function composeDigest(input: ComposeInput): Promise<Digest> {
  const toMs = input.now;
  const fromMs = toMs - DAY_MS;
  const from = utcDay(fromMs);
  const to = utcDay(toMs);
  const maxPages = input.maxPages ?? 5;
  const failedMax = input.failedListMax ?? 10;
  const inWindow = (ms: number | null) => ms !== null && ms >= fromMs && ms <= toMs;
  const wm = input.wm;
  const svc = input.svc;

  // The four sections are read at once, each site through one bound (`concurrency`): a slow
  // Service API then costs about one slow read, not one per site and section, and the digest
  // still posts within a minute of its time.
  const limit = pLimit(Math.max(1, input.concurrency ?? 4));
  const perSite = <T>(fn: (siteId: string) => Promise<T>) =>
    Promise.all(input.siteIds.map((siteId) => limit(() => fn(siteId))));

  const jobsP: Promise<Section<DigestJobs>> = !wm
    ? Promise.resolve({ ok: false, error: SETUP_WM })
    : section('The jobs', async () => {
        const byStatus: Record<string, number> = Object.fromEntries(JOB_STATUS_CODES.map((c) => [c, 0]));
        const perSiteJobs: DigestJobs['perSite'] = [];
        const failedJobs: Array<{ siteId: string; job: Job }> = [];
        let truncated = false;
        const reads = await perSite(async (siteId) => {
          const site: Record<string, number> = Object.fromEntries(JOB_STATUS_CODES.map((c) => [c, 0]));
          const jobs: Job[] = [];
          const walk = new PageWalk();
          for (let page = 1; ; page++) {
            if (page > maxPages) {
              truncated = true;
              break;
            }
            const p = await wm.searchJobs(siteId, { from, to, pageUnit: 1000, pageIndex: page });
            const fresh = walk.fresh(p.items, (j) => j.jobId);
            for (const j of fresh) if (inWindow(j.regTime.epochMs)) jobs.push(j);
            if (!walk.next(p, fresh.length)) break;
          }
          return { siteId, site, jobs };
        });
        for (const { siteId, site, jobs } of reads) {
          for (const j of jobs) {
            byStatus[j.status] = (byStatus[j.status] ?? 0) + 1;
            site[j.status] = (site[j.status] ?? 0) + 1;
            if (j.status === 'DM600') failedJobs.push({ siteId, job: j });
          }
          perSiteJobs.push({ siteId, byStatus: site });
        }
        failedJobs.sort((a, b) => (b.job.regTime.epochMs ?? 0) - (a.job.regTime.epochMs ?? 0));
        const failed: DigestFailedJob[] = [];
        for (const { siteId, job } of failedJobs.slice(0, failedMax)) {
          let n: number | null = null;
          try {
            const tasks = await wm.getJobTasks(siteId, job.jobId);
            n = tasks.items.filter((t) => t.failed).length;
          } catch {
            n = null;
          }
          failed.push({ siteId, jobId: job.jobId, contentId: job.contentId, failedRecipients: n });
        }
        return {
          byStatus,
          perSite: perSiteJobs,
          failed,
          failedMore: Math.max(0, failedJobs.length - failedMax),
          truncated,
        };
      });

  const registrationsP: Promise<Section<DigestRegistrations>> = !wm
    ? Promise.resolve({ ok: false, error: SETUP_WM })
    : section('The recipient registrations', async () => {
        let truncated = false;
        const sites: DigestRegistrations['perSite'] = await perSite(async (siteId) => {
          let count = 0;
          const walk = new PageWalk();
          for (let page = 1; ; page++) {
            if (page > maxPages) {
              truncated = true;
              break;
            }
            const p = await wm.searchRecipients(siteId, { from, to, pageUnit: 1000, pageIndex: page });
            const fresh = walk.fresh(p.items, (r) => r.dwmId);
            count += fresh.filter((r) => inWindow(r.regTime.epochMs)).length;
            if (!walk.next(p, fresh.length)) break;
          }
          return { siteId, count };
        });
        return { perSite: sites, total: sites.reduce((a, s) => a + s.count, 0), truncated };
      });

  const licensesP: Promise<Section<DigestLicenses>> = !svc
    ? Promise.resolve({ ok: false, error: SETUP_SVC })
    : section('The license counts', async () => ({
        perSite: await perSite(async (siteId) => {
          const read = await readLicenseWindow(svc, siteId, fromMs, toMs, {
            pageUnit: 1000,
            maxPages: maxPages * 4,
          });
          const fail = read.records.filter((r) => r.status === 'fail').length;
          return { siteId, success: read.records.length - fail, fail, truncated: read.truncated };
        }),
      }));

  const pendingUnread: DigestUnreadRequest[] = [];
  const pendingP: Promise<Section<DigestPendingRequest[]>> = !svc
    ? Promise.resolve({ ok: false, error: SETUP_SVC })
    : section('The pending plan requests', async () => {
        const bySite = await perSite(async (siteId) => {
          const out: DigestPendingRequest[] = [];
          for (const code of Object.keys(SERVICE_CODE) as ServiceCode[]) {
            let r: Awaited<ReturnType<typeof svc.getLatestStatusRequest>>;
            try {
              r = await svc.getLatestStatusRequest(siteId, code);
            } catch (e) {
              // One product's refusal (a code the table does not know, a 403) is named; the rest stay.
              if (!isPerItemRefusal(e)) throw e;
              const u = unreadLatestOf(e);
              pendingUnread.push({ siteId, serviceCode: code, serviceLabel: SERVICE_CODE[code], ...u });
              continue;
            }
            if (!r || (r.status ?? 'ST001') !== 'ST001') continue;
            out.push({
              siteId,
              serviceCode: code,
              serviceLabel: SERVICE_CODE[code],
              requestId: r.requestId,
              requestLabel: requestLabel(r.type),
              status: 'ST001',
              regTimeMs: r.regTime.epochMs,
            });
          }
          return out;
        });
        return bySite.flat();
      });

  const [jobs, registrations, licenses, pendingRequests] = await Promise.all([
    jobsP,
    registrationsP,
    licensesP,
    pendingP,
  ]);

  return {
    channelId: input.channelId,
    ...(input.workspace ? { workspace: input.workspace } : {}),
    ...(input.alertRatioPct ? { alertRatioPct: input.alertRatioPct } : {}),
    fromMs,
    toMs,
    zone: input.zone,
    sites: [...input.siteIds],
    jobs,
    registrations,
    licenses,
    pendingRequests,
    ...(pendingRequests.ok && pendingUnread.length ? { pendingUnread } : {}),
  };
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
      // A scheduled digest whose schedule was stopped (`/dwm digest off`) while it waited is not
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
