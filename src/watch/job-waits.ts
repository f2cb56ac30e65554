/**
 * Durable waits for Workflow Builder steps (Slack-free).
 *
 * A step that completes later ("wait for a job to finish", a long registration) stores a wait:
 * the function_execution_id Slack gave, the workspace, the site, what it waits for, and a
 * deadline. A small runtime checks the pending waits every `intervalMs` with an injectable clock.
 *
 * Exactly once across replicas and restarts:
 * - Every wait is listed in one global index document (atomic update), so any replica, also a
 *   freshly started one, finds it.
 * - A replica works on a wait only while it holds the wait's lease (`job-wait:<execution id>`).
 * - Completion is a state change done with an atomic update BEFORE the port is called
 *   (`pending` -> `completing`, with the holder), so two replicas can never both send; after the
 *   port answered the wait is marked `done` and leaves the index. A process that dies between
 *   the two finds, after a restart, a `completing` wait whose lease expired: it sends again
 *   (Slack refuses a second completion of the same execution, which the port reports as
 *   `alreadyCompleted`, so the workflow never sees two results). This is the one window where
 *   the port is called twice; it is documented rather than hidden.
 *
 * What a wait is checked against is the caller's port (`check`): the Slack feature passes the
 * ops-layer job status, the runtime knows nothing of jobs beyond "finished yet, with which
 * outputs". On timeout the wait fails with a clear message; a check that throws is retried on
 * the next tick (the service being down is not a reason to fail the workflow before the deadline).
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { AtomicDocRepo, LeaseRepo, Store, WorkspaceKey } from '../store/types.js';
import { systemClock } from './clock.js';
import type { Clock } from './types.js';

export const WAITS_NAMESPACE = 'wf-waits';
export const WAITS_INDEX_NAMESPACE = 'wf-waits-index';
const INDEX_KEY = '_global';
const INDEX_ID = 'pending';

export const jobWaitSchema = z.object({
  executionId: z.string().min(1),
  workspace: z.string().min(1),
  siteId: z.string(),
  /** What is waited for: a watermarking job, or a registration run (its report id). */
  kind: z.enum(['job', 'registration']),
  /** Job id (kind job) or report id (kind registration). */
  target: z.string().min(1),
  /** Epoch ms after which the wait fails. */
  deadline: z.number(),
  /** Who the workflow ran for (audit), and its workflow execution id when known. */
  userId: z.string().optional(),
  workflowExecutionId: z.string().optional(),
  createdAt: z.number(),
  state: z.enum(['pending', 'completing', 'done']),
  /** Last time a check found it still running (epoch ms). */
  lastCheckedAt: z.number().optional(),
  /** Holder that moved it to `completing`. */
  holder: z.string().optional(),
  /** What was (or is being) sent: kept so a restart re-sends the same result. */
  result: z
    .union([
      z.object({ ok: z.literal(true), outputs: z.record(z.string(), z.unknown()) }),
      z.object({ ok: z.literal(false), error: z.string() }),
    ])
    .optional(),
});
export type JobWait = z.infer<typeof jobWaitSchema>;

const indexSchema = z.object({
  items: z.array(z.object({ workspace: z.string(), executionId: z.string() })),
});
type WaitIndex = z.infer<typeof indexSchema>;

/** What a check found: still running, or finished with the step's outputs (or an error text). */
export type WaitCheck =
  | { done: false }
  | { done: true; ok: true; outputs: Record<string, unknown> }
  | { done: true; ok: false; error: string };

export type CompletionOutcome = 'sent' | 'alreadyCompleted';

/** Implemented by the Slack layer: complete the step with the workspace's bot token. */
export interface CompletionPort {
  complete(wait: JobWait, outputs: Record<string, unknown>): Promise<CompletionOutcome>;
  fail(wait: JobWait, error: string): Promise<CompletionOutcome>;
}

export interface JobWaitsOptions {
  store: Pick<Store, 'leases'> & { docs: Store['docs'] };
  port: CompletionPort;
  /** Looks at what the wait is for (ops layer via the Slack feature). */
  check: (wait: JobWait) => Promise<WaitCheck>;
  clock?: Clock;
  /** Time between two passes. Default 30 s. */
  intervalMs?: number;
  /** Lease of one wait while a replica works on it. Default 60 s. */
  leaseMs?: number;
  /** How long a finished wait is kept (so a late duplicate event is recognised). Default 1 day. */
  keepDoneMs?: number;
  /** Holder id of this replica (default random). */
  holder?: string;
  onError?: (message: string, err: unknown, wait?: JobWait) => void;
  /** Called after a wait was completed or failed by this replica (audit, metrics). */
  onFinished?: (wait: JobWait, outcome: CompletionOutcome) => void | Promise<void>;
}

/** Message of a wait that reached its deadline. */
export function timeoutMessage(
  wait: Pick<JobWait, 'kind' | 'target' | 'siteId' | 'deadline' | 'createdAt'>,
): string {
  const hours = Math.round(((wait.deadline - wait.createdAt) / 3_600_000) * 10) / 10;
  const within = `${hours} hour${hours === 1 ? '' : 's'}`;
  if (wait.kind === 'job') {
    return `Job ${wait.target} on site ${wait.siteId} did not finish within ${within}, so the wait step stopped. The job itself keeps running: check it with /dwm job ${wait.target} site:${wait.siteId}, and give the step a longer timeout if jobs take longer.`;
  }
  return `The registration on site ${wait.siteId} did not finish within ${within}, so the step stopped. The registration itself goes on and its report is sent to the requester by direct message.`;
}

export function waitsRepo(store: { docs: Store['docs'] }): AtomicDocRepo<JobWait> {
  return store.docs<JobWait>(WAITS_NAMESPACE, jobWaitSchema);
}
function indexRepo(store: { docs: Store['docs'] }): AtomicDocRepo<WaitIndex> {
  return store.docs<WaitIndex>(WAITS_INDEX_NAMESPACE, indexSchema);
}

export type NewWait = Omit<JobWait, 'state' | 'holder' | 'result' | 'createdAt'> & { createdAt?: number };

/**
 * Store a wait (idempotent per execution id: Slack may deliver the same function_executed event
 * twice; the second call keeps the first wait). Returns false when one existed already.
 */
export async function addWait(
  store: { docs: Store['docs'] },
  wait: NewWait,
  now: () => number = Date.now,
  keepDoneMs = 24 * 3_600_000,
): Promise<boolean> {
  let created = false;
  const ttl = Math.max(0, wait.deadline - now()) + keepDoneMs;
  await waitsRepo(store).update(
    wait.workspace as WorkspaceKey,
    wait.executionId,
    (old) => {
      created = !old;
      return old ?? { ...wait, createdAt: wait.createdAt ?? now(), state: 'pending' };
    },
    ttl,
  );
  if (created) {
    await indexRepo(store).update(INDEX_KEY, INDEX_ID, (old) => {
      const items = (old?.items ?? []).filter(
        (i) => !(i.workspace === wait.workspace && i.executionId === wait.executionId),
      );
      items.push({ workspace: wait.workspace, executionId: wait.executionId });
      return { items };
    });
  }
  return created;
}

export async function listWaits(store: { docs: Store['docs'] }): Promise<JobWait[]> {
  const idx = (await indexRepo(store).get(INDEX_KEY, INDEX_ID))?.items ?? [];
  const out: JobWait[] = [];
  for (const i of idx) {
    const w = await waitsRepo(store).get(i.workspace as WorkspaceKey, i.executionId);
    if (w) out.push(w);
  }
  return out;
}

async function unindex(store: { docs: Store['docs'] }, workspace: string, executionId: string) {
  await indexRepo(store).update(INDEX_KEY, INDEX_ID, (old) => ({
    items: (old?.items ?? []).filter((i) => !(i.workspace === workspace && i.executionId === executionId)),
  }));
}

export interface JobWaitsRuntime {
  start(): void;
  stop(): Promise<void>;
  /** One pass over every pending wait (tests, and `settle` after an in-process finish). */
  tick(): Promise<void>;
  /**
   * Check one wait now (right after it was stored, or when its work ended in this process) through
   * the same lease and exactly-once path as the periodic pass. Nothing happens when another
   * replica holds it: that replica (or the next pass) finishes it.
   */
  settle(workspace: string, executionId: string): Promise<void>;
  readonly holder: string;
}

export function createJobWaitsRuntime(opts: JobWaitsOptions): JobWaitsRuntime {
  const clock = opts.clock ?? systemClock;
  const intervalMs = opts.intervalMs ?? 30_000;
  const leaseMs = opts.leaseMs ?? 60_000;
  const keepDoneMs = opts.keepDoneMs ?? 24 * 3_600_000;
  const holder = opts.holder ?? `waits-${randomUUID()}`;
  const leases: LeaseRepo = opts.store.leases;
  const repo = waitsRepo(opts.store);
  const onError = opts.onError ?? (() => undefined);
  let timer: unknown;
  let running: Promise<void> | undefined;
  let stopped = true;

  const leaseName = (w: Pick<JobWait, 'executionId'>) => `job-wait:${w.executionId}`;

  /** Claims (pending -> completing) and sends. Caller holds the lease. */
  async function complete(
    wait: JobWait,
    result: NonNullable<JobWait['result']>,
  ): Promise<CompletionOutcome | undefined> {
    const key = wait.workspace as WorkspaceKey;
    let claimed: JobWait | undefined;
    await repo.update(key, wait.executionId, (old) => {
      claimed = undefined;
      if (!old || old.state === 'done') return old;
      // A `completing` wait of another holder is only taken over once its lease expired, which
      // holding the lease now proves; the stored result wins so a re-send says the same thing.
      const next: JobWait = { ...old, state: 'completing', holder, result: old.result ?? result };
      claimed = next;
      return next;
    });
    if (!claimed) return undefined;
    const r = claimed.result ?? result;
    const outcome = r.ok
      ? await opts.port.complete(claimed, r.outputs)
      : await opts.port.fail(claimed, r.error);
    await repo.update(key, wait.executionId, (old) => (old ? { ...old, state: 'done' } : old), keepDoneMs);
    await unindex(opts.store, wait.workspace, wait.executionId);
    await Promise.resolve(opts.onFinished?.(claimed, outcome)).catch((err: unknown) =>
      onError('wait finished hook failed', err, claimed),
    );
    return outcome;
  }

  async function withLease<T>(
    wait: Pick<JobWait, 'executionId'>,
    fn: () => Promise<T>,
  ): Promise<T | undefined> {
    if (!(await leases.acquire(leaseName(wait), holder, leaseMs))) return undefined;
    try {
      return await fn();
    } finally {
      await leases.release(leaseName(wait), holder).catch(() => undefined);
    }
  }

  /** Waits this runtime works on now: the lease is per holder, so overlapping calls of the same
   * runtime (a pass and a settle) must not both run one wait. */
  const busy = new Set<string>();

  async function one(wait: JobWait): Promise<void> {
    if (busy.has(wait.executionId)) return;
    busy.add(wait.executionId);
    try {
      await oneLeased(wait);
    } finally {
      busy.delete(wait.executionId);
    }
  }

  async function oneLeased(wait: JobWait): Promise<void> {
    await withLease(wait, async () => {
      // Re-read under the lease: another replica may have finished it meanwhile.
      const fresh = await repo.get(wait.workspace as WorkspaceKey, wait.executionId);
      if (!fresh || fresh.state === 'done') {
        await unindex(opts.store, wait.workspace, wait.executionId);
        return;
      }
      if (fresh.state === 'completing' && fresh.result) {
        await complete(fresh, fresh.result);
        return;
      }
      let found: WaitCheck = { done: false };
      try {
        found = await opts.check(fresh);
      } catch (err) {
        onError('could not check a workflow wait (tried again on the next pass)', err, fresh);
      }
      if (found.done) {
        await complete(
          fresh,
          found.ok ? { ok: true, outputs: found.outputs } : { ok: false, error: found.error },
        );
      } else if (clock.now() >= fresh.deadline) {
        await complete(fresh, { ok: false, error: timeoutMessage(fresh) });
      } else {
        const at = clock.now();
        await repo.update(fresh.workspace as WorkspaceKey, fresh.executionId, (old) =>
          old && old.state === 'pending' ? { ...old, lastCheckedAt: at } : old,
        );
      }
    });
  }

  let pass: Promise<void> | undefined;
  /** One pass at a time: a call during a pass waits for it, then runs its own. */
  async function tick(): Promise<void> {
    while (pass) await pass;
    pass = doTick().finally(() => {
      pass = undefined;
    });
    return pass;
  }

  async function doTick(): Promise<void> {
    let waits: JobWait[];
    try {
      waits = await listWaits(opts.store);
    } catch (err) {
      onError('could not list workflow waits', err);
      return;
    }
    for (const w of waits) {
      if (w.state === 'done') {
        await unindex(opts.store, w.workspace, w.executionId).catch(() => undefined);
        continue;
      }
      await one(w).catch((err: unknown) => onError('workflow wait failed', err, w));
    }
  }

  function schedule(): void {
    if (stopped) return;
    timer = clock.setTimer(() => {
      timer = undefined;
      running = tick().finally(() => {
        running = undefined;
        schedule();
      });
    }, intervalMs);
    (timer as { unref?: () => void } | undefined)?.unref?.();
  }

  return {
    holder,
    start() {
      if (!stopped) return;
      stopped = false;
      // A first pass right away: waits left by a previous process are picked up at start.
      running = tick().finally(() => {
        running = undefined;
        schedule();
      });
    },
    async stop() {
      stopped = true;
      if (timer !== undefined) clock.clearTimer(timer);
      timer = undefined;
      await running;
    },
    tick,
    async settle(workspace, executionId) {
      const w = await repo.get(workspace as WorkspaceKey, executionId);
      if (w && w.state !== 'done') await one(w);
    },
  };
}
