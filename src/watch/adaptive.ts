/**
 * Adaptive polling policy (pure, clock-free): when a site is polled next, and how many upstream
 * calls a workspace may spend.
 *
 * - A site with jobs in flight, or whose last cycle saw a change, is polled every
 *   `activeIntervalMs` (default 2 s), +-jitter: a finished job is heard about within seconds.
 * - After that, each quiet cycle (no job in flight, no change) doubles the delay, up to the idle
 *   interval (POLL_INTERVAL_SECONDS, default 60 s): 2, 4, 8, 16, 32, 60 s.
 * - At the idle interval the jitter only ever LENGTHENS the delay (idle .. idle x (1 + jitter)):
 *   an idle site never costs more calls than a fixed poller at the idle interval (2 calls per
 *   cycle either way: the in-flight query and the terminal-window query).
 * - Upstream 429 that the API layer's own retries (which honour Retry-After) did not absorb: the
 *   whole workspace cools down for the Retry-After the error carries (TransportError
 *   `retryAfterMs`, duck-typed: the seconds or HTTP date of the service's last answer, capped by
 *   the HTTP layer at 15 min), and the site that got it waits that long plus at most the jitter
 *   (not shorter, not much longer); with no Retry-After, one idle interval (at least). A 503 that
 *   carries a Retry-After is honoured the same way; one without is an ordinary failure
 *   (exponential backoff). See `rateLimitWaitMs` and `retryAfterOf`.
 * - Per-workspace call budget (`CallBudget`): a token bucket of `perMinute` calls refilled
 *   continuously, one minute deep. A cycle is started only when the bucket holds at least the
 *   calls the site's previous cycle cost; otherwise the site waits until it does. The budget is
 *   per replica (each replica spends its own; with N replicas a workspace may use N x budget).
 */

export interface AdaptivePolicy {
  /** Idle (longest) interval, ms. */
  idleMs: number;
  /** Interval while jobs are in flight or just changed, ms. */
  activeMs: number;
  /** Jitter as a fraction (+-, upward only at the idle interval). */
  jitter: number;
}

export interface CycleActivity {
  inflight: number;
  changed: number;
}

/**
 * Delay before the next poll of a site, and the new count of consecutive quiet cycles.
 * `random` in [0, 1).
 */
export function nextPollDelay(
  p: AdaptivePolicy,
  quietBefore: number,
  activity: CycleActivity | undefined,
  random: number,
): { delayMs: number; quiet: number } {
  const active = activity !== undefined && (activity.inflight > 0 || activity.changed > 0);
  const quiet = active ? 0 : quietBefore + 1;
  const activeMs = Math.min(p.activeMs, p.idleMs);
  // quiet = 0: active interval; each quiet cycle doubles it, capped at the idle interval.
  const base = Math.min(p.idleMs, activeMs * 2 ** Math.min(quiet, 30));
  if (base >= p.idleMs) return { delayMs: p.idleMs * (1 + random * p.jitter), quiet };
  return { delayMs: base * (1 + (random * 2 - 1) * p.jitter), quiet };
}

/** The Retry-After (ms) an upstream 429 or 503 carried; undefined when none (or another error). */
export function retryAfterOf(e: unknown): number | undefined {
  if (!e || typeof e !== 'object') return undefined;
  const x = e as { status?: unknown; kind?: unknown; retryAfterMs?: unknown };
  if (x.kind !== 'transport' || (x.status !== 429 && x.status !== 503)) return undefined;
  if (typeof x.retryAfterMs === 'number' && Number.isFinite(x.retryAfterMs) && x.retryAfterMs > 0) {
    return x.retryAfterMs;
  }
  return undefined;
}

/**
 * How long a workspace waits after an upstream 429 its retries did not absorb: the Retry-After
 * it carried, else `fallbackMs`. A 503 only when it carried a Retry-After; otherwise undefined.
 */
export function rateLimitWaitMs(e: unknown, fallbackMs: number): number | undefined {
  const asked = retryAfterOf(e);
  if (asked !== undefined) return asked;
  const x = e as { status?: unknown; kind?: unknown } | null | undefined;
  return x && typeof x === 'object' && x.kind === 'transport' && x.status === 429 ? fallbackMs : undefined;
}

/** Token bucket of upstream calls per minute for one workspace (per replica). */
export class CallBudget {
  private tokens: number;
  private at: number;
  constructor(
    private readonly perMinute: number,
    now: number,
  ) {
    this.tokens = perMinute;
    this.at = now;
  }

  private refill(now: number): void {
    if (now > this.at) {
      this.tokens = Math.min(this.perMinute, this.tokens + ((now - this.at) * this.perMinute) / 60_000);
      this.at = now;
    }
  }

  /** 0 when `calls` may be spent now, else the wait (ms) until the bucket holds them. */
  waitFor(calls: number, now: number): number {
    this.refill(now);
    const need = Math.min(calls, this.perMinute);
    if (this.tokens >= need) return 0;
    return Math.ceil(((need - this.tokens) * 60_000) / this.perMinute);
  }

  /** Record calls spent (the bucket may go negative: a cycle's cost is known only after it). */
  spend(calls: number, now: number): void {
    this.refill(now);
    this.tokens -= calls;
  }

  available(now: number): number {
    this.refill(now);
    return this.tokens;
  }
}
