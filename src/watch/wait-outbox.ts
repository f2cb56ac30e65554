/**
 * The wait outbox of the Workflow Builder waits (job-waits.ts): one durable item per wait that
 * has a result (the job finished, the deadline passed, a non-job wait's check said done), written
 * by the poll cycle before the site's poll state advances, and its drain, which completes each
 * step through the port under the site's poll lease (exactly once: see job-waits.ts).
 */

import { z } from 'zod';
import type { AtomicDocRepo, DocRepo, Store, WorkspaceKey } from '../store/types.js';
import { doubledWaitMs } from '../time.js';
import { classifyDeliveryError, retryWaitMs } from './delivery-errors.js';
import {
  type FinishOutcome,
  KEEP_DONE_MS,
  resultSchema,
  WAIT_DELIVERED_NS,
  WAIT_OUTBOX_NS,
  type WaitCompleter,
  type WaitResult,
  waitsRepo,
} from './job-waits.js';

export interface WaitItem {
  workspace: string;
  siteId: string;
  executionId: string;
  /** Why: the job finished, the deadline passed, or a non-job wait's check said done. */
  reason: 'finished' | 'timeout' | 'checked';
  result: WaitResult;
  createdAt: number;
  attempts: number;
  nextAttemptAt?: number;
}

const itemSchema = z.object({
  workspace: z.string(),
  siteId: z.string(),
  executionId: z.string(),
  reason: z.enum(['finished', 'timeout', 'checked']),
  result: resultSchema,
  createdAt: z.number(),
  attempts: z.number(),
  nextAttemptAt: z.number().optional(),
});

interface WaitTombstone {
  outcome: 'delivered' | 'dropped';
  at: number;
  reason?: string;
}
const tombSchema = z.object({
  outcome: z.enum(['delivered', 'dropped']),
  at: z.number(),
  reason: z.string().optional(),
});

export class WaitOutbox {
  readonly items: AtomicDocRepo<WaitItem>;
  readonly delivered: DocRepo<WaitTombstone>;
  constructor(
    store: Pick<Store, 'docs'>,
    private readonly keepDoneMs = KEEP_DONE_MS,
  ) {
    this.items = store.docs<WaitItem>(WAIT_OUTBOX_NS, itemSchema);
    this.delivered = store.docs<WaitTombstone>(WAIT_DELIVERED_NS, tombSchema);
  }

  /**
   * Write items not seen before (neither pending nor delivered): one per wait, whatever the
   * reason (the first result found wins). An item found pending is re-indexed (see Outbox.add).
   */
  async add(items: WaitItem[]): Promise<number> {
    let added = 0;
    for (const it of items) {
      if (await this.delivered.get(it.workspace, it.executionId)) continue;
      const created = { v: false };
      await this.items.update(it.workspace, it.executionId, (old) => {
        created.v = !old;
        return old ?? it;
      });
      if (created.v) added++;
    }
    return added;
  }

  async pending(ws: string, siteId?: string): Promise<WaitItem[]> {
    const out: WaitItem[] = [];
    for (const id of await this.items.list(ws)) {
      const it = await this.items.get(ws, id).catch(() => undefined);
      if (it && (!siteId || it.siteId === siteId)) out.push(it);
    }
    return out.sort((a, b) => a.createdAt - b.createdAt);
  }

  async finish(it: WaitItem, tomb: WaitTombstone): Promise<void> {
    await this.delivered.put(it.workspace, it.executionId, tomb, this.keepDoneMs);
    await this.items.delete(it.workspace, it.executionId);
  }
}

export interface WaitDrainResult {
  delivered: number;
  deferred: number;
  dropped: number;
}

/** How long an item whose completion keeps failing is retried before it is dropped. */
const GIVE_UP_MS = KEEP_DONE_MS;
/** A failed completion is tried again after 2 s, 4 s, 8 s... at most 15 minutes apart (or after Slack's Retry-After). */
const WAIT_BACKOFF = { backoffBaseMs: 1000, backoffCapMs: 15 * 60_000 };

/**
 * Deliver the wait items of a workspace (one site's, under its lease). A transient failure
 * (Slack 429 / 5xx / network, an unknown error) is retried at a later drain with exponential
 * backoff (the item keeps its result); one Slack refuses for good (token revoked, app
 * uninstalled, bad arguments) is dropped and logged, and its wait marked done.
 */
export async function drainWaitItems(
  d: {
    outbox: WaitOutbox;
    completer: WaitCompleter;
    store: Pick<Store, 'docs'>;
    now: () => number;
    onError: (message: string, err: unknown, item?: WaitItem) => void;
  },
  ws: string,
  siteId?: string,
): Promise<WaitDrainResult> {
  const res: WaitDrainResult = { delivered: 0, deferred: 0, dropped: 0 };
  for (const it of await d.outbox.pending(ws, siteId)) {
    if (it.nextAttemptAt !== undefined && it.nextAttemptAt > d.now()) continue;
    const tomb = await d.outbox.delivered.get(ws, it.executionId);
    if (tomb) {
      // Tombstoned but still live: the process died between finish's two writes.
      await d.outbox.items.delete(ws, it.executionId);
      continue;
    }
    let outcome: FinishOutcome;
    try {
      outcome = await d.completer.finish(ws, it.executionId, it.result);
    } catch (err) {
      const c = classifyDeliveryError(err);
      if ((c.type === 'permanent' || c.type === 'rejected') && 'code' in c) {
        d.onError(`Slack refused to complete a workflow step (${c.code}); the wait is dropped`, err, it);
        await d.outbox.finish(it, { outcome: 'dropped', at: d.now(), reason: c.code });
        await waitsRepo(d.store).update(ws as WorkspaceKey, it.executionId, (old) =>
          old ? { ...old, state: 'done' } : old,
        );
        res.dropped++;
        continue;
      }
      if (d.now() - it.createdAt > GIVE_UP_MS) {
        d.onError('a workflow step could not be completed for a day; the wait is dropped', err, it);
        await d.outbox.finish(it, { outcome: 'dropped', at: d.now(), reason: 'gave up' });
        res.dropped++;
        continue;
      }
      const attempts = it.attempts + 1;
      const backoff =
        c.type === 'rate' || c.type === 'transient'
          ? retryWaitMs(c, attempts + 1, WAIT_BACKOFF)
          : doubledWaitMs(WAIT_BACKOFF.backoffBaseMs, attempts, WAIT_BACKOFF.backoffCapMs);
      d.onError('could not complete a workflow step (tried again later)', err, it);
      await d.outbox.items.update(ws, it.executionId, (old) =>
        old ? { ...old, attempts, nextAttemptAt: d.now() + backoff } : old,
      );
      res.deferred++;
      continue;
    }
    // Another caller holds the wait right now (it completes it): look again at the next drain.
    if (outcome === 'busy') {
      res.deferred++;
      continue;
    }
    await d.outbox.finish(it, { outcome: 'delivered', at: d.now() });
    res.delivered++;
  }
  return res;
}
