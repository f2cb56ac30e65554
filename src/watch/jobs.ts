/**
 * How the watcher reads the service's jobs and tasks: in flight or finished (the specs' codes), a
 * status the specs do not list that has stood long enough to count as an end, a lookup refusal
 * that means "not found", the job's own time of its latest change, and a job's tasks counted for
 * its card. Plain functions of the API's types, shared by the poll cycle, the intents it builds
 * and the workflow waits it serves.
 */
import { JOB_IN_FLIGHT, JOB_TERMINAL } from '../api/codes.js';
import { ProtocolError, ServiceError, TransportError } from '../api/errors.js';
import type { Job, JobTask } from '../api/types.js';
import type { TaskCounts, TaskFailure } from './types.js';

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

/** The status is one of the specs' in-flight ones (DM000, DM001). */
export const isInFlight = (status: string) => (JOB_IN_FLIGHT as readonly string[]).includes(status);
/** The status is one of the specs' final ones (COMPLETED, ERROR). */
export const isTerminal = (status: string) => (JOB_TERMINAL as readonly string[]).includes(status);

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

/** The job's own time of its latest change (service clock, epoch ms): updateTime, else regTime. */
export function changeTimeMs(j: Job): number | null {
  return j.updateTime.epochMs ?? j.regTime.epochMs ?? null;
}

/** A job's tasks counted by state, with its first 20 failures (the card's figures). */
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

/** Every failed task of a job (countTasks keeps at most 20). */
export function allFailures(tasks: JobTask[]): TaskFailure[] {
  return tasks
    .filter((t) => t.failed)
    .map((t) => ({ dwmId: t.dwmId, recipient: t.recipient, status: t.status, cliErrorCode: t.cliErrorCode }));
}
