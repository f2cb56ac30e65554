/**
 * The workflow waits the poll of a site serves: a wait for a job on the site completes when the
 * cycle sees the job finished (`resolveJobWaits`; its item goes to the wait outbox, job-waits.ts,
 * before the cycle saves its poll state, like the channels' intents); the other waits of the site
 * complete when their check says done, and every wait at its deadline (`checkWaits`, also when
 * the poll was skipped or failed).
 */
import type { Job, JobTask, WatermarkingClient } from '../api/types.js';
import type { Logger } from '../log.js';
import type { Change } from './intents.js';
import type { JobWait, WaitsPort } from './job-waits.js';
import { isInFlight, isLookupMiss, isTerminal, unlistedStatusSettled } from './jobs.js';
import type { WaitItem, WaitOutbox } from './wait-outbox.js';

/** The workflow waits of the site a cycle serves (see job-waits.ts and `resolveJobWaits`). */
export interface CycleWaits {
  /** Pending job waits of this site. */
  waits: JobWait[];
  outbox: WaitOutbox;
  /** The step's outputs for a finished job. */
  jobOutputs(job: Job, tasks: readonly JobTask[], reportedTotal?: number): Record<string, unknown>;
}

/** The cycle's site, client and lease checkpoint, as the waits need them. */
export interface WaitScope {
  workspace: string;
  siteId: string;
  client: WatermarkingClient;
  checkpoint: () => Promise<void>;
  waits?: CycleWaits;
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
export async function resolveJobWaits(
  ctx: WaitScope,
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

/** What `checkWaits` needs: the waits port, the wait outbox, the time and the logger. */
export interface WaitCheckDeps {
  port: WaitsPort;
  outbox: WaitOutbox;
  now: number;
  log: Logger;
}

/**
 * Items for the waits the cycle does not decide: a non-job wait whose check says done, a wait
 * past its deadline (timeout), a wait left `completing` by a crash (its stored result). The
 * wait outbox keeps the first item of a wait: a job that finished in this very cycle wins.
 */
export async function checkWaits(d: WaitCheckDeps, waits: JobWait[]): Promise<void> {
  const now = d.now;
  const items: WaitItem[] = [];
  const item = (w: JobWait, reason: WaitItem['reason'], result: WaitItem['result']): WaitItem => ({
    workspace: w.workspace,
    siteId: w.siteId,
    executionId: w.executionId,
    reason,
    result,
    createdAt: now,
    attempts: 0,
  });
  for (const w of waits) {
    if (w.state === 'completing' && w.result) {
      items.push(item(w, 'checked', w.result));
      continue;
    }
    if (w.kind !== 'job') {
      try {
        const found = await d.port.check(w);
        if (found.done) {
          items.push(
            item(
              w,
              'checked',
              found.ok ? { ok: true, outputs: found.outputs } : { ok: false, error: found.error },
            ),
          );
          continue;
        }
      } catch (err) {
        d.log.warn(
          { err, workspace: w.workspace, executionId: w.executionId },
          'could not check a workflow wait',
        );
      }
    }
    if (now >= w.deadline) items.push(item(w, 'timeout', { ok: false, error: d.port.timeoutMessage(w) }));
  }
  if (items.length > 0) await d.outbox.add(items);
}
