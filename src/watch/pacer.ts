/**
 * Slack allows about one message per second per channel. Several parts of one process post into
 * the same channels: the job deliverer (watch/delivery.ts), the notices deliverer (request
 * outcomes, license alerts, digests: notices/outbox.ts) and the background senders (DMs,
 * the audit mirror: slack/background-sender.ts). Each keeps its own gap, and with ONE shared
 * pacer a channel that is watched AND gets alerts AND mirrors the audit log still sees one call
 * per gap in all, not one per sender.
 *
 * Reservations, not timestamps of past calls: `reserve` books the channel's next free slot and
 * says how long to wait for it, so two callers asking at the same moment get slots one gap apart.
 * Times are the caller's clock; a pacer is shared only by callers on the same clock (the runtimes
 * ask `pacerFor(clock)`-style accessors for theirs).
 *
 * Across replicas: with `SharedSlots` (the store when it is shared, Redis: `storeSlots`) every
 * booking is made in the store with an atomic read-modify-write, so replicas that post into one
 * channel (it watches sites held by different replicas, or gets notices from one replica and job
 * cards from another) keep to one call per gap together. The slots are wall-clock times, so
 * replicas' clocks should agree (NTP) within a fraction of the gap. When the store cannot book
 * (an outage, a slow answer) the pacer books in the process, as without it, and says so through
 * `onSharedError`; Slack then answers 429 to what is too close, and every sender waits
 * Retry-After and tries again (nothing is lost, it is only later). Without SharedSlots (SQLite,
 * memory: one process) the bookings stay in the process.
 */
import type { Store, WorkspaceKey } from '../store/types.js';

/** Where replicas book a channel's slots together. */
export interface SharedSlots {
  /** Book the channel's first free slot at or after `notBefore`; resolves with its start time. */
  book(workspace: string, channel: string, gapMs: number, notBefore: number): Promise<number>;
}

export interface ChannelPacerOptions {
  /** Channels remembered in the process before past bookings are dropped. Default 10,000. */
  maxKeys?: number;
  /** Bookings shared with the other replicas (see the file comment). */
  shared?: SharedSlots;
  /** A shared booking failed and the process booked alone (log it). */
  onSharedError?: (err: unknown) => void;
}

export class ChannelPacer {
  /** workspace|channel -> the earliest time the next call may start. */
  private readonly next = new Map<string, number>();
  private readonly maxKeys: number;

  constructor(private readonly o: ChannelPacerOptions = {}) {
    this.maxKeys = o.maxKeys ?? 10_000;
  }

  /** Whether bookings are shared with other replicas. */
  get shared(): boolean {
    return this.o.shared !== undefined;
  }

  /**
   * Book the next slot of `channel` (gap `gapMs` after the previous booking): ms to wait first.
   * Never rejects: a failed shared booking falls back to the process's own.
   */
  async reserve(workspace: string, channel: string, gapMs: number, now: number): Promise<number> {
    const key = `${workspace}|${channel}`;
    if (this.o.shared) {
      try {
        const at = await this.o.shared.book(workspace, channel, gapMs, now);
        // The process's view follows the shared one, so a fallback later books after it.
        this.set(key, Math.max(this.next.get(key) ?? Number.NEGATIVE_INFINITY, at + gapMs), now);
        return Math.max(0, at - now);
      } catch (err) {
        this.o.onSharedError?.(err);
      }
    }
    return this.reserveLocal(key, gapMs, now);
  }

  /** Channels with a booking still ahead (tests, metrics). */
  size(): number {
    return this.next.size;
  }

  private reserveLocal(key: string, gapMs: number, now: number): number {
    const at = Math.max(now, this.next.get(key) ?? Number.NEGATIVE_INFINITY);
    this.set(key, at + gapMs, now);
    return at - now;
  }

  private set(key: string, next: number, now: number): void {
    this.next.set(key, next);
    if (this.next.size > this.maxKeys) this.prune(now);
  }

  /** Bookings in the past are the same as none: drop them. */
  private prune(now: number): void {
    for (const [k, t] of this.next) if (t <= now) this.next.delete(k);
  }
}

/** Store namespace of the shared channel slots (one document per workspace and channel). */
export const CHANNEL_SLOTS_NS = 'channel-slots';
/** A slot document outlives its last booking by this much (then the channel is free anyway). */
const SLOT_TTL_MS = 10 * 60_000;

/**
 * Channel slots booked in the store: one document per workspace and channel holding the next free
 * time, moved with the store's atomic update (compare-and-set across replicas on Redis). Give it a
 * bounded store (`store.bounded(ms)`) so a store outage falls back to the process's pacing fast.
 */
export function storeSlots(store: Store): SharedSlots {
  const docs = store.docs<{ next: number }>(CHANNEL_SLOTS_NS);
  return {
    async book(workspace, channel, gapMs, notBefore) {
      let at = notBefore;
      await docs.update(
        workspace as WorkspaceKey,
        channel,
        (old) => {
          const prev = typeof old?.next === 'number' && Number.isFinite(old.next) ? old.next : notBefore;
          at = Math.max(notBefore, prev);
          return { next: at + gapMs };
        },
        // Gone some minutes after the channel's last booking: no document per channel for ever.
        SLOT_TTL_MS,
      );
      return at;
    },
  };
}
