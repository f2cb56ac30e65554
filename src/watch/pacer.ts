/**
 * Slack allows about one message per second per channel. Several parts of one process post into
 * the same channels: the job deliverer (watch/delivery.ts), the notices deliverer (request
 * outcomes, license alerts, digests: watch/notify-outbox.ts) and the background senders (DMs,
 * the audit mirror: slack/background-sender.ts). Each keeps its own gap, and with ONE shared
 * pacer a channel that is watched AND gets alerts AND mirrors the audit log still sees one call
 * per gap in all, not one per sender.
 *
 * Reservations, not timestamps of past calls: `reserve` books the channel's next free slot and
 * says how long to wait for it, so two callers asking at the same moment get slots one gap apart.
 * Times are the caller's clock; a pacer is shared only by callers on the same clock (the runtimes
 * ask `pacerFor(clock)`-style accessors for theirs).
 *
 * Across replicas the pacing is per process: the job deliverer holds a per-site lease and the
 * notices deliverer a per-workspace lease, so two replicas post into one channel only when it
 * watches sites held by different replicas; Slack then answers 429 and both deliverers wait
 * Retry-After and try again (nothing is lost, it is only later).
 */
export class ChannelPacer {
  /** workspace|channel -> the earliest time the next call may start. */
  private readonly next = new Map<string, number>();

  constructor(private readonly maxKeys = 10_000) {}

  /** Book the next slot of `channel` (gap `gapMs` after the previous booking): ms to wait first. */
  reserve(workspace: string, channel: string, gapMs: number, now: number): number {
    const key = `${workspace}|${channel}`;
    const at = Math.max(now, this.next.get(key) ?? Number.NEGATIVE_INFINITY);
    this.next.set(key, at + gapMs);
    if (this.next.size > this.maxKeys) this.prune(now);
    return at - now;
  }

  /** Channels with a booking still ahead (tests, metrics). */
  size(): number {
    return this.next.size;
  }

  /** Bookings in the past are the same as none: drop them. */
  private prune(now: number): void {
    for (const [k, t] of this.next) if (t <= now) this.next.delete(k);
  }
}
