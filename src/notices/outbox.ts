/**
 * The notices outbox: the same exactly-once scheme as the job notifications (outbox.ts +
 * delivery.ts), for the request outcomes, license alerts and digests.
 *
 * - A detected event becomes an entry with a durable key derived from WHAT happened (request id +
 *   status, alert subscription + spike + step, channel + local day), written BEFORE the detector's
 *   own state moves on. A re-detection after a crash derives the same key and `add` skips it
 *   (pending, or delivered: a tombstone keeps the key for 30 days).
 * - Delivery runs under a per-workspace lease (one replica at a time). Each non-idempotent Slack
 *   post is a "step" of the entry: the entry is saved as `sending` (with the step and time) before
 *   the post, and the post's ts is saved right after. A process that dies in between leaves
 *   `sending`: the next drain looks for a message carrying the step's key (Slack message metadata,
 *   `NotifyPorts.findPosted`) before posting again. Updates (chat.update) are idempotent and simply
 *   run again.
 * - Finishing writes the tombstone first, then deletes the entry: a crash in between leaves an
 *   entry whose tombstone the next drain sees (it is discarded, never delivered twice).
 * - Pacing: one Slack call per second per lane (a channel, or a user's DM), lanes in parallel; a
 *   429 waits its Retry-After; transient errors back off; after a few inline attempts the entry is
 *   deferred to a later drain and its lane stops (order kept).
 */
import { randomUUID } from 'node:crypto';
import pLimit from 'p-limit';
import client from 'prom-client';
import { z } from 'zod';
import type { Logger } from '../log.js';
import { registry } from '../metrics.js';
import type { NextStep } from '../next-step.js';
import type { AtomicDocRepo, DocRepo, Store, WorkspaceKey } from '../store/types.js';
import { doubledWaitMs } from '../time.js';
import { classifyDeliveryError, retryWaitMs } from '../watch/delivery-errors.js';
import { ChannelPacer } from '../watch/pacer.js';
import type { Clock, PausedReason } from '../watch/types.js';
import type { NoticeKind, NotifyEvent, NotifyPorts, PostedRef } from './types.js';

export const NOTICE_OUTBOX_NS = 'notify-outbox';
export const NOTICE_DELIVERED_NS = 'notify-delivered';
/** Delivered keys are remembered this long. */
export const NOTICE_TOMBSTONE_TTL_MS = 30 * 24 * 3600_000;
/** An entry failing for unknown reasons is dropped after this many deferred attempts. */
export const NOTICE_MAX_ATTEMPTS = 20;

export interface NoticeEntry {
  /** Durable key; also the document id (1-200 printable characters, no spaces). */
  key: string;
  workspace: string;
  kind: NoticeKind;
  /** Pacing lane: a channel id, or `dm:<user>` for DMs. */
  lane: string;
  /** Kind-specific data (validated by the kind's handler). */
  payload: unknown;
  createdAt: number;
  seq: number;
  state: 'pending' | 'sending';
  /** Posts done so far: step name -> where it landed. */
  steps: Record<string, PostedRef>;
  /** The step being posted when the entry was last saved (crash recovery). */
  sending?: { step: string; at: number };
  attempts: number;
  nextAttemptAt?: number;
}

export interface NoticeTombstone {
  outcome: 'delivered' | 'dropped';
  at: number;
  /** The main post (first step) when delivered. */
  channel?: string;
  ts?: string;
  reason?: string;
}

const postedSchema = z.object({ channel: z.string(), ts: z.string() });
const entrySchema = z.object({
  key: z.string(),
  workspace: z.string(),
  kind: z.enum(['request-outcome', 'alert-start', 'alert-update', 'alert-recovery', 'digest']),
  lane: z.string(),
  payload: z.unknown(),
  createdAt: z.number(),
  seq: z.number(),
  state: z.enum(['pending', 'sending']),
  steps: z.record(z.string(), postedSchema),
  sending: z.object({ step: z.string(), at: z.number() }).optional(),
  attempts: z.number(),
  nextAttemptAt: z.number().optional(),
});

const tombSchema = z.object({
  outcome: z.enum(['delivered', 'dropped']),
  at: z.number(),
  channel: z.string().optional(),
  ts: z.string().optional(),
  reason: z.string().optional(),
});

let seqCounter = 0;

/** A new entry (state pending, no steps). */
export function newNotice(
  input: Pick<NoticeEntry, 'key' | 'workspace' | 'kind' | 'lane' | 'payload'>,
  now: number,
): NoticeEntry {
  seqCounter = (seqCounter + 1) % 1_000_000_000;
  return { ...input, createdAt: now, seq: seqCounter, state: 'pending', steps: {}, attempts: 0 };
}

export class NoticeOutbox {
  readonly entries: AtomicDocRepo<NoticeEntry>;
  readonly delivered: DocRepo<NoticeTombstone>;

  constructor(store: Store) {
    this.entries = store.docs<NoticeEntry>(NOTICE_OUTBOX_NS);
    this.delivered = store.docs<NoticeTombstone>(NOTICE_DELIVERED_NS);
  }

  /**
   * Write entries not seen before (neither live nor tombstoned); returns how many were new. A live
   * one is re-indexed (a crash between a document's value and index writes would otherwise hide it
   * from `pending()` for good).
   */
  async add(entries: NoticeEntry[]): Promise<number> {
    let added = 0;
    for (const e of entries) {
      if (await this.delivered.get(e.workspace, e.key)) continue;
      if (await this.entries.get(e.workspace, e.key)) {
        await this.entries.update(e.workspace, e.key, (old) => old);
        continue;
      }
      await this.entries.put(e.workspace, e.key, e);
      added++;
    }
    return added;
  }

  async tombstone(ws: WorkspaceKey, key: string): Promise<NoticeTombstone | undefined> {
    const raw = await this.delivered.get(ws, key);
    if (raw === undefined) return undefined;
    const p = tombSchema.safeParse(raw);
    return p.success ? (p.data as NoticeTombstone) : undefined;
  }

  async get(ws: WorkspaceKey, key: string): Promise<NoticeEntry | undefined> {
    const raw = await this.entries.get(ws, key);
    if (raw === undefined) return undefined;
    const p = entrySchema.safeParse(raw);
    return p.success ? (p.data as NoticeEntry) : undefined;
  }

  /** Live entries of a workspace in creation order (unreadable ones are skipped). */
  async pending(ws: WorkspaceKey): Promise<NoticeEntry[]> {
    const out: NoticeEntry[] = [];
    for (const id of await this.entries.list(ws)) {
      const e = await this.get(ws, id);
      if (e) out.push(e);
    }
    return out.sort((a, b) => a.createdAt - b.createdAt || a.seq - b.seq);
  }

  async save(e: NoticeEntry): Promise<void> {
    await this.entries.put(e.workspace, e.key, e);
  }

  async finish(e: NoticeEntry, tomb: NoticeTombstone): Promise<void> {
    await this.delivered.put(e.workspace, e.key, tomb, NOTICE_TOMBSTONE_TTL_MS);
    await this.entries.delete(e.workspace, e.key);
  }

  async discard(ws: WorkspaceKey, key: string): Promise<void> {
    await this.entries.delete(ws, key);
  }

  async size(ws: WorkspaceKey): Promise<number> {
    return (await this.entries.list(ws)).length;
  }
}

// ---------------------------------------------------------------------------------------------
// Delivery
// ---------------------------------------------------------------------------------------------

/** What a handler's Slack calls go through (pacing, crash-safe posts). */
export interface DeliverContext {
  ports: NotifyPorts;
  outbox: NoticeOutbox;
  now(): number;
  /**
   * Run one non-idempotent post at most once: returns the saved result when the step is done;
   * after a crash mid-post, looks the message up by key before posting again. The key given to
   * `post` is the one to carry as metadata (and the one `findPosted` searches for).
   */
  postOnce(
    step: string,
    where: { channel?: string; userId?: string; threadTs?: string },
    post: (key: string) => Promise<PostedRef>,
  ): Promise<PostedRef>;
  /** A paced idempotent call (chat.update). */
  call<T>(fn: () => Promise<T>): Promise<T>;
  /**
   * Like `call`, for a best-effort update: a rate limit or 5xx still throws (retried), any other
   * refusal (message deleted, cannot update) is logged and ignored.
   */
  tryCall(fn: () => Promise<unknown>): Promise<void>;
}

/** Delivered (with the main post, if any), or not yet possible (dependency not delivered). */
export type DeliverResult = { done: true; main?: PostedRef } | { done: false; reason: string };

export interface NoticeHandler {
  deliver(entry: NoticeEntry, ctx: DeliverContext): Promise<DeliverResult>;
  /** Slack refused the channel for good (archived, bot removed...): pause what feeds it. */
  onPermanent?(entry: NoticeEntry, code: string, message: string): Promise<void>;
  /** How a user resumes what fed it, ending the paused reason (re-subscribe the alerts...). */
  resumeStep?: NextStep;
  /** Entries made obsolete by a later one (e.g. an older alert update): finished unsent. */
  supersededBy?(entry: NoticeEntry, later: NoticeEntry): boolean;
}

export interface NoticeDelivererOptions {
  outbox: NoticeOutbox;
  handlers: Record<NoticeKind, NoticeHandler>;
  ports: (ws: string) => NotifyPorts;
  clock: Clock;
  logger: Logger;
  emit: (e: NotifyEvent) => void;
  /** Why a channel's feed is paused, in the Slack layer's words. */
  pausedReason: PausedReason;
  /** Minimum gap between two Slack calls in one lane. Default 1000 ms. */
  laneIntervalMs?: number;
  /** The process's shared per-channel pacer (watch/pacer.ts); default one of its own. */
  pacer?: ChannelPacer;
  maxInlineAttempts?: number;
  backoffBaseMs?: number;
  backoffCapMs?: number;
  /** Slack clock skew allowance for the recovery search. Default 120 s. */
  recoveryWindowMs?: number;
  laneConcurrency?: number;
}

export interface NoticeDrainResult {
  delivered: number;
  deferred: number;
  dropped: number;
  waiting: number;
  remaining: number;
}

/** True when the error (as thrown inside a handler) is worth retrying: rate limit, 5xx, network. */
export function retryable(err: unknown): boolean {
  const inner = err instanceof StepError ? err.inner : err;
  const t = classifyDeliveryError(inner).type;
  return t === 'rate' || t === 'transient' || t === 'unknown';
}

class StepError extends Error {
  constructor(readonly inner: unknown) {
    super('notice step failed');
  }
}

export class NoticeDeliverer {
  private readonly pacer: ChannelPacer;
  private readonly o: {
    laneIntervalMs: number;
    maxInlineAttempts: number;
    backoffBaseMs: number;
    backoffCapMs: number;
    recoveryWindowMs: number;
    laneConcurrency: number;
  };

  constructor(private readonly d: NoticeDelivererOptions) {
    this.pacer = d.pacer ?? new ChannelPacer();
    this.o = {
      laneIntervalMs: d.laneIntervalMs ?? 1000,
      maxInlineAttempts: d.maxInlineAttempts ?? 4,
      backoffBaseMs: d.backoffBaseMs ?? 1000,
      backoffCapMs: d.backoffCapMs ?? 60_000,
      recoveryWindowMs: d.recoveryWindowMs ?? 120_000,
      laneConcurrency: d.laneConcurrency ?? 8,
    };
  }

  /** Deliver what is due in a workspace (call while holding its delivery lease). */
  async drain(ws: string): Promise<NoticeDrainResult> {
    const res: NoticeDrainResult = { delivered: 0, deferred: 0, dropped: 0, waiting: 0, remaining: 0 };
    const entries = await this.d.outbox.pending(ws);
    const lanes = new Map<string, NoticeEntry[]>();
    for (const e of entries) {
      const l = lanes.get(e.lane) ?? [];
      l.push(e);
      lanes.set(e.lane, l);
    }
    const ports = this.d.ports(ws);
    const limit = pLimit(this.o.laneConcurrency);
    await Promise.all([...lanes.values()].map((list) => limit(() => this.drainLane(ws, list, ports, res))));
    res.remaining = await this.d.outbox.size(ws);
    return res;
  }

  private async drainLane(ws: string, list: NoticeEntry[], ports: NotifyPorts, res: NoticeDrainResult) {
    for (let i = 0; i < list.length; i++) {
      const e = list[i] as NoticeEntry;
      if (e.nextAttemptAt !== undefined && e.nextAttemptAt > this.d.clock.now()) break; // keep order
      const tomb = await this.d.outbox.tombstone(ws, e.key);
      if (tomb) {
        await this.d.outbox.discard(ws, e.key);
        continue;
      }
      const handler = this.d.handlers[e.kind];
      const later = list.slice(i + 1).find((x) => handler.supersededBy?.(e, x));
      if (later) {
        await this.d.outbox.finish(e, { outcome: 'dropped', at: this.d.clock.now(), reason: 'superseded' });
        continue;
      }
      const step = await this.deliverWithRetry(ws, e, handler, ports, res);
      if (step === 'stop') break;
    }
  }

  private context(e: NoticeEntry, ports: NotifyPorts): DeliverContext {
    return {
      ports,
      outbox: this.d.outbox,
      now: () => this.d.clock.now(),
      call: async <T>(fn: () => Promise<T>) => {
        await this.throttle(e.workspace, e.lane);
        try {
          return await fn();
        } catch (err) {
          throw new StepError(err);
        }
      },
      tryCall: async (fn) => {
        await this.throttle(e.workspace, e.lane);
        try {
          await fn();
        } catch (err) {
          const t = classifyDeliveryError(err).type;
          if (t === 'rate' || t === 'transient') throw new StepError(err);
          this.d.logger.warn({ key: e.key, err }, 'notice update refused; skipped');
        }
      },
      postOnce: async (step, where, post) => {
        const done = e.steps[step];
        if (done) return done;
        const stepKey = `${e.key}#${step}`;
        if (e.sending?.step === step) {
          const since = e.sending.at - this.o.recoveryWindowMs;
          let found: PostedRef | undefined;
          try {
            found = await ports.findPosted(where, stepKey, since);
          } catch (err) {
            throw new StepError(err);
          }
          if (found) {
            this.d.logger.info({ key: stepKey }, 'recovered a notice already posted');
            e.steps[step] = found;
            delete e.sending;
            await this.d.outbox.save(e);
            return found;
          }
        }
        e.state = 'sending';
        e.sending = { step, at: this.d.clock.now() };
        await this.d.outbox.save(e);
        await this.throttle(e.workspace, e.lane);
        let ref: PostedRef;
        try {
          ref = await post(stepKey);
        } catch (err) {
          throw new StepError(err);
        }
        e.steps[step] = ref;
        delete e.sending;
        await this.d.outbox.save(e);
        return ref;
      },
    };
  }

  private async deliverWithRetry(
    ws: string,
    e: NoticeEntry,
    handler: NoticeHandler,
    ports: NotifyPorts,
    res: NoticeDrainResult,
  ): Promise<'ok' | 'stop'> {
    for (let attempt = 1; ; attempt++) {
      try {
        const r = await handler.deliver(e, this.context(e, ports));
        if (!r.done) {
          res.waiting++;
          return 'stop';
        }
        await this.d.outbox.finish(e, {
          outcome: 'delivered',
          at: this.d.clock.now(),
          ...(r.main ? { channel: r.main.channel, ts: r.main.ts } : {}),
        });
        res.delivered++;
        noticeCounter({ kind: e.kind, outcome: 'delivered' });
        this.d.emit({
          type: 'notify-delivered',
          workspace: ws,
          kind: e.kind,
          key: e.key,
          channel: r.main?.channel ?? e.lane,
          ...(r.main ? { ts: r.main.ts } : {}),
        });
        return 'ok';
      } catch (raw) {
        const err = raw instanceof StepError ? raw.inner : raw;
        const c = classifyDeliveryError(err);
        if (c.type === 'rate' || c.type === 'transient') {
          // A 429 was not processed: nothing was posted, no recovery search needed.
          if (c.type === 'rate' && e.sending) {
            delete e.sending;
            await this.d.outbox.save(e);
          }
          const wait = retryWaitMs(c, attempt, this.o);
          if (attempt >= this.o.maxInlineAttempts) {
            await this.defer(e, wait);
            res.deferred++;
            return 'stop';
          }
          await this.d.clock.sleep(wait);
          continue;
        }
        if (c.type === 'permanent') {
          const message = this.d.pausedReason(c.code, handler.resumeStep);
          await handler.onPermanent?.(e, c.code, message);
          await this.drop(ws, e, c.code, res);
          return 'ok';
        }
        if (c.type === 'rejected') {
          this.d.logger.error({ key: e.key, kind: e.kind, code: c.code }, 'Slack rejected a notice');
          await this.drop(ws, e, c.code, res);
          return 'ok';
        }
        // Unknown (a bug in a port, the store failing...): try again on a later drain, bounded.
        this.d.logger.error({ key: e.key, kind: e.kind, err }, 'notice delivery failed; will retry later');
        if (e.attempts + 1 >= NOTICE_MAX_ATTEMPTS) {
          await this.drop(ws, e, 'too many failed attempts', res);
          return 'ok';
        }
        await this.defer(e, doubledWaitMs(this.o.backoffBaseMs, e.attempts, this.o.backoffCapMs));
        res.deferred++;
        return 'stop';
      }
    }
  }

  private async defer(e: NoticeEntry, waitMs: number): Promise<void> {
    e.attempts += 1;
    e.nextAttemptAt = this.d.clock.now() + waitMs;
    await this.d.outbox.save(e);
    noticeCounter({ kind: e.kind, outcome: 'retried' });
  }

  private async drop(ws: string, e: NoticeEntry, reason: string, res: NoticeDrainResult): Promise<void> {
    await this.d.outbox.finish(e, { outcome: 'dropped', at: this.d.clock.now(), reason });
    res.dropped++;
    noticeCounter({ kind: e.kind, outcome: 'failed' });
    this.d.emit({ type: 'notify-dropped', workspace: ws, kind: e.kind, key: e.key, reason });
  }

  private async throttle(ws: string, lane: string): Promise<void> {
    const wait = await this.pacer.reserve(ws, lane, this.o.laneIntervalMs, this.d.clock.now());
    if (wait > 0) await this.d.clock.sleep(wait);
  }
}

/** drmchatops_notices_total{kind,outcome}: request outcomes, alerts and digests handled. */
export const noticesTotal = new client.Counter({
  name: 'drmchatops_notices_total',
  help: 'Request-outcome DMs, license alerts and digests, by kind and outcome (delivered, retried, failed)',
  labelNames: ['kind', 'outcome'] as const,
  registers: [registry],
});
const noticeCounter = (labels: { kind: string; outcome: string }) => noticesTotal.inc(labels);

/** A unique suffix for one-off keys (a digest asked for now). */
export function uniqueSuffix(): string {
  return randomUUID().slice(0, 8);
}
