/**
 * Durable waits for Workflow Builder steps (Slack-free), completed by the job watcher.
 *
 * A step that completes later ("wait for a job to finish", a long registration) stores a wait:
 * the function_execution_id Slack gave, the workspace, the site, what it waits for, and a
 * deadline. There is no loop of its own: a pending wait is a consumer of the job watcher
 * (index.ts), like a channel subscription.
 * - Its site is watched while the wait is pending (the watcher lists the pending waits with the
 *   subscriptions), so the adaptive poller polls it fast while the job is in flight.
 * - The poll cycle that sees the job reach COMPLETED or ERROR (cycle-waits.ts
 *   `resolveJobWaits`) writes ONE durable item to the wait outbox (key = the execution id) BEFORE
 *   the site's poll state advances, exactly like a channel notification; a re-detection after a
 *   crash finds the same key (pending, or tombstoned once delivered) and adds nothing.
 * - Under the same site lease, after the cycle, the watcher checks the other waits of the site
 *   (a registration's stored report, through the port: no upstream call) and their deadlines (a
 *   timeout becomes the same kind of item, with a what / why / next message), then drains the
 *   site's wait items: each completes its step through the port (functions.completeSuccess /
 *   completeError on the Slack side).
 *
 * Exactly once across replicas and restarts (two guards, either is enough for the usual cases):
 * - The wait items of a site are drained only by the replica holding the site's poll lease.
 * - The completion itself (`createWaitCompleter`) runs under the wait's own lease
 *   (`job-wait:<execution id>`) and is a state change done with an atomic update BEFORE the port
 *   is called (`pending` -> `completing`, with the result), so two callers (a drain and the
 *   in-process settle of a registration that just ended) never both send. After the port
 *   answered the wait is marked `done` and leaves the index. A process that dies between the two
 *   leaves a `completing` wait (and an undelivered item): whoever completes it next sends the
 *   stored result again, and Slack refuses a second completion of the same execution (the port
 *   reports `alreadyCompleted`), so the workflow never sees two results. This is the one window
 *   where the port is called twice; it is documented rather than hidden.
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { Job, JobTask } from '../api/types.js';
import type { AtomicDocRepo, LeaseRepo, Store, WorkspaceKey } from '../store/types.js';
import { checkLimit } from './limits.js';

export const WAITS_NAMESPACE = 'wf-waits';
/**
 * Workspaces that have (or had) waits: one small document, the watcher's work list. Each
 * workspace's waits are then listed from the store's own per-workspace index of WAITS_NAMESPACE,
 * so one workspace's volume never slows the listing of another's.
 */
export const WAITS_WORKSPACES_NS = 'wf-waits-ws';
/**
 * The layout of release 0.1.0: ONE global index document of every workspace's pending waits
 * (`wf-waits-index/_global/pending`). Read only to move it to the layout above (the start-up
 * migration in ./migrations.ts, and each listing while replicas of 0.1.0 may still add to it
 * during a rolling upgrade).
 */
export const WAITS_INDEX_NAMESPACE = 'wf-waits-index';
/** Live wait items (one per wait that has a result to send), per workspace. */
export const WAIT_OUTBOX_NS = 'wf-wait-outbox';
/** Tombstones of delivered (or dropped) wait items. */
export const WAIT_DELIVERED_NS = 'wf-wait-delivered';
const GLOBAL_KEY = '_global';
const LEGACY_INDEX_ID = 'pending';
const WORKSPACES_ID = 'workspaces';
/** How long a finished wait and its item's tombstone are kept (a late duplicate is recognised). */
export const KEEP_DONE_MS = 24 * 3_600_000;

export const resultSchema = z.union([
  z.object({ ok: z.literal(true), outputs: z.record(z.string(), z.unknown()) }),
  z.object({ ok: z.literal(false), error: z.string() }),
]);
/** What a wait's step is completed with. */
export type WaitResult = z.infer<typeof resultSchema>;

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
  /** Holder that moved it to `completing`. */
  holder: z.string().optional(),
  /** What was (or is being) sent: kept so a restart re-sends the same result. */
  result: resultSchema.optional(),
});
export type JobWait = z.infer<typeof jobWaitSchema>;

const legacyIndexSchema = z.object({
  items: z.array(z.object({ workspace: z.string(), executionId: z.string() })),
});
type LegacyWaitIndex = z.infer<typeof legacyIndexSchema>;
const workspacesSchema = z.object({ workspaces: z.array(z.string()) });
type WaitWorkspaces = z.infer<typeof workspacesSchema>;

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

/** What the watcher needs to serve waits (given by the Slack side, see watch-runtime.ts). */
export interface WaitsPort extends CompletionPort {
  /** The step's outputs for a finished job (the ops layer's wording, as the job status step). */
  /** `reportedTotal`: the task list's total_count, when larger than the tasks it listed. */
  jobOutputs(job: Job, tasks: readonly JobTask[], reportedTotal?: number): Record<string, unknown>;
  /** Waits that are not for a job (a registration): finished yet? No upstream call expected. */
  check(wait: JobWait): Promise<WaitCheck>;
  /** The step's error for a wait that reached its deadline (what / why / next), in Slack's words. */
  timeoutMessage(wait: Pick<JobWait, 'kind' | 'target' | 'siteId' | 'deadline' | 'createdAt'>): string;
  /** Called after a wait was completed or failed by this replica (audit, metrics). */
  onFinished?(wait: JobWait, outcome: CompletionOutcome): void | Promise<void>;
}

export function waitsRepo(store: { docs: Store['docs'] }): AtomicDocRepo<JobWait> {
  return store.docs<JobWait>(WAITS_NAMESPACE, jobWaitSchema);
}
function workspacesRepo(store: { docs: Store['docs'] }): AtomicDocRepo<WaitWorkspaces> {
  return store.docs<WaitWorkspaces>(WAITS_WORKSPACES_NS, workspacesSchema);
}
function legacyIndexRepo(store: { docs: Store['docs'] }): AtomicDocRepo<LegacyWaitIndex> {
  return store.docs<LegacyWaitIndex>(WAITS_INDEX_NAMESPACE, legacyIndexSchema);
}

/** Workspaces with waits (the watcher's work list; a workspace stays once added). */
export async function waitWorkspaces(store: { docs: Store['docs'] }): Promise<string[]> {
  return (await workspacesRepo(store).get(GLOBAL_KEY, WORKSPACES_ID))?.workspaces ?? [];
}

async function registerWorkspaces(store: { docs: Store['docs'] }, add: readonly string[]): Promise<void> {
  if (add.length === 0) return;
  const cur = await waitWorkspaces(store);
  if (add.every((w) => cur.includes(w))) return;
  // Atomic: two replicas adding workspaces at once both stay.
  await workspacesRepo(store).update(GLOBAL_KEY, WORKSPACES_ID, (old) => {
    const list = old?.workspaces ?? [];
    const missing = [...new Set(add)].filter((w) => !list.includes(w));
    return missing.length === 0 ? old : { workspaces: [...list, ...missing] };
  });
}

/**
 * Move the global index of release 0.1.0 to the per-workspace layout: its workspaces join the
 * work list (the waits themselves already sit under their workspace), then exactly the items
 * moved leave the old document (an item a replica of 0.1.0 adds meanwhile stays for the next
 * call), which is deleted once empty. Idempotent; returns how many items were moved.
 */
export async function foldLegacyWaitIndex(store: { docs: Store['docs'] }): Promise<number> {
  const legacy = legacyIndexRepo(store);
  const items = (await legacy.get(GLOBAL_KEY, LEGACY_INDEX_ID))?.items;
  if (!items) return 0;
  await registerWorkspaces(
    store,
    items.map((i) => i.workspace),
  );
  const moved = new Set(items.map((i) => `${i.workspace}|${i.executionId}`));
  await legacy.update(GLOBAL_KEY, LEGACY_INDEX_ID, (old) => {
    const rest = (old?.items ?? []).filter((i) => !moved.has(`${i.workspace}|${i.executionId}`));
    return rest.length === 0 ? undefined : { items: rest };
  });
  return items.length;
}

export type NewWait = Omit<JobWait, 'state' | 'holder' | 'result' | 'createdAt'> & { createdAt?: number };

/**
 * Store a wait (idempotent per execution id: Slack may deliver the same function_executed event
 * twice; the second call keeps the first wait). Returns false when one existed already. The
 * watcher sees it at its next listing of the watched sites (`Watcher.wake` makes that at once).
 * With `limit` (WAITS_MAX_PER_WORKSPACE), a NEW wait is refused (WorkspaceLimitError) when the
 * workspace already has that many waits not finished; a duplicate event of an existing wait never is.
 */
export async function addWait(
  store: { docs: Store['docs'] },
  wait: NewWait,
  now: () => number = Date.now,
  keepDoneMs = KEEP_DONE_MS,
  limit?: number,
): Promise<boolean> {
  const ws = wait.workspace as WorkspaceKey;
  if (limit !== undefined && !(await waitsRepo(store).get(ws, wait.executionId))) {
    checkLimit('waits', (await listWaits(store, ws)).length, limit);
  }
  let created = false;
  const ttl = Math.max(0, wait.deadline - now()) + keepDoneMs;
  // The work list first: a watcher listing between the two writes finds the workspace, and the
  // wait once written (the other order could leave a wait no listing reaches).
  await registerWorkspaces(store, [wait.workspace]);
  await waitsRepo(store).update(
    ws,
    wait.executionId,
    (old) => {
      created = !old;
      return old ?? { ...wait, createdAt: wait.createdAt ?? now(), state: 'pending' };
    },
    ttl,
  );
  return created;
}

/**
 * The waits not finished yet (pending or completing) of one workspace, or of every workspace.
 * One workspace's are read from its own index of the waits namespace (one set read and one batch
 * read of its documents), whatever the others hold. Listing every workspace also moves what a
 * replica of release 0.1.0 may still have put in the old global index (rolling upgrade).
 */
export async function listWaits(store: { docs: Store['docs'] }, workspace?: string): Promise<JobWait[]> {
  const repo = waitsRepo(store);
  const read = async (ws: string): Promise<JobWait[]> => {
    const out: JobWait[] = [];
    if (repo.entries) {
      for (const [, w] of await repo.entries(ws as WorkspaceKey)) if (w.state !== 'done') out.push(w);
    } else {
      for (const id of await repo.list(ws as WorkspaceKey)) {
        const w = await repo.get(ws as WorkspaceKey, id);
        if (w && w.state !== 'done') out.push(w);
      }
    }
    return out.sort((a, b) => a.createdAt - b.createdAt || (a.executionId < b.executionId ? -1 : 1));
  };
  if (workspace !== undefined) return read(workspace);
  await foldLegacyWaitIndex(store);
  const out: JobWait[] = [];
  for (const ws of await waitWorkspaces(store)) out.push(...(await read(ws)));
  return out;
}

/**
 * How release 0.1.0 listed the waits (its global index, then one read per wait): kept for the
 * benchmark that compares the two layouts (bench/waits-listing.ts). Reads only.
 */
export async function listWaitsFromGlobalIndex(store: { docs: Store['docs'] }): Promise<JobWait[]> {
  const idx = (await legacyIndexRepo(store).get(GLOBAL_KEY, LEGACY_INDEX_ID))?.items ?? [];
  const out: JobWait[] = [];
  for (const i of idx) {
    const w = await waitsRepo(store).get(i.workspace as WorkspaceKey, i.executionId);
    if (w && w.state !== 'done') out.push(w);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// The completion (exactly once)
// ---------------------------------------------------------------------------------------------

/** 'busy': another caller holds the wait's lease now (it finishes it). 'gone': no such wait. */
export type FinishOutcome = CompletionOutcome | 'busy' | 'gone';

export interface WaitCompleter {
  /** Complete the wait with `result` (or the result a previous claim stored). */
  finish(workspace: string, executionId: string, result: WaitResult): Promise<FinishOutcome>;
  /**
   * Check a non-job wait now (a registration that just ended in this process) and complete it
   * when it is finished, through the same lease and claim as the watcher's items.
   */
  settle(workspace: string, executionId: string): Promise<FinishOutcome | undefined>;
  readonly holder: string;
}

export interface WaitCompleterOptions {
  store: Pick<Store, 'leases' | 'docs'>;
  port: Pick<WaitsPort, 'complete' | 'fail' | 'check' | 'onFinished'>;
  /** Lease of one wait while a caller completes it. Default 60 s. */
  leaseMs?: number;
  keepDoneMs?: number;
  /** Prefix of the lease holder (the replica's id); a random suffix makes it unique. */
  holder?: string;
  onError?: (message: string, err: unknown, wait?: JobWait) => void;
}

export function createWaitCompleter(opts: WaitCompleterOptions): WaitCompleter {
  const leaseMs = opts.leaseMs ?? 60_000;
  const keepDoneMs = opts.keepDoneMs ?? KEEP_DONE_MS;
  // Unique per completer (a lease acquire by the same holder succeeds: two completers of one
  // replica must still exclude each other).
  const holder = `${opts.holder ?? 'waits'}:${randomUUID().slice(0, 8)}`;
  const leases: LeaseRepo = opts.store.leases;
  const repo = waitsRepo(opts.store);
  const onError = opts.onError ?? (() => undefined);
  /** Waits this completer works on now: the lease is per holder, so overlapping calls of the
   * same completer must not both run one wait. */
  const busy = new Set<string>();

  async function claimAndSend(wait: JobWait, result: WaitResult): Promise<FinishOutcome> {
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
    if (!claimed) return 'alreadyCompleted';
    const r = claimed.result ?? result;
    const outcome = r.ok
      ? await opts.port.complete(claimed, r.outputs)
      : await opts.port.fail(claimed, r.error);
    await repo.update(key, wait.executionId, (old) => (old ? { ...old, state: 'done' } : old), keepDoneMs);
    const finished = claimed;
    await Promise.resolve(opts.port.onFinished?.(finished, outcome)).catch((err: unknown) =>
      onError('wait finished hook failed', err, finished),
    );
    return outcome;
  }

  async function leased(
    workspace: string,
    executionId: string,
    fn: (fresh: JobWait) => Promise<FinishOutcome | undefined>,
  ): Promise<FinishOutcome | undefined> {
    const id = `${workspace}|${executionId}`;
    if (busy.has(id)) return 'busy';
    busy.add(id);
    const name = `job-wait:${executionId}`;
    try {
      if (!(await leases.acquire(name, holder, leaseMs))) return 'busy';
      try {
        // Read under the lease: another replica may have finished it meanwhile.
        const fresh = await repo.get(workspace as WorkspaceKey, executionId);
        if (!fresh) return 'gone';
        if (fresh.state === 'done') return 'alreadyCompleted';
        return await fn(fresh);
      } finally {
        await leases.release(name, holder).catch(() => undefined);
      }
    } finally {
      busy.delete(id);
    }
  }

  return {
    holder,
    async finish(workspace, executionId, result) {
      return (await leased(workspace, executionId, (w) => claimAndSend(w, result))) ?? 'busy';
    },
    settle(workspace, executionId) {
      return leased(workspace, executionId, async (w) => {
        if (w.state === 'completing' && w.result) return claimAndSend(w, w.result);
        const found = await opts.port.check(w);
        if (!found.done) return undefined;
        return claimAndSend(
          w,
          found.ok ? { ok: true, outputs: found.outputs } : { ok: false, error: found.error },
        );
      });
    },
  };
}
