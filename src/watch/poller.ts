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
 * or finished after it (e.g. one that ran entirely between the watch's creation and the first poll) is
 * announced in that first cycle (looking back at most FIRST_POLL_LOOKBACK_MS, 24 h).
 *
 * Every change is matched against each subscription by the job's own time (see intents.ts `buildIntents`):
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
 *
 * Beside the cycle: poll-state.ts (what a cycle keeps of a site), jobs.ts (how a job's status and
 * lookups are read), intents.ts (which channel hears which change) and cycle-waits.ts (the
 * workflow waits a cycle completes).
 */
import pLimit from 'p-limit';
import { JOB_IN_FLIGHT, JOB_TERMINAL, type JobStatusCode } from '../api/codes.js';
import { PageWalk } from '../api/paging.js';
import type { Job, WatermarkingClient } from '../api/types.js';
import type { Store } from '../store/types.js';
import { utcDay } from '../time.js';
import { type CycleWaits, resolveJobWaits } from './cycle-waits.js';
import { buildIntents, type Change, hearsEarlierMs, hearsFromMs } from './intents.js';
import { changeTimeMs, isInFlight, isLookupMiss, isTerminal, unlistedStatusSettled } from './jobs.js';
import type { Outbox } from './outbox.js';
import { type JobMemo, memo, pickTasks, pollStateRepo } from './poll-state.js';
import type { Subscription } from './types.js';

export const PAGE_UNIT = 1000;
/**
 * A site's first poll announces changes since the earliest watch's creation, but never older than
 * this (a watch created long before its site could first be polled, e.g. before credentials were
 * set up, does not get days of history).
 */
export const FIRST_POLL_LOOKBACK_MS = 24 * 3600_000;
/** Cycles a departed job whose lookup the service refuses is kept before it is forgotten. */
export const MAX_LOOKUP_MISSES = 5;

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
