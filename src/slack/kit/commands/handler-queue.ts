/**
 * The bounded queue of post-ack work (slash command handlers). The ack goes out first, then the
 * handler runs here: at most `concurrency` at a time, at most `maxPending` waiting. Under a burst,
 * acks (Slack's 3 s) no longer compete on the event loop with hundreds of handlers started at
 * once, and the memory held by handlers in progress is bounded.
 *
 * - Nothing is dropped silently: `run` says 'busy' when the queue is full (the caller answers the
 *   user "busy, try again") and 'cancelled' when the queue was closed before the task started
 *   (shutdown: the drain has answered that request; see app.ts).
 * - Work that must use the trigger id (a modal: 3 s) does not wait here: the caller runs it at once
 *   (see slash.ts), so a queue full of slow commands never costs a form its trigger.
 * - One queue per app (per-app state, ../app-state.ts), so two apps in one process never share one.
 */
import pLimit, { type LimitFunction } from 'p-limit';
import type { Config } from '../../../config.js';
import { appState } from '../app-state.js';

export type QueueOutcome = 'done' | 'busy' | 'cancelled';

export class HandlerQueue {
  private readonly limit: LimitFunction;
  private closed = false;

  constructor(
    readonly concurrency: number,
    readonly maxPending: number,
  ) {
    this.limit = pLimit({ concurrency, rejectOnClear: true });
  }

  /** Handlers running now. */
  get active(): number {
    return this.limit.activeCount;
  }

  /** Handlers waiting for a slot. */
  get pending(): number {
    return this.limit.pendingCount;
  }

  /**
   * Run `task` when a slot is free. Resolves when it has finished ('done'; its own errors are the
   * task's to answer and are rethrown), at once with 'busy' when `maxPending` tasks already wait,
   * or with 'cancelled' when the queue is closed before the task starts.
   */
  async run(task: () => Promise<void>): Promise<QueueOutcome> {
    if (this.closed) return 'cancelled';
    if (this.limit.activeCount >= this.concurrency && this.limit.pendingCount >= this.maxPending) {
      return 'busy';
    }
    let started = false;
    try {
      await this.limit(async () => {
        if (this.closed) return;
        started = true;
        await task();
      });
    } catch (err) {
      // clearQueue() rejects the tasks that never started; a started task's error is its own.
      if (!started) return 'cancelled';
      throw err;
    }
    return started ? 'done' : 'cancelled';
  }

  /** No task starts any more; the waiting ones resolve 'cancelled'. Running ones finish. */
  close(): void {
    this.closed = true;
    this.limit.clearQueue();
  }
}

/** The app's handler queue (created from its configuration on first use; see ../app-state.ts). */
export const handlerQueue = appState<
  HandlerQueue,
  { config: Pick<Config, 'handlerConcurrency' | 'handlerQueueMax'> }
>((deps) => new HandlerQueue(deps.config.handlerConcurrency, deps.config.handlerQueueMax));
