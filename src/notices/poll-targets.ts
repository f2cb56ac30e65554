/**
 * When each poll target of the notifier is due (`req|<ws>`: a workspace's tracked requests,
 * `alert|<ws>|<site>`: a site's license alerts): every interval after a poll started, backed off
 * exponentially (capped) after a failure; at most one poll of a target runs at a time, and the
 * polls of all targets together are bounded (a slow upstream holds at most its own slots).
 */
import pLimit from 'p-limit';
import { doubledWaitMs } from '../time.js';
import type { Clock } from '../watch/types.js';

export interface PollTargetsOptions {
  clock: Clock;
  /** Time between two polls of a target. */
  intervalMs: number;
  /** Backoff cap for a failing target. */
  maxBackoffMs: number;
  /** Polls running at once, all targets together. */
  concurrency: number;
}

export class PollTargets {
  /** Next poll time and failure streak per target. */
  private readonly due = new Map<string, { next: number; failures: number }>();
  /** Polls running, by target: a pass never starts a second poll of a target still running. */
  private readonly polling = new Map<string, Promise<void>>();
  private readonly limit: ReturnType<typeof pLimit>;

  constructor(private readonly o: PollTargetsOptions) {
    this.limit = pLimit(Math.max(1, o.concurrency));
  }

  isDue(k: string): boolean {
    return (this.due.get(k)?.next ?? 0) <= this.o.clock.now();
  }

  /** A poll that started at `start` succeeded: the next one is an interval later. */
  polled(k: string, start: number): void {
    this.due.set(k, { next: start + this.o.intervalMs, failures: 0 });
  }

  /** A poll failed: backed off; returns the failure streak. */
  failed(k: string): number {
    const d = this.due.get(k) ?? { next: 0, failures: 0 };
    d.failures++;
    d.next = this.o.clock.now() + doubledWaitMs(this.o.intervalMs, d.failures, this.o.maxBackoffMs);
    this.due.set(k, d);
    return d.failures;
  }

  /** True while a poll of the target runs. */
  busy(k: string): boolean {
    return this.polling.has(k);
  }

  /** The polls running now (shutdown waits for them). */
  inFlight(): Promise<void>[] {
    return [...this.polling.values()];
  }

  /**
   * Start one poll (bounded, at most one per target, skipped when no longer due once its turn
   * comes); when it found something, `onFound` runs (the target stays busy until it is done).
   * Resolves when both are done; never rejects (`onError` hears what failed).
   */
  start(
    k: string,
    poll: () => Promise<boolean>,
    onFound: () => Promise<void>,
    onError: (err: unknown) => void,
  ): Promise<void> {
    const p = this.limit(async () => {
      if (!this.isDue(k)) return false;
      return poll();
    })
      .then(async (found) => {
        if (found) await onFound();
      })
      .catch(onError)
      .finally(() => {
        if (this.polling.get(k) === p) this.polling.delete(k);
      });
    this.polling.set(k, p);
    return p;
  }
}
