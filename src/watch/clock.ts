/**
 * Clocks for the watcher. `systemClock` is real time. `FakeClock` is virtual time for tests and
 * benchmarks: `sleep` advances the clock instead of waiting (auto-advance), and timers fire when
 * `advance()` moves past them, so hours of polling run in milliseconds.
 */
import type { Clock } from './types.js';

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms))),
  setTimer: (fn, ms) => setTimeout(fn, Math.max(0, ms)),
  clearTimer: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
};

interface FakeTimer {
  id: number;
  at: number;
  fn: () => void;
}

export class FakeClock implements Clock {
  private t: number;
  private timers: FakeTimer[] = [];
  private nextId = 1;
  /** Total virtual time spent in sleep() (rate limits, Retry-After waits). */
  slept = 0;

  constructor(startMs = Date.UTC(2026, 10, 22, 9, 0, 0)) {
    this.t = startMs;
  }

  now(): number {
    return this.t;
  }

  /** Virtual sleep: moves the clock forward and resolves on the next microtask. */
  async sleep(ms: number): Promise<void> {
    const d = Math.max(0, ms);
    this.slept += d;
    this.t += d;
    await Promise.resolve();
  }

  setTimer(fn: () => void, ms: number): unknown {
    const timer = { id: this.nextId++, at: this.t + Math.max(0, ms), fn };
    this.timers.push(timer);
    return timer.id;
  }

  clearTimer(handle: unknown): void {
    this.timers = this.timers.filter((x) => x.id !== handle);
  }

  /** Move time forward, firing due timers in order. */
  advance(ms: number): void {
    const end = this.t + ms;
    for (;;) {
      this.timers.sort((a, b) => a.at - b.at);
      const next = this.timers[0];
      if (!next || next.at > end) break;
      this.timers.shift();
      this.t = Math.max(this.t, next.at);
      next.fn();
    }
    this.t = Math.max(this.t, end);
  }

  pendingTimers(): number {
    return this.timers.length;
  }
}
