/**
 * Delivering a workspace's pending notices (a "drain" of its outbox through the deliverer): one
 * drain per workspace at a time, under a short per-workspace lease that a heartbeat renews while
 * the drain runs (released after it), one more queued behind a running one (coalesced: it reads
 * the outbox afresh, so it covers every caller), drains of different workspaces bounded together,
 * and the `drmchatops_notices_pending` gauge as last counted. Exactly-once does not rest on the
 * lease (see outbox.ts): it keeps replicas from doing the same work twice.
 */
import pLimit from 'p-limit';
import type { Logger } from '../log.js';
import { noticesPending } from '../metrics.js';
import type { Store } from '../store/types.js';
import type { Clock } from '../watch/types.js';
import type { NoticeDeliverer, NoticeDrainResult } from './outbox.js';

export interface WorkspaceDrainsOptions {
  store: Store;
  /** Unique per replica. */
  holderId: string;
  deliverer: NoticeDeliverer;
  clock: Clock;
  logger: Logger;
  /** Workspaces delivering at once (each under its own lease). */
  concurrency: number;
}

const DELIVERY_LEASE_TTL_MS = 60_000;

type Drain = Promise<NoticeDrainResult | undefined>;

export class WorkspaceDrains {
  private readonly limit: ReturnType<typeof pLimit>;
  /** Running drain per workspace, and at most one queued behind it (coalesced). */
  private readonly draining = new Map<string, Drain>();
  private readonly queued = new Map<string, Drain>();
  /** Pending notices per workspace as last counted (the `drmchatops_notices_pending` gauge). */
  private readonly pendingCount = new Map<string, number>();

  constructor(private readonly o: WorkspaceDrainsOptions) {
    this.limit = pLimit(Math.max(1, o.concurrency));
  }

  /**
   * Deliver a workspace's pending notices. One drain per workspace at a time; a call while one
   * runs queues ONE more behind it (it reads the outbox afresh, so it covers every caller).
   * Undefined when another replica holds the workspace's delivery lease.
   */
  drain(ws: string): Drain {
    const queued = this.queued.get(ws);
    if (queued) return queued;
    const running = this.draining.get(ws);
    if (!running) return this.start(ws);
    const next = running
      .catch(() => undefined)
      .then(() => {
        this.queued.delete(ws);
        return this.start(ws);
      });
    this.queued.set(ws, next);
    return next;
  }

  /** Record a workspace's pending count (the gauge is the sum over workspaces). */
  notePending(ws: string, n: number): void {
    if (n > 0) this.pendingCount.set(ws, n);
    else this.pendingCount.delete(ws);
    let total = 0;
    for (const v of this.pendingCount.values()) total += v;
    noticesPending.set(total);
  }

  /** The drains queued or running now (shutdown waits for them). */
  inFlight(): Drain[] {
    return [...this.queued.values(), ...this.draining.values()];
  }

  private start(ws: string): Drain {
    const p: Drain = this.limit(() => this.run(ws)).finally(() => {
      if (this.draining.get(ws) === p) this.draining.delete(ws);
    });
    this.draining.set(ws, p);
    return p;
  }

  private async run(ws: string): Drain {
    const { store, holderId, clock, logger: log } = this.o;
    const name = `notify-dlv:${ws}`;
    if (!(await store.leases.acquire(name, holderId, DELIVERY_LEASE_TTL_MS))) return undefined;
    // Heartbeat: a long drain (composing a big digest, Retry-After waits) keeps the lease, so
    // another replica never starts on the same entries meanwhile.
    let beat: unknown;
    const renew = () => {
      beat = clock.setTimer(() => {
        void store.leases
          .renew(name, holderId, DELIVERY_LEASE_TTL_MS)
          .then((ok) => {
            if (!ok) log.warn({ workspace: ws }, 'notice delivery lease lost during a drain');
          })
          .catch((err) => log.warn({ err, workspace: ws }, 'notice delivery lease renewal failed'));
        renew();
      }, DELIVERY_LEASE_TTL_MS / 3);
    };
    renew();
    try {
      const d = await this.o.deliverer.drain(ws);
      this.notePending(ws, d.remaining);
      return d;
    } finally {
      clock.clearTimer(beat);
      await store.leases.release(name, holderId);
    }
  }
}
