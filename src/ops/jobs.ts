/**
 * Watermarking jobs for people: summarise a job and its tasks (problems first), turn user filters
 * (status words, content id, dates in the user's own time zone) into the API's job query, and
 * export a job's full task list as CSV.
 */
import {
  codeName,
  JOB_STATUS,
  JOB_STATUS_CODES,
  JOB_TERMINAL,
  type JobStatusCode,
  TASK_IN_FLIGHT,
  TASK_STATUS_CODES,
  type TaskStatusCode,
} from '../api/codes.js';
import { explainFailureCode } from '../api/error-codes.js';
import type { ValidationIssue } from '../api/errors.js';
import { PageWalk } from '../api/paging.js';
import type { Job, JobSearchQuery, JobTask, WatermarkingClient, WmPage } from '../api/types.js';
import {
  checkContentId,
  checkDate,
  checkDateRange,
  checkPageIndex,
  checkPageUnit,
  LIMITS,
  passes,
} from '../api/validate.js';
import { taskFailed } from '../api/watermarking.js';
import { dayIn, isIanaTimeZone, knownZone, offsetOf } from '../time.js';
import { writeCsv } from './csv.js';
import { inReaderRange, type ReaderDays, readerDays } from './service/common.js';

// ---------------------------------------------------------------------------------------------
// Summary
// ---------------------------------------------------------------------------------------------

/**
 * A task failed when its status is TK005 or its pre-embedder code is not the spec's success "0"
 * (src/api/watermarking.ts `taskFailed`: an empty code is "not reported yet" on a task still
 * waiting or running, and a failure on a finished one).
 */
export function isTaskFailed(t: Pick<JobTask, 'status' | 'cliErrorCode'> & { failed?: boolean }): boolean {
  return taskFailed(t.status, t.cliErrorCode);
}

export interface FailureCodeCount {
  code: string;
  count: number;
}

export interface JobSummary {
  job: Job;
  counts: Record<TaskStatusCode, number>;
  total: number;
  /** Every failed task (ordered by dwmId). */
  failures: JobTask[];
  /** Pre-embedder codes of the failures with how many tasks have each, most frequent first. */
  failureCodes: FailureCodeCount[];
  /** The first `limit` tasks in display order: failures, then in flight, then complete. */
  shown: JobTask[];
  hiddenCount: number;
  isTerminal: boolean;
  /** The job ended in ERROR or at least one task failed. */
  failed: boolean;
  /**
   * The service's total_count of the job's tasks when it is larger than the tasks it listed
   * (`listedTasksNote`): the counts and failures above cover only the listed ones.
   */
  reportedTotal?: number;
}

/**
 * "N of M tasks shown" when the task list's total_count (M) exceeds the tasks it holds (N), else
 * undefined. The spec gives that list no paging parameters, so none are invented: the bot says
 * how many it could read (cards, exports, workflow outputs).
 */
export function listedTasksNote(listed: number, total: number | undefined): string | undefined {
  if (total === undefined || !(total > listed)) return undefined;
  return `${listed.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} tasks shown`;
}

/** The task list's total_count when the service reported one (WmPage), else undefined. */
export function reportedTaskTotal(
  page: Pick<WmPage<unknown>, 'totalCount' | 'totalUnknown'>,
): number | undefined {
  return page.totalUnknown ? undefined : page.totalCount;
}

function taskRank(t: JobTask): number {
  if (isTaskFailed(t)) return 0;
  if (t.status === 'TK001') return 1;
  if (t.status === 'TK000') return 2;
  return 3;
}

export function summariseJob(
  job: Job,
  tasks: readonly JobTask[],
  opts: { limit?: number; reportedTotal?: number | undefined } = {},
): JobSummary {
  const limit = Math.max(0, opts.limit ?? 10);
  const counts = Object.fromEntries(TASK_STATUS_CODES.map((c) => [c, 0])) as Record<TaskStatusCode, number>;
  for (const t of tasks) counts[t.status] = (counts[t.status] ?? 0) + 1;
  const ordered = [...tasks].sort((a, b) => taskRank(a) - taskRank(b) || a.dwmId - b.dwmId);
  const failures = ordered.filter(isTaskFailed);
  const codeCounts = new Map<string, number>();
  for (const f of failures) {
    const c = f.cliErrorCode.trim() || f.status;
    codeCounts.set(c, (codeCounts.get(c) ?? 0) + 1);
  }
  const shown = ordered.slice(0, limit);
  return {
    job,
    counts,
    total: tasks.length,
    failures,
    failureCodes: [...codeCounts.entries()]
      .map(([code, count]) => ({ code, count }))
      .sort((a, b) => b.count - a.count || a.code.localeCompare(b.code)),
    shown,
    hiddenCount: tasks.length - shown.length,
    isTerminal: JOB_TERMINAL.includes(job.status),
    failed: job.status === 'DM600' || failures.length > 0,
    ...(opts.reportedTotal !== undefined && opts.reportedTotal > tasks.length
      ? { reportedTotal: opts.reportedTotal }
      : {}),
  };
}

/** True while any task is still READY or PROGRESSING. */
export function hasTasksInFlight(tasks: readonly JobTask[]): boolean {
  return tasks.some((t) => TASK_IN_FLIGHT.includes(t.status));
}

// ---------------------------------------------------------------------------------------------
// Filters -> API query
// ---------------------------------------------------------------------------------------------

const STATUS_WORDS: Record<string, JobStatusCode[]> = {
  ready: ['DM000'],
  waiting: ['DM000'],
  queued: ['DM000'],
  preprocessing: ['DM001'],
  processing: ['DM001'],
  running: ['DM001'],
  'in-progress': ['DM001'],
  inprogress: ['DM001'],
  completed: ['DM500'],
  complete: ['DM500'],
  done: ['DM500'],
  success: ['DM500'],
  error: ['DM600'],
  failed: ['DM600'],
  fail: ['DM600'],
  active: ['DM000', 'DM001'],
  'in-flight': ['DM000', 'DM001'],
  finished: ['DM500', 'DM600'],
};

export const JOB_STATUS_HELP = `Use ${Object.values(JOB_STATUS)
  .map((n) => n.toLowerCase())
  .join(', ')}, active or finished.`;

/** Status words or codes (case-insensitive; comma or space separated) to codes. */
export function parseJobStatuses(
  words: readonly string[],
): { ok: true; statuses: JobStatusCode[] } | { ok: false; message: string } {
  const out = new Set<JobStatusCode>();
  const parts = words.flatMap((w) => w.split(/[\s,]+/)).filter((w) => w.length > 0);
  for (const p of parts) {
    const lower = p.toLowerCase();
    const upper = p.toUpperCase();
    if ((JOB_STATUS_CODES as string[]).includes(upper)) {
      out.add(upper as JobStatusCode);
      continue;
    }
    const mapped = STATUS_WORDS[lower];
    if (!mapped) return { ok: false, message: `"${p.slice(0, 30)}" is not a job status. ${JOB_STATUS_HELP}` };
    for (const c of mapped) out.add(c);
  }
  return { ok: true, statuses: JOB_STATUS_CODES.filter((c) => out.has(c)) };
}

export interface JobFilters {
  /** Status names or codes: "ready", "error", "DM500", "active"... */
  statuses?: string[];
  contentId?: string;
  /** yyyy-MM-dd, "today", "yesterday" or "Nd" (N days ago), in `timeZone`. */
  from?: string;
  to?: string;
  /** The user's IANA time zone (Slack's user tz), default "UTC". */
  timeZone?: string;
  pageUnit?: number;
  pageIndex?: number;
}

/** A user date word to yyyy-MM-dd in `timeZone`, or a finding. */
export function resolveDate(
  value: string,
  timeZone: string,
  nowMs: number,
): { ok: true; date: string } | { ok: false; message: string } {
  const v = value.trim().toLowerCase();
  const dayMs = 24 * 3600 * 1000;
  let date: string;
  if (v === 'today') date = dayIn(nowMs, timeZone);
  else if (v === 'yesterday') date = dayIn(nowMs - dayMs, timeZone);
  else if (/^\d{1,4}d$/.test(v)) date = dayIn(nowMs - Number(v.slice(0, -1)) * dayMs, timeZone);
  else date = value.trim();
  const finding = checkDate(date);
  if (finding) return { ok: false, message: `${finding} You can also write today, yesterday or 7d.` };
  return { ok: true, date };
}

/**
 * Filters to an API query. The API takes one `time_zone` for the whole query, used both for the
 * from/to dates and the times it returns, so the user's IANA zone is turned into the fixed offset
 * in effect at the start date (or now when there is none). Across a DST change inside the range
 * the end boundary may be an hour off; that is the API's limit, not ours.
 */
export function buildJobQuery(
  filters: JobFilters,
  nowMs: number = Date.now(),
): { ok: true; query: JobSearchQuery; days?: ReaderDays } | { ok: false; errors: ValidationIssue[] } {
  const errors: ValidationIssue[] = [];
  const tz = filters.timeZone ?? 'UTC';
  const query: JobSearchQuery = {};
  if (!isIanaTimeZone(tz)) {
    errors.push({
      field: 'time zone',
      message: `"${tz.slice(0, 40)}" is not a time zone name like Asia/Seoul.`,
    });
  }
  if (filters.statuses && filters.statuses.length > 0) {
    const s = parseJobStatuses(filters.statuses);
    if (s.ok) query.statuses = s.statuses;
    else errors.push({ field: 'status', message: s.message });
  }
  if (filters.contentId !== undefined && filters.contentId.trim() !== '') {
    const cid = filters.contentId.trim();
    if (passes(errors, 'content id', checkContentId(cid))) query.contentId = cid;
  }
  if (errors.some((e) => e.field === 'time zone')) return { ok: false, errors };
  for (const field of ['from', 'to'] as const) {
    const v = filters[field];
    if (v === undefined || v.trim() === '') continue;
    const d = resolveDate(v, tz, nowMs);
    if (d.ok) query[field] = d.date;
    else errors.push({ field, message: d.message });
  }
  const range = checkDateRange(query.from, query.to);
  if (range) errors.push({ field: 'from', message: range });
  if (filters.pageUnit !== undefined) {
    if (passes(errors, 'page size', checkPageUnit(filters.pageUnit))) query.pageUnit = filters.pageUnit;
  }
  if (filters.pageIndex !== undefined) {
    if (passes(errors, 'page', checkPageIndex(filters.pageIndex))) query.pageIndex = filters.pageIndex;
  }
  if (errors.length > 0) return { ok: false, errors };
  const at = query.from ? Date.parse(`${query.from}T12:00:00Z`) : nowMs;
  query.timeZone = offsetOf(tz, at);
  const days = wmReaderDays(query, tz);
  return { ok: true, query, ...(days ? { days } : {}) };
}

/**
 * The reader's `from`/`to` days (already resolved, in `tz`) turned into the query's dates: the
 * UTC days that cover them. The spec gives `from`/`to` as dates with no zone (`time_zone` is the
 * zone "applied to returned times"), and the vendor's convention is UTC dates: asking for the
 * covering UTC days loses no row whichever zone the service reads them in (UTC, or the query's
 * time_zone), and the caller keeps only the rows of the reader's days (`inReaderRange` on
 * reg_time), as the Service API lists do (src/ops/service/common.ts `readerDays`). Mutates
 * `q` (its from/to become the UTC days); returns the reader's days, or undefined without dates.
 */
export function wmReaderDays(q: { from?: string; to?: string }, tz: string): ReaderDays | undefined {
  if (q.from === undefined && q.to === undefined) return undefined;
  const days = readerDays(
    { ...(q.from !== undefined ? { from: q.from } : {}), ...(q.to !== undefined ? { to: q.to } : {}) },
    knownZone(tz),
  );
  if (days.utcFrom !== undefined) q.from = days.utcFrom;
  if (days.utcTo !== undefined) q.to = days.utcTo;
  return days;
}

export type ListJobsResult =
  | {
      ok: true;
      page: WmPage<Job>;
      query: JobSearchQuery;
      /**
       * The reader's days when `from`/`to` were given (the query holds the covering UTC days):
       * `page.items` holds only the jobs registered in them; `page.totalCount` is the service's
       * count for the covering UTC days.
       */
      days?: ReaderDays;
    }
  | { ok: false; errors: ValidationIssue[] };

/** Validate the filters, then search. Service failures are thrown (the caller renders them). */
export async function listJobs(
  client: WatermarkingClient,
  siteId: string,
  filters: JobFilters = {},
  opts: { now?: number } = {},
): Promise<ListJobsResult> {
  const built = buildJobQuery(filters, opts.now ?? Date.now());
  if (!built.ok) return built;
  const page = await client.searchJobs(siteId, built.query);
  if (!built.days) return { ok: true, page, query: built.query };
  const days = built.days;
  return {
    ok: true,
    page: { ...page, items: page.items.filter((j) => inReaderRange(days, j.regTime.epochMs)) },
    query: built.query,
    days,
  };
}

/** Every job matching the filters (all pages, 1000 a page), up to `max` (default 5000). */
export async function listAllJobs(
  client: WatermarkingClient,
  siteId: string,
  filters: Omit<JobFilters, 'pageUnit' | 'pageIndex'> = {},
  opts: { now?: number; max?: number } = {},
): Promise<
  { ok: true; jobs: Job[]; totalCount: number; truncated: boolean } | { ok: false; errors: ValidationIssue[] }
> {
  const max = opts.max ?? 5000;
  const built = buildJobQuery({ ...filters, pageUnit: LIMITS.pageUnitMax }, opts.now ?? Date.now());
  if (!built.ok) return built;
  const days = built.days;
  const jobs: Job[] = [];
  let totalCount = 0;
  let more = false;
  const walk = new PageWalk();
  for (let pageIndex = 1; ; pageIndex++) {
    const page = await client.searchJobs(siteId, { ...built.query, pageIndex });
    // The walk reads the service's pages as sent; only then are the reader's days kept.
    const fresh = walk.fresh(page.items, (j) => j.jobId);
    jobs.push(...(days ? fresh.filter((j) => inReaderRange(days, j.regTime.epochMs)) : fresh));
    // Without total_count (totalUnknown) the total is what was read; with the reader's days the
    // service's count covers the wider UTC days, so the total is what was kept of them.
    totalCount = page.totalUnknown || days ? jobs.length : page.totalCount;
    more = walk.next(page, fresh.length);
    if (!more || jobs.length >= max) break;
  }
  // Stopped at `max` with the reader's days: more may match than were read.
  if (days && more) totalCount = Math.max(totalCount, max + 1);
  return { ok: true, jobs: jobs.slice(0, max), totalCount, truncated: totalCount > max };
}

// ---------------------------------------------------------------------------------------------
// CSV
// ---------------------------------------------------------------------------------------------

function iso(ms: number | null): string {
  return ms === null ? '' : new Date(ms).toISOString();
}

const failureOf = (t: JobTask) => explainFailureCode(t.cliErrorCode.trim() || t.status);

/** A job's full task list as CSV (formula-guarded), failures first like the summary. */
export function taskCsv(tasks: readonly JobTask[]): string {
  const ordered = [...tasks].sort((a, b) => taskRank(a) - taskRank(b) || a.dwmId - b.dwmId);
  return writeCsv<JobTask>(
    [
      { header: 'dwm_id', value: (t) => t.dwmId },
      { header: 'recipient', value: (t) => t.recipient },
      { header: 'description', value: (t) => t.description },
      { header: 'task_status', value: (t) => t.status },
      { header: 'status_name', value: (t) => codeName(t.status) },
      { header: 'cli_error_code', value: (t) => t.cliErrorCode },
      { header: 'failed', value: (t) => (isTaskFailed(t) ? 'yes' : 'no') },
      { header: 'reg_time', value: (t) => t.regTime.raw },
      { header: 'update_time', value: (t) => t.updateTime.raw },
      { header: 'reg_time_utc', value: (t) => iso(t.regTime.epochMs) },
      { header: 'update_time_utc', value: (t) => iso(t.updateTime.epochMs) },
      // The failure code in plain words and what to do (src/api/error-codes.ts); empty when not failed.
      { header: 'failure_meaning', value: (t) => (isTaskFailed(t) ? failureOf(t).meaning : '') },
      { header: 'failure_next_step', value: (t) => (isTaskFailed(t) ? failureOf(t).next : '') },
    ],
    ordered,
  );
}
