/**
 * The notification outbox. A detected change becomes one or more intents, each with a durable
 * delivery key `workspace|channel|job|state`, written here BEFORE the poll state is advanced. If
 * the process dies in between, the next cycle re-detects the same change, derives the same key,
 * and `add` skips it (already pending, or already delivered: a tombstone keeps delivered keys for
 * DELIVERED_TTL_MS). Entries move pending -> sending -> (tombstone + deleted); see delivery.ts for
 * how a 'sending' entry left by a crash is recovered without a duplicate post.
 *
 * Storage: `watch-outbox` (live entries) and `watch-delivered` (tombstones, with a TTL), both
 * namespaced by workspace; `watch-parents` holds the status card ts per channel + job.
 */
import { z } from 'zod';
import { JOB_STATUS_CODES, type JobStatusCode } from '../api/codes.js';
import { outboxPending } from '../metrics.js';
import type { AtomicDocRepo, DocRepo, Store, WorkspaceKey } from '../store/types.js';
import type { JobSummary, TaskFailure } from './types.js';

export const OUTBOX_NS = 'watch-outbox';
export const DELIVERED_NS = 'watch-delivered';
export const PARENTS_NS = 'watch-parents';
/** Delivered keys are remembered this long (a re-detection after a long outage still dedupes). */
export const DELIVERED_TTL_MS = 30 * 24 * 3600_000;
/** Status card references are kept this long after the last write. */
export const PARENT_TTL_MS = 30 * 24 * 3600_000;

export type IntentKind = 'card' | 'thread' | 'digest';

export type ThreadIntent =
  | { kind: 'status'; previous: JobStatusCode }
  | { kind: 'progress' }
  | { kind: 'task-failed'; failure: TaskFailure }
  | { kind: 'final' };

export interface OutboxEntry {
  /** Durable delivery key: `${workspace}|${channel}|${jobId}|${state}`. */
  key: string;
  workspace: string;
  siteId: string;
  channelId: string;
  subscriptionId: string;
  jobId: number;
  kind: IntentKind;
  /** card: only edit an existing card, never post a new one (burst members). */
  quiet?: boolean;
  thread?: ThreadIntent;
  /** digest: members sharing a group are delivered as one message. */
  group?: string;
  summary: JobSummary;
  /** Creation order within the workspace: (createdAt, seq). */
  createdAt: number;
  seq: number;
  state: 'pending' | 'sending';
  /** Set when marked sending: the key carried by the posted message and when it was sent. */
  sendingAt?: number;
  messageKey?: string;
  attempts: number;
  nextAttemptAt?: number;
}

export interface Tombstone {
  outcome: 'delivered' | 'dropped';
  at: number;
  ts?: string;
  reason?: string;
}

export interface ParentRef {
  ts: string;
  /** Status the card showed when it was first posted (a final card posted as parent is itself the
   * channel notification, so its final thread reply is not broadcast again). */
  postedStatus: JobStatusCode;
  siteId: string;
}

const jobStatus = z.enum(JOB_STATUS_CODES as [JobStatusCode, ...JobStatusCode[]]);

const entrySchema = z.object({
  key: z.string(),
  workspace: z.string(),
  siteId: z.string(),
  channelId: z.string(),
  subscriptionId: z.string(),
  jobId: z.number(),
  kind: z.enum(['card', 'thread', 'digest']),
  quiet: z.boolean().optional(),
  thread: z.any().optional(),
  group: z.string().optional(),
  summary: z.object({ jobId: z.number(), status: jobStatus, contentId: z.string() }).passthrough(),
  createdAt: z.number(),
  seq: z.number(),
  state: z.enum(['pending', 'sending']),
  sendingAt: z.number().optional(),
  messageKey: z.string().optional(),
  attempts: z.number(),
  nextAttemptAt: z.number().optional(),
});

export function deliveryKey(ws: string, channelId: string, jobId: number | string, state: string): string {
  return `${ws}|${channelId}|${jobId}|${state}`;
}

/** Document id inside the workspace namespace (the workspace is already the namespace key). */
function docId(key: string): string {
  const i = key.indexOf('|');
  return key.slice(i + 1).replaceAll('|', ':');
}

export function parentId(channelId: string, jobId: number): string {
  return `${channelId}:${jobId}`;
}

export class Outbox {
  readonly entries: AtomicDocRepo<OutboxEntry>;
  readonly delivered: DocRepo<Tombstone>;
  readonly parents: DocRepo<ParentRef>;
  /** Pending counts per workspace as last seen (for the gauge). */
  private readonly sizes = new Map<string, number>();

  constructor(store: Store) {
    this.entries = store.docs<OutboxEntry>(OUTBOX_NS);
    this.delivered = store.docs<Tombstone>(DELIVERED_NS);
    this.parents = store.docs<ParentRef>(PARENTS_NS);
  }

  /**
   * Write intents not seen before (neither pending nor delivered). Returns how many were added.
   *
   * An entry found already pending is re-indexed: a document is two writes (its value, then its
   * id in the namespace index that `pending()` lists), so a kill -9 between the two leaves a value
   * no drain ever lists. The re-detection after the restart lands here with the same key; skipping
   * it would lose that notification for good (nothing errors, the poll state then moves on).
   * `update` rewrites the stored value as it is (atomic: a concurrent save is not undone) and adds
   * the id to the index again (a no-op when it is there).
   */
  async add(entries: OutboxEntry[]): Promise<number> {
    let added = 0;
    for (const e of entries) {
      const id = docId(e.key);
      if (await this.delivered.get(e.workspace, id)) continue;
      if (await this.entries.get(e.workspace, id)) {
        await this.entries.update(e.workspace, id, (old) => old);
        continue;
      }
      await this.entries.put(e.workspace, id, e);
      added++;
    }
    if (entries[0]) await this.refreshSize(entries[0].workspace);
    return added;
  }

  async isDelivered(ws: WorkspaceKey, key: string): Promise<boolean> {
    return (await this.delivered.get(ws, docId(key)))?.outcome === 'delivered';
  }

  /** Live entries of a workspace (optionally one site), in creation order. */
  async pending(ws: WorkspaceKey, siteId?: string): Promise<OutboxEntry[]> {
    // One read per document (entries() lists and reads in one pass; list() + get() read each twice).
    const all = this.entries.entries ? await this.entries.entries(ws) : await this.listThenGet(ws);
    const out: OutboxEntry[] = [];
    for (const [, raw] of all) {
      const parsed = entrySchema.safeParse(raw);
      if (!parsed.success) continue;
      const e = parsed.data as unknown as OutboxEntry;
      if (siteId && e.siteId !== siteId) continue;
      out.push(e);
    }
    this.sizes.set(ws, all.length);
    this.updateGauge();
    return out.sort((a, b) => a.createdAt - b.createdAt || a.seq - b.seq);
  }

  /** entries() of a store without it (test fakes): the ids, then each document. */
  private async listThenGet(ws: WorkspaceKey): Promise<Array<[string, OutboxEntry]>> {
    const out: Array<[string, OutboxEntry]> = [];
    for (const id of await this.entries.list(ws)) {
      const raw = await this.entries.get(ws, id);
      if (raw !== undefined) out.push([id, raw]);
    }
    return out;
  }

  async save(e: OutboxEntry): Promise<void> {
    await this.entries.put(e.workspace, docId(e.key), e);
  }

  /** Tombstone then delete: a crash between the two leaves a live entry whose key `add` and
   * the delivery loop both recognise as delivered. */
  async finish(e: OutboxEntry, tomb: Tombstone): Promise<void> {
    await this.delivered.put(e.workspace, docId(e.key), tomb, DELIVERED_TTL_MS);
    await this.entries.delete(e.workspace, docId(e.key));
  }

  /** Remove a live entry without a new tombstone (its tombstone already exists). */
  async discard(ws: WorkspaceKey, key: string): Promise<void> {
    await this.entries.delete(ws, docId(key));
  }

  async tombstone(ws: WorkspaceKey, key: string): Promise<Tombstone | undefined> {
    return this.delivered.get(ws, docId(key));
  }

  async size(ws: WorkspaceKey): Promise<number> {
    return this.refreshSize(ws);
  }

  /** The workspace's live entries as last counted (by pending() or refreshSize()). */
  knownSize(ws: WorkspaceKey): number {
    return this.sizes.get(ws) ?? 0;
  }

  async refreshSize(ws: WorkspaceKey): Promise<number> {
    const n = (await this.entries.list(ws)).length;
    this.sizes.set(ws, n);
    this.updateGauge();
    return n;
  }

  private updateGauge(): void {
    let total = 0;
    for (const n of this.sizes.values()) total += n;
    outboxPending.set(total);
  }
}
