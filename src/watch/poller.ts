/**
 * One poll cycle of one workspace + site: detect job changes and turn them into outbox intents.
 *
 * Calls per cycle (steady state):  ceil(inflight / 1000)  +  1  +  changed
 *   1. in-flight set: searchJobs(statuses DM000,DM001, pageUnit 1000), paged: ceil(inflight/1000)
 *      calls (at least 1; more when the service caps its pages lower, see PageWalk);
 *   2. compare with the stored poll state (jobId -> status, updateTime, regTime);
 *   3. ONE terminal-window query: searchJobs(statuses DM500,DM600, from = the earliest of the
 *      previous cycle's date and the reg date of every job that left the in-flight set, one day
 *      earlier: FROM_MARGIN_MS), paged at 1000 (one page unless more than 1000 jobs finished in
 *      that window): it gives the final status of departed jobs and catches jobs that started
 *      and finished between two polls;
 *   4. getJobTasks only for jobs that changed (status or updateTime), are new, left the in-flight
 *      set, or are newly seen terminal ("changed" above); getJob only as a fallback for a departed
 *      job the window did not return (should not happen with a consistent service).
 * The first cycle of a site records the state: 1 + ceil(inflight/1000) calls (the window query,
 * made first, seeds the set of already-finished jobs so none is announced later) + getJobTasks
 * for the jobs that changed after a subscription was created. It is silent about everything
 * older: a job whose own latest time (updateTime, else regTime) is before the earliest active
 * subscription's creation is recorded, not announced (no flood of old jobs); a job that started
 * or finished after it (e.g. one that ran entirely between `/dwm watch` and the first poll) is
 * announced in that first cycle (looking back at most FIRST_POLL_LOOKBACK_MS, 24 h).
 *
 * Every change is matched against each subscription by the job's own time (see buildIntents):
 * a subscription hears every change whose time is at or after its creation, in its very first
 * cycle too, whether the site was polled before or not. The comparison is at whole seconds (the
 * service's time resolution): a change stamped with the same second as the subscription's
 * creation counts as after it, and so does one stamped a little before it by a service whose
 * clock is behind the bot's (its Date header says by how much, plus `clockAllowanceMs`):
 * announcing a job that ended a moment before the watch is better than losing one. A change
 * without a parseable time falls back to the detection window (announced when the subscription
 * existed when the window began).
 *
 * "Newly seen terminal": a job in the window that was neither in our in-flight set nor seen
 * before counts as new only when it was registered after the previous cycle started (minus
 * `skewMs` for clock differences between the bot and the service). Older terminal jobs the
 * window returns (when a long-running departed job pulls `from` back) were finished before the
 * previous cycle and were already handled (or predate the subscription): they are not announced.
 *
 * Intents are written to the outbox BEFORE the new poll state is saved (see outbox.ts).
 */
import pLimit from 'p-limit';
import { JOB_IN_FLIGHT, JOB_TERMINAL, type JobStatusCode } from '../api/codes.js';
import { ProtocolError, ServiceError, TransportError } from '../api/errors.js';
import { PageWalk } from '../api/paging.js';
import type { Job, JobTask, WatermarkingClient } from '../api/types.js';
import type { DocRepo, Store } from '../store/types.js';
import { utcDay } from '../time.js';
import type { JobWait, WaitItem, WaitOutbox } from './job-waits.js';
import { deliveryKey, type Outbox, type OutboxEntry, type ThreadIntent } from './outbox.js';
import { subscriptionMatches } from './subscriptions.js';
import type { JobSummary, Subscription, TaskCounts, TaskFailure } from './types.js';

export const POLLSTATE_NS = 'watch-pollstate';
export const PAGE_UNIT = 1000;
/** More than this many jobs finishing in one cycle for a channel become one digest message. */
export const BURST_THRESHOLD = 5;
/**
 * A site's first poll announces changes since the earliest watch's creation, but never older than
 * this (a watch created long before its site could first be polled, e.g. before credentials were
 * set up, does not get days of history).
 */
export const FIRST_POLL_LOOKBACK_MS = 24 * 3600_000;
/** Cycles a departed job whose lookup the service refuses is kept before it is forgotten. */
export const MAX_LOOKUP_MISSES = 5;

/**
 * A job whose status is a code the specs do not list ("not shown": a newer in-flight step, or a
 * new end such as a cancellation) is taken as finished once that status has stood this long
 * (from the job's update time, or from when the watcher first saw it there): announced as
 * "unknown (CODE)". Until then it is looked up each cycle, so a job that was only passing through
 * an unlisted step still gets its real COMPLETED / ERROR announcement.
 */
export const UNLISTED_STATUS_SETTLED_MS = 60 * 60_000;

/** True when `job`'s unlisted status has stood for UNLISTED_STATUS_SETTLED_MS at `now`. */
export function unlistedStatusSettled(job: Job, firstSeenMs: number, now: number): boolean {
  const since = Math.min(job.updateTime.epochMs ?? firstSeenMs, firstSeenMs);
  return now - since >= UNLISTED_STATUS_SETTLED_MS;
}

const isInFlight = (status: string) => (JOB_IN_FLIGHT as readonly string[]).includes(status);
const isTerminal = (status: string) => (JOB_TERMINAL as readonly string[]).includes(status);

/**
 * A getJob failure that means "not found (now)": how a service says so is "not shown" in the spec,
 * so each way a spec-following service may say it counts: an error envelope (ServiceError), HTTP
 * 404/410, or a 200 whose data is not a job (null, {}; a ProtocolError). Such a lookup is a miss
 * (MAX_LOOKUP_MISSES), never an error that stops the whole site's cycle. Other failures (network,
 * 5xx, 401/403) stop the cycle as before, to be retried by the scheduler.
 */
export function isLookupMiss(e: unknown): boolean {
  return (
    e instanceof ServiceError ||
    e instanceof ProtocolError ||
    (e instanceof TransportError && (e.status === 404 || e.status === 410))
  );
}

export interface JobMemo {
  /** status */
  s: JobStatusCode;
  /** updateTime raw */
  u: string;
  /** regTime epoch ms (0 when unknown) */
  r: number;
  /** contentId */
  c: string;
  /** task counts last seen: completed, failed, total */
  t?: [number, number, number];
  /** failed task dwmIds already reported */
  f?: number[];
  /** consecutive failed lookups of a departed job (getJob said "not found": isLookupMiss) */
  x?: number;
  /** when the watcher first saw this departed job in a status the specs do not list (epoch ms) */
  k?: number;
}

export interface PollState {
  v: 1;
  initializedAt: number;
  lastCycleStartMs: number;
  jobs: Record<string, JobMemo>;
  /** Terminal jobs already handled: jobId -> regTime epoch ms. Pruned by age. */
  terminalSeen: Record<string, number>;
}

export interface CycleResult {
  baseline: boolean;
  inflight: number;
  /** Jobs whose tasks were fetched (changed, new, departed, newly seen terminal). */
  changed: number;
  finals: number;
  intents: number;
  added: number;
  /** Workflow waits whose job finished: items written to the wait outbox (new ones). */
  waitsFinished: number;
  calls: number;
}

/** The workflow waits of the site a cycle serves (see job-waits.ts and `resolveJobWaits`). */
export interface CycleWaits {
  /** Pending job waits of this site. */
  waits: JobWait[];
  outbox: WaitOutbox;
  /** The step's outputs for a finished job. */
  jobOutputs(job: Job, tasks: readonly JobTask[], reportedTotal?: number): Record<string, unknown>;
}

export interface CycleContext {
  store: Store;
  outbox: Outbox;
  client: WatermarkingClient;
  workspace: string;
  siteId: string;
  subscriptions: Subscription[];
  now: () => number;
  /** Renews the lease; throws when it was lost (the cycle then stops before saving state). */
  checkpoint: () => Promise<void>;
  skewMs?: number;
  /**
   * Allowance on top of the service's measured clock skew when a subscription's first cycle
   * decides which changes came after its creation (WATCH_CLOCK_ALLOWANCE_SECONDS). Default 5 s.
   */
  clockAllowanceMs?: number;
  taskConcurrency?: number;
  /** Workflow waits on this site (their job's terminal change completes them). */
  waits?: CycleWaits;
}

export function pollStateRepo(store: Store): DocRepo<PollState> {
  return store.docs<PollState>(POLLSTATE_NS);
}

/**
 * The `from` date of the terminal-window query is one day before the window's start: the spec
 * does not show in which zone a service reads `from` (the query says time_zone +00:00, but a
 * service in a zone behind UTC that reads the date in its own zone would cut the window short and
 * a job that started and finished between two polls would never be seen). The extra jobs cost
 * nothing but their transfer: every use of the window filters by time (a departed job is matched
 * by id, a newly seen one by its regTime against the previous cycle, the first poll by each
 * job's own change time).
 */
const FROM_MARGIN_MS = 24 * 3600_000;

/** The terminal window's `from` for a window starting at `ms` (see FROM_MARGIN_MS). */
function windowFrom(ms: number): string {
  return utcDay(ms - FROM_MARGIN_MS);
}

/** The server's clock minus the bot's, as last answered (Date header); see `hearsFromMs`. */
interface ClockReading {
  skewMs?: number;
}

async function fetchAll(
  client: WatermarkingClient,
  siteId: string,
  statuses: readonly JobStatusCode[],
  from: string | undefined,
  count: () => void,
  clock?: ClockReading,
): Promise<Job[]> {
  const out: Job[] = [];
  // A service may cap the page below PAGE_UNIT or leave total_count out: PageWalk decides the end.
  // A job listed twice (the list shifted between pages) is kept once.
  const walk = new PageWalk();
  for (let pageIndex = 1; ; pageIndex++) {
    count();
    const page = await client.searchJobs(siteId, {
      statuses: [...statuses],
      pageUnit: PAGE_UNIT,
      pageIndex,
      ...(from ? { from } : {}),
      // `from` is a UTC date (windowFrom): say so, rather than rely on the service's default zone.
      timeZone: '+00:00',
    });
    if (clock && page.serverClockSkewMs !== undefined) clock.skewMs = page.serverClockSkewMs;
    const fresh = walk.fresh(page.items, (j) => j.jobId);
    out.push(...fresh);
    if (!walk.next(page, fresh.length)) return out;
  }
}

export function countTasks(tasks: JobTask[], reportedTotal?: number): TaskCounts {
  const c: TaskCounts = {
    ...(reportedTotal !== undefined && reportedTotal > tasks.length ? { reportedTotal } : {}),
    total: tasks.length,
    ready: 0,
    progressing: 0,
    completed: 0,
    failed: 0,
    failures: [],
  };
  for (const t of tasks) {
    if (t.failed) {
      c.failed++;
      if (c.failures.length < 20) {
        c.failures.push({
          dwmId: t.dwmId,
          recipient: t.recipient,
          status: t.status,
          cliErrorCode: t.cliErrorCode,
        });
      }
    } else if (t.status === 'TK002') c.completed++;
    else if (t.status === 'TK001') c.progressing++;
    else c.ready++;
  }
  return c;
}

function allFailures(tasks: JobTask[]): TaskFailure[] {
  return tasks
    .filter((t) => t.failed)
    .map((t) => ({ dwmId: t.dwmId, recipient: t.recipient, status: t.status, cliErrorCode: t.cliErrorCode }));
}

interface Change {
  job: Job;
  kind: 'new' | 'changed' | 'final';
  prev?: JobMemo;
  tasks?: JobTask[];
  /** The task list's total_count (when the service reported one). */
  reportedTotal?: number;
}

/** The job's own time of its latest change (service clock, epoch ms): updateTime, else regTime. */
export function changeTimeMs(j: Job): number | null {
  return j.updateTime.epochMs ?? j.regTime.epochMs ?? null;
}

/** Default of `clockAllowanceMs` (WATCH_CLOCK_ALLOWANCE_SECONDS): the Date header's second, network time. */
export const CLOCK_ALLOWANCE_MS = 5_000;

/**
 * How much earlier than a subscription's creation (bot clock) a change stamped by the service
 * may be and still be one made after it: the service's clock is behind the bot's by
 * `-skewMs` (its Date header), plus the allowance. A service ahead of the bot needs none.
 */
export function hearsEarlierMs(skewMs: number | undefined, allowanceMs = CLOCK_ALLOWANCE_MS): number {
  return Math.max(0, -(skewMs ?? 0)) + Math.max(0, allowanceMs);
}

/**
 * The earliest change time (service clock, whole seconds) a subscription hears of: the start of
 * the second it was created in, moved back by `earlierMs` (`hearsEarlierMs`). A change stamped
 * in the same second as the creation, or a little before it by a clock behind the bot's, is
 * heard: announcing a job that ended a moment before the watch is better than losing one.
 */
function hearsFromMs(s: Subscription, earlierMs = 0): number {
  const t = Date.parse(s.createdAt);
  return Number.isFinite(t) ? Math.floor(t / 1000) * 1000 - earlierMs : Number.NEGATIVE_INFINITY;
}

async function fetchTasks(ctx: CycleContext, changes: Change[], count: () => void): Promise<void> {
  const limit = pLimit(ctx.taskConcurrency ?? 8);
  await Promise.all(
    changes.map((c) =>
      limit(async () => {
        count();
        const page = await ctx.client.getJobTasks(ctx.siteId, c.job.jobId);
        c.tasks = page.items;
        if (!page.totalUnknown) c.reportedTotal = page.totalCount;
      }),
    ),
  );
}

export async function runCycle(ctx: CycleContext): Promise<CycleResult> {
  const skew = ctx.skewMs ?? 5 * 60_000;
  const start = ctx.now();
  const repo = pollStateRepo(ctx.store);
  const state = await repo.get(ctx.workspace, ctx.siteId);
  let calls = 0;
  const count = () => {
    calls++;
  };
  const res: CycleResult = {
    baseline: false,
    inflight: 0,
    changed: 0,
    finals: 0,
    intents: 0,
    added: 0,
    waitsFinished: 0,
    calls: 0,
  };

  if (!state) {
    // First poll: record the state. Seed terminalSeen so finished jobs are never announced later.
    // The terminal query goes FIRST: a job that starts after it and finishes before the in-flight
    // query is in neither set, so the next cycle announces it (it did not exist when the baseline
    // began). In the other order it would be seeded as "already finished" and never announced.
    // Jobs that changed after the earliest active subscription was created are announced now
    // (each subscription hears those at or after its own creation, see buildIntents); the window
    // reaches back to that creation (a subscription made while the bot was down).
    const earliest = (earlierMs: number) => {
      let t = Number.POSITIVE_INFINITY;
      for (const s of ctx.subscriptions) if (!s.paused) t = Math.min(t, hearsFromMs(s, earlierMs));
      return Math.max(t, start - FIRST_POLL_LOOKBACK_MS);
    };
    const before = earliest(0);
    const fromMs = Number.isFinite(before) ? Math.min(start, before) - skew : start - skew;
    const clock: ClockReading = {};
    const recent = await fetchAll(ctx.client, ctx.siteId, JOB_TERMINAL, windowFrom(fromMs), count, clock);
    await ctx.checkpoint();
    const inflight = await fetchAll(ctx.client, ctx.siteId, JOB_IN_FLIGHT, undefined, count, clock);
    res.inflight = inflight.length;
    // The service's clock as it answered: a change it stamped a little before the watch's
    // creation by the bot's clock may have been made after it (see hearsFromMs).
    const earlierMs = hearsEarlierMs(clock.skewMs, ctx.clockAllowanceMs);
    const since = earliest(earlierMs);
    const terminalSeen: Record<string, number> = {};
    const keepAfter = start - 3 * skew;
    const isNew = (j: Job) => {
      const t = changeTimeMs(j);
      return t !== null && t >= since;
    };
    const changes: Change[] = [];
    for (const j of recent) {
      terminalSeen[j.jobId] = Math.max(j.regTime.epochMs ?? start, keepAfter);
      if (isNew(j)) changes.push({ job: j, kind: 'final' });
    }
    const jobs: Record<string, JobMemo> = {};
    // A job listed by both queries (it finished in between) is known as finished, not in flight.
    const fresh: Job[] = [];
    for (const j of inflight) {
      if (terminalSeen[j.jobId] !== undefined) continue;
      if (isNew(j)) {
        changes.push({ job: j, kind: 'new' });
        fresh.push(j);
      } else jobs[j.jobId] = memo(j);
    }
    if (changes.length > 0) await fetchTasks(ctx, changes, count);
    res.waitsFinished = await resolveJobWaits(ctx, {
      terminal: new Map(recent.map((j) => [j.jobId, j])),
      inflight: new Set(inflight.filter((j) => terminalSeen[j.jobId] === undefined).map((j) => j.jobId)),
      undecided: new Set(),
      changes,
      start,
      count,
    });
    if (changes.length > 0) {
      await ctx.checkpoint();
      const entries = buildIntents(ctx, changes, start, Number.NEGATIVE_INFINITY, earlierMs);
      res.intents = entries.length;
      res.added = await ctx.outbox.add(entries);
      res.changed = changes.length;
      res.finals = changes.filter((c) => c.kind === 'final').length;
      const byId = new Map(changes.map((c) => [c.job.jobId, c]));
      for (const j of fresh) jobs[j.jobId] = memo(j, byId.get(j.jobId)?.tasks);
    }
    await ctx.checkpoint();
    await repo.put(ctx.workspace, ctx.siteId, {
      v: 1,
      initializedAt: start,
      lastCycleStartMs: start,
      jobs,
      terminalSeen,
    });
    return { ...res, baseline: true, calls };
  }

  // 1. in-flight set
  const clock: ClockReading = {};
  const inflight = await fetchAll(ctx.client, ctx.siteId, JOB_IN_FLIGHT, undefined, count, clock);
  res.inflight = inflight.length;
  await ctx.checkpoint();

  // 2. compare
  const changes: Change[] = [];
  const inflightIds = new Set<number>();
  for (const j of inflight) {
    inflightIds.add(j.jobId);
    const prev = state.jobs[j.jobId];
    if (!prev) changes.push({ job: j, kind: 'new' });
    else if (prev.s !== j.status || prev.u !== j.updateTime.raw)
      changes.push({ job: j, kind: 'changed', prev });
  }
  const departed = Object.entries(state.jobs).filter(([id]) => !inflightIds.has(Number(id)));

  // 3. one terminal-window query (a service clock behind the bot's stamps its jobs earlier: the
  // threshold of "registered after the previous cycle" moves back by that lag too)
  const lagMs = Math.max(0, -(clock.skewMs ?? 0));
  const threshold = state.lastCycleStartMs - skew - lagMs;
  let fromMs = threshold;
  for (const [, m] of departed) if (m.r > 0 && m.r < fromMs) fromMs = m.r;
  const terminal = await fetchAll(ctx.client, ctx.siteId, JOB_TERMINAL, windowFrom(fromMs), count);
  await ctx.checkpoint();
  const terminalById = new Map(terminal.map((j) => [j.jobId, j]));
  const keepInState: Record<string, JobMemo> = {};
  for (const [id, m] of departed) {
    let j = terminalById.get(Number(id));
    if (!j) {
      // Fallback: the window did not return it (a different time zone cut, a lagging index...).
      count();
      try {
        j = await ctx.client.getJob(ctx.siteId, Number(id));
      } catch (e) {
        if (!isLookupMiss(e)) throw e;
        // The service's error codes are not specified ("not shown"): a refusal here may be "no such
        // job" or a passing failure. Forgetting the job at once would lose its final notification
        // silently, so keep looking for MAX_LOOKUP_MISSES cycles, then forget it.
        const misses = (m.x ?? 0) + 1;
        if (misses < MAX_LOOKUP_MISSES) keepInState[id] = { ...m, x: misses };
        continue;
      }
    }
    const { x: _misses, k: firstUnlisted, ...rest } = m;
    if (isTerminal(j.status)) changes.push({ job: j, kind: 'final', prev: m });
    else if (isInFlight(j.status)) {
      // still moving but not listed yet: look again next cycle
      keepInState[id] = rest;
    } else if (unlistedStatusSettled(j, firstUnlisted ?? start, start)) {
      // A code the specs do not list that has stood long enough: final, "unknown (CODE)" (kept
      // forever it would be looked up every cycle and never announced).
      changes.push({ job: j, kind: 'final', prev: m });
    } else {
      keepInState[id] = { ...rest, k: firstUnlisted ?? start };
    }
  }
  for (const j of terminal) {
    if (inflightIds.has(j.jobId) || state.jobs[j.jobId] || state.terminalSeen[j.jobId] !== undefined)
      continue;
    if ((j.regTime.epochMs ?? 0) < threshold) continue;
    changes.push({ job: j, kind: 'final' });
  }

  // 4. tasks for changed jobs only
  await fetchTasks(ctx, changes, count);
  res.changed = changes.length;
  res.finals = changes.filter((c) => c.kind === 'final').length;
  await ctx.checkpoint();

  // workflow waits whose job finished: their items go out before the state advances, too
  res.waitsFinished = await resolveJobWaits(ctx, {
    terminal: terminalById,
    inflight: inflightIds,
    undecided: new Set(Object.keys(keepInState).map(Number)),
    changes,
    start,
    count,
  });

  // intents
  const entries = buildIntents(
    ctx,
    changes,
    start,
    state.lastCycleStartMs,
    hearsEarlierMs(clock.skewMs, ctx.clockAllowanceMs),
  );
  res.intents = entries.length;
  res.added = await ctx.outbox.add(entries);
  await ctx.checkpoint();

  // advance the state (only after the outbox holds the intents)
  const jobs: Record<string, JobMemo> = { ...keepInState };
  const changedById = new Map(changes.map((c) => [c.job.jobId, c]));
  for (const j of inflight) {
    const c = changedById.get(j.jobId);
    const prev = state.jobs[j.jobId];
    jobs[j.jobId] = c?.tasks ? memo(j, c.tasks) : prev ? { ...memo(j), ...pickTasks(prev) } : memo(j);
  }
  const terminalSeen: Record<string, number> = {};
  const keepAfter = start - 3 * skew;
  for (const [id, r] of Object.entries(state.terminalSeen)) if (r >= keepAfter) terminalSeen[id] = r;
  for (const c of changes) {
    if (c.kind === 'final') terminalSeen[c.job.jobId] = Math.max(c.job.regTime.epochMs ?? start, keepAfter);
  }
  await repo.put(ctx.workspace, ctx.siteId, {
    v: 1,
    initializedAt: state.initializedAt,
    lastCycleStartMs: start,
    jobs,
    terminalSeen,
  });
  res.calls = calls;
  return res;
}

/**
 * Workflow waits of the site whose job is finished: one wait item each (job-waits.ts), written
 * before the caller saves the poll state. The job is looked up in what the cycle already has
 * (a final change with its tasks, the terminal window, the in-flight set); only a job in none of
 * them (it finished before its wait was stored, or long ago, out of the window) costs a getJob,
 * and a finished job not fetched yet its getJobTasks. A job the cycle is still unsure about (a
 * departed job whose lookup failed) waits for the next cycle; a lookup the service refuses is
 * tried again next cycle (the wait's deadline ends it at worst).
 */
async function resolveJobWaits(
  ctx: CycleContext,
  seen: {
    terminal: Map<number, Job>;
    inflight: Set<number>;
    undecided: Set<number>;
    changes: Change[];
    start: number;
    count: () => void;
  },
): Promise<number> {
  const w = ctx.waits;
  if (!w || w.waits.length === 0) return 0;
  const items: WaitItem[] = [];
  for (const wait of w.waits) {
    const jobId = Number(wait.target);
    if (!Number.isSafeInteger(jobId) || seen.inflight.has(jobId) || seen.undecided.has(jobId)) continue;
    const change = seen.changes.find((c) => c.job.jobId === jobId && c.tasks);
    let job = change?.job ?? seen.terminal.get(jobId);
    let tasks: readonly JobTask[] | undefined = change?.tasks;
    let reportedTotal = change?.reportedTotal;
    try {
      if (!job) {
        seen.count();
        job = await ctx.client.getJob(ctx.siteId, jobId);
      }
      // Finished: COMPLETED / ERROR, or a code the specs do not list that has stood long enough
      // (as for departed jobs); until then the wait goes on (its timeout still applies).
      if (isInFlight(job.status)) continue;
      if (!isTerminal(job.status) && !unlistedStatusSettled(job, seen.start, seen.start)) continue;
      if (!tasks) {
        seen.count();
        const page = await ctx.client.getJobTasks(ctx.siteId, jobId);
        tasks = page.items;
        reportedTotal = page.totalUnknown ? undefined : page.totalCount;
      }
    } catch (e) {
      if (isLookupMiss(e)) continue;
      throw e;
    }
    items.push({
      workspace: ctx.workspace,
      siteId: ctx.siteId,
      executionId: wait.executionId,
      reason: 'finished',
      result: { ok: true, outputs: w.jobOutputs(job, tasks, reportedTotal) },
      createdAt: seen.start,
      attempts: 0,
    });
  }
  if (items.length === 0) return 0;
  await ctx.checkpoint();
  return w.outbox.add(items);
}

function memo(j: Job, tasks?: JobTask[]): JobMemo {
  const m: JobMemo = { s: j.status, u: j.updateTime.raw, r: j.regTime.epochMs ?? 0, c: j.contentId };
  if (tasks) {
    const c = countTasks(tasks);
    m.t = [c.completed, c.failed, c.total];
    const f = tasks.filter((t) => t.failed).map((t) => t.dwmId);
    if (f.length) m.f = f;
  }
  return m;
}

function pickTasks(m: JobMemo): Partial<JobMemo> {
  return { ...(m.t ? { t: m.t } : {}), ...(m.f ? { f: m.f } : {}) };
}

function summaryOf(ctx: CycleContext, c: Change): JobSummary {
  return {
    workspace: ctx.workspace,
    siteId: ctx.siteId,
    jobId: c.job.jobId,
    contentId: c.job.contentId,
    status: c.job.status,
    regTimeMs: c.job.regTime.epochMs,
    updateTimeMs: c.job.updateTime.epochMs,
    ...(c.tasks ? { tasks: countTasks(c.tasks, c.reportedTotal) } : {}),
  };
}

/**
 * Turn changes into per-channel intents. One channel = the first matching subscription in it that
 * existed when the change happened.
 *
 * A subscription that existed when the detection window began (`prevCycleStart`, the previous
 * cycle's start) hears every change detected in it. In its first cycle (created after the window
 * began, or the site's baseline), it hears a change when the job's own time of that change
 * (`changeTimeMs`: its updateTime, the finish time of a finished job) is not before the second
 * of its creation, moved back by the service's clock lag and the allowance (`earlierMs`,
 * `hearsFromMs`), whether or not the site was polled before (for another channel,
 * or before an unwatch left its poll state behind). Older changes are not announced to it (no
 * flood of old jobs); a change without a parseable time is not either. (A resumed subscription
 * keeps its createdAt: changes detected after the resume are delivered to it.)
 */
export function buildIntents(
  ctx: CycleContext,
  changes: Change[],
  cycleStart: number,
  prevCycleStart = Number.NEGATIVE_INFINITY,
  earlierMs = 0,
): OutboxEntry[] {
  const ws = ctx.workspace;
  const out: OutboxEntry[] = [];
  let seq = 0;
  const channels = new Map<string, Subscription[]>();
  for (const s of ctx.subscriptions) {
    if (s.paused || s.siteId !== ctx.siteId) continue;
    const l = channels.get(s.channelId) ?? [];
    l.push(s);
    channels.set(s.channelId, l);
  }
  const existedFor = (s: Subscription, c: Change) => {
    // It existed for the whole detection window: every change detected in it came after it.
    const created = Date.parse(s.createdAt);
    if (!Number.isFinite(created) || created <= prevCycleStart) return true;
    // Its first cycle (the window began before it): the job's own time decides.
    const at = changeTimeMs(c.job);
    return at !== null && hearsFromMs(s, earlierMs) <= at;
  };
  const group = `${ctx.siteId}:${cycleStart}`;
  for (const [channel, subs] of channels) {
    const pick = (c: Change) =>
      subs.find((s) => existedFor(s, c) && subscriptionMatches(s, c.job.status, c.job.contentId));
    const finals = changes.filter((c) => c.kind === 'final' && pick(c));
    const burst = finals.length > BURST_THRESHOLD;
    const push = (
      c: Change,
      sub: Subscription,
      kind: OutboxEntry['kind'],
      state: string,
      extra: Partial<OutboxEntry>,
    ) => {
      out.push({
        key: deliveryKey(ws, channel, c.job.jobId, state),
        workspace: ws,
        siteId: ctx.siteId,
        channelId: channel,
        subscriptionId: sub.id,
        jobId: c.job.jobId,
        kind,
        summary: summaryOf(ctx, c),
        createdAt: cycleStart,
        seq: seq++,
        state: 'pending',
        attempts: 0,
        ...extra,
      });
    };
    const thread = (c: Change, sub: Subscription, state: string, t: ThreadIntent) =>
      push(c, sub, 'thread', state, { thread: t });
    for (const c of changes) {
      const sub = pick(c);
      if (!sub) continue;
      const st = c.job.status;
      if (c.kind === 'final') {
        if (burst) {
          push(c, sub, 'card', `card:${st}`, { quiet: true });
          push(c, sub, 'digest', `final:${st}`, { group });
        } else {
          push(c, sub, 'card', `card:${st}`, {});
          thread(c, sub, `final:${st}`, { kind: 'final' });
        }
        continue;
      }
      const counts = c.tasks ? countTasks(c.tasks) : undefined;
      const progressed =
        counts && c.prev?.t && (c.prev.t[0] !== counts.completed || c.prev.t[1] !== counts.failed);
      const cardState = counts
        ? `card:${st}:${counts.completed}+${counts.failed}/${counts.total}`
        : `card:${st}`;
      push(c, sub, 'card', cardState, {});
      if (c.kind === 'changed' && c.prev && c.prev.s !== st) {
        thread(c, sub, `status:${st}`, { kind: 'status', previous: c.prev.s });
      } else if (progressed && counts) {
        thread(c, sub, `progress:${counts.completed}+${counts.failed}/${counts.total}`, { kind: 'progress' });
      }
      const reported = new Set(c.prev?.f ?? []);
      for (const f of c.tasks ? allFailures(c.tasks) : []) {
        if (reported.has(f.dwmId)) continue;
        thread(c, sub, `taskfail:${f.dwmId}`, { kind: 'task-failed', failure: f });
      }
    }
  }
  return out;
}
