/**
 * The poll state of one workspace + site (namespace `watch-pollstate`): what the last cycle saw of
 * each job in flight (status, update time, task figures, lookup misses), the finished jobs
 * already handled, and when the site's first and last cycles started. The next cycle compares
 * the service's answers with it; it is saved only after the outbox holds the cycle's intents.
 */
import type { JobStatusCode } from '../api/codes.js';
import type { Job, JobTask } from '../api/types.js';
import type { DocRepo, Store } from '../store/types.js';
import { countTasks } from './jobs.js';

export const POLLSTATE_NS = 'watch-pollstate';

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

export function pollStateRepo(store: Store): DocRepo<PollState> {
  return store.docs<PollState>(POLLSTATE_NS);
}

/** What the poll state keeps of a job (with its task counts when they were fetched). */
export function memo(j: Job, tasks?: JobTask[]): JobMemo {
  const m: JobMemo = { s: j.status, u: j.updateTime.raw, r: j.regTime.epochMs ?? 0, c: j.contentId };
  if (tasks) {
    const c = countTasks(tasks);
    m.t = [c.completed, c.failed, c.total];
    const f = tasks.filter((t) => t.failed).map((t) => t.dwmId);
    if (f.length) m.f = f;
  }
  return m;
}

/** The task figures of a memo, kept when a job's tasks were not fetched again. */
export function pickTasks(m: JobMemo): Partial<JobMemo> {
  return { ...(m.t ? { t: m.t } : {}), ...(m.f ? { f: m.f } : {}) };
}
