/**
 * The one HTTP layer of the API module, on undici.
 *
 * - One keep-alive `Pool` per origin, shared by every client of the process (many workspaces and
 *   sites talk to the same one or two origins).
 * - Base URLs may carry a path prefix (`http://127.0.0.1:4010/wm`): the prefix is kept and the
 *   endpoint path appended.
 * - Upstream allow-list (origins.ts): every request's origin is checked HERE, before a pool or a
 *   socket exists for it; a refused origin is an OriginRefusedError (a ValidationError: nothing
 *   was sent).
 * - Timeouts: connect / headers / body, configurable, and ONE total deadline per call
 *   (`deadlineMs`) covering every attempt, the waits between them, the headers and the whole body:
 *   a server that drips a byte every few seconds (each gap within the body timeout) is cut off at
 *   the deadline.
 * - Response size cap (`maxResponseBytes`, default 10 MB): a larger answer (by Content-Length, or
 *   counted while reading) is abandoned with a TransportError; the process never buffers more.
 * - Pools of origins not used for `poolIdleCloseMs` (and with nothing in flight) are closed, so a
 *   base URL changed in setup does not leave its old pool behind.
 * - Retries: ONLY for GET (idempotent), on network errors, timeouts, 5xx and 429, with exponential
 *   backoff and full jitter (`random() * min(cap, base * 2^n)`), honouring `Retry-After` (seconds
 *   or HTTP date). A call waits inline at most `retryAfterCapMs` (30 s): a service asking for
 *   longer is not retried early (that would not respect it); the call fails at once instead.
 * - The TransportError thrown after the retries carries the last `Retry-After` as `retryAfterMs`
 *   (capped at `retryAfterMaxMs`, 15 min, so a bogus far-future date cannot park a caller for
 *   days): callers that come back by themselves (the job watcher, src/watch/adaptive.ts) wait
 *   that long before calling again.
 * - POST and PUT are never retried. Registration (POST /api/recipient) is kept safe another way:
 *   after an ambiguous failure (`TransportError.ambiguous`: the request may have reached the
 *   server) the ops layer reconciles by searching for the names it sent. Names are unique per site
 *   case-insensitively, so a name found afterwards was registered by that request, and a second
 *   attempt is only made for names not found: nothing can be registered twice.
 * - Compressed answers (Content-Encoding gzip, deflate, br) are decompressed as they are read, the
 *   size cap counting the DECOMPRESSED bytes (a small bomb cannot fill the memory); the request
 *   says `accept-encoding: gzip, deflate, br` because it can. A leading byte order mark is dropped
 *   (JSON.parse refuses it).
 * - Redirects (3xx) are never followed: following one could take a request (and its credentials)
 *   to an origin the upstream allow-list never saw. The TransportError names the Location's
 *   origin ("the service moved to ...: set the base URL").
 * - Every request says `user-agent: drm-chatops/<version>` (package.json).
 * - Logs at debug with endpoint, method, status, duration and attempt; never headers or bodies.
 * - Records `serviceCallSeconds` per attempt. Final errors are counted in `serviceCallErrors` by
 *   `recordCallError`, called once per logical call by the clients (see `runCall`).
 *
 * Here: the pools, the request and its attempt loop within the deadline. Beside it in
 * src/api/http/: target.ts (where a request goes and may go: base URL, query, allow-list refusal,
 * redirects), retry.ts (the retry policy and what a failed attempt is), body.ts (reading the
 * answer: decompression, the size cap).
 */
import { readFileSync } from 'node:fs';
import { type FormData, Pool } from 'undici';
import { type Logger, logger as rootLogger } from '../log.js';
import { serviceCallErrors, serviceCallSeconds } from '../metrics.js';
import { guardedLookup, type LookupFn } from './addresses.js';
import { ApiError, ValidationError } from './errors.js';
import { BodyTooLarge, readCapped, tooLargeFailure } from './http/body.js';
import {
  backoffMs,
  deadlineFailure,
  isRetryableStatus,
  networkFailure,
  parseRetryAfter,
  statusFailure,
} from './http/retry.js';
import {
  BaseUrlError,
  buildTarget,
  OriginRefusedError,
  type QueryParams,
  redirectError,
} from './http/target.js';
import type { OriginPolicy } from './origins.js';

export type { QueryParams, QueryValue } from './http/target.js';
/** Thrown by `request` when the allow-list refuses the origin (callers catch it from here). */
export { OriginRefusedError } from './http/target.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT';

export type RequestBody =
  | { kind: 'json'; value: unknown }
  | { kind: 'form'; value: Record<string, string> }
  | { kind: 'multipart'; value: FormData };

export interface HttpRequest {
  /** Logical endpoint name for logs/metrics/errors, e.g. "wm.searchJobs". */
  endpoint: string;
  method: HttpMethod;
  baseUrl: string;
  /** Path after the base URL, starting with "/". Path variables already encoded. */
  path: string;
  query?: QueryParams;
  headers?: Record<string, string>;
  body?: RequestBody;
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  attempts: number;
}

export interface HttpOptions {
  /** TCP/TLS connect timeout, ms. Default 5000. */
  connectTimeoutMs?: number;
  /** Time to receive the response headers, ms. Default 10000. */
  headersTimeoutMs?: number;
  /** Idle time between body chunks, ms. Default 30000. */
  bodyTimeoutMs?: number;
  /**
   * Keep-alive idle timeout of pooled sockets, ms. Default 4000 (undici's): below the 5 s that
   * Node's and many other servers close idle connections after, so a request is not written to a
   * socket the server is closing (ECONNRESET; a POST is then not retried and may be ambiguous).
   * undici also honours a shorter `Keep-Alive: timeout=` hint from the server.
   */
  keepAliveTimeoutMs?: number;
  /** Max sockets per origin. Default 16. */
  connectionsPerOrigin?: number;
  /** Retries (after the first attempt) for GET. Default 3. */
  retries?: number;
  /** Backoff base, ms. Default 200. */
  backoffBaseMs?: number;
  /** Backoff cap, ms. Default 5000. */
  backoffMaxMs?: number;
  /** Longest Retry-After waited inline before a retry, ms (longer: no retry). Default 30000. */
  retryAfterCapMs?: number;
  /** Largest Retry-After carried on the final TransportError (`retryAfterMs`), ms. Default 900000. */
  retryAfterMaxMs?: number;
  /** Total time of one call: all attempts, waits, headers and body, ms. Default 30000. */
  deadlineMs?: number;
  /** Largest response body read, bytes. Default 10 MB. */
  maxResponseBytes?: number;
  /** Close the pool of an origin unused (and idle) this long, ms. Default 300000. */
  poolIdleCloseMs?: number;
  /** Upstream allow-list; undefined = every http(s) origin (tests and tools; main always sets it). */
  originPolicy?: OriginPolicy;
  /** Name resolver used at connect time (tests); always wrapped to refuse metadata addresses. */
  resolve?: LookupFn;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  now?: () => number;
  logger?: Logger;
}

interface PoolEntry {
  pool: Pool;
  lastUsed: number;
  inflight: number;
}

export class HttpClient {
  private readonly pools = new Map<string, PoolEntry>();
  private readonly o: Required<Omit<HttpOptions, 'logger' | 'originPolicy' | 'resolve'>> & {
    logger: Logger;
    originPolicy: OriginPolicy | undefined;
  };
  private readonly lookup: LookupFn;
  private sweepTimer: NodeJS.Timeout | undefined;

  constructor(opts: HttpOptions = {}) {
    this.o = {
      connectTimeoutMs: opts.connectTimeoutMs ?? 5_000,
      headersTimeoutMs: opts.headersTimeoutMs ?? 10_000,
      bodyTimeoutMs: opts.bodyTimeoutMs ?? 30_000,
      keepAliveTimeoutMs: opts.keepAliveTimeoutMs ?? 4_000,
      connectionsPerOrigin: opts.connectionsPerOrigin ?? 16,
      retries: opts.retries ?? 3,
      backoffBaseMs: opts.backoffBaseMs ?? 200,
      backoffMaxMs: opts.backoffMaxMs ?? 5_000,
      retryAfterCapMs: opts.retryAfterCapMs ?? 30_000,
      retryAfterMaxMs: opts.retryAfterMaxMs ?? 15 * 60_000,
      deadlineMs: opts.deadlineMs ?? 30_000,
      maxResponseBytes: opts.maxResponseBytes ?? 10 * 1024 * 1024,
      poolIdleCloseMs: opts.poolIdleCloseMs ?? 300_000,
      originPolicy: opts.originPolicy,
      sleep: opts.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms))),
      random: opts.random ?? Math.random,
      now: opts.now ?? Date.now,
      logger: opts.logger ?? rootLogger,
    };
    this.lookup = guardedLookup(opts.resolve);
  }

  private pool(origin: string): PoolEntry {
    let p = this.pools.get(origin);
    if (!p) {
      p = {
        pool: new Pool(origin, {
          connections: this.o.connectionsPerOrigin,
          connectTimeout: this.o.connectTimeoutMs,
          headersTimeout: this.o.headersTimeoutMs,
          bodyTimeout: this.o.bodyTimeoutMs,
          keepAliveTimeout: this.o.keepAliveTimeoutMs,
          // Host names are resolved through a lookup that refuses metadata addresses.
          connect: { lookup: this.lookup } as never,
        }),
        lastUsed: this.o.now(),
        inflight: 0,
      };
      this.pools.set(origin, p);
      this.startSweeper();
    }
    return p;
  }

  /** Origins with an open pool (diagnostics and tests). */
  openOrigins(): string[] {
    return [...this.pools.keys()];
  }

  /** Close the pools of origins unused for poolIdleCloseMs with nothing in flight. */
  sweepIdlePools(): void {
    const now = this.o.now();
    for (const [origin, p] of this.pools) {
      if (p.inflight > 0 || now - p.lastUsed < this.o.poolIdleCloseMs) continue;
      this.pools.delete(origin);
      p.pool.close().catch(() => p.pool.destroy().catch(() => undefined));
      this.o.logger.debug({ origin }, 'closed idle upstream pool');
    }
    if (this.pools.size === 0) this.stopSweeper();
  }

  private startSweeper(): void {
    if (this.sweepTimer) return;
    this.sweepTimer = setInterval(() => this.sweepIdlePools(), Math.min(this.o.poolIdleCloseMs, 60_000));
    this.sweepTimer.unref();
  }

  private stopSweeper(): void {
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    this.sweepTimer = undefined;
  }

  /** Backoff before retry number `n` (0-based): full jitter, or the server's Retry-After. */
  backoffMs(n: number, retryAfterMs: number | undefined): number {
    return backoffMs(this.o, n, retryAfterMs);
  }

  /**
   * Send a request. Resolves with any response that is not retryable (2xx, 3xx, 4xx except 429),
   * and with 429/5xx of a POST/PUT as a TransportError. Throws TransportError when the retries of
   * a GET are used up or on a network error.
   */
  async request(req: HttpRequest): Promise<HttpResponse> {
    let target: { origin: string; path: string };
    try {
      target = buildTarget(req.baseUrl, req.path, req.query);
    } catch (e) {
      if (e instanceof BaseUrlError) {
        throw new ValidationError(req.endpoint, [{ field: 'base URL', message: e.message }]);
      }
      throw e;
    }
    // The allow-list: checked here, before any pool or socket exists for the origin.
    const refusal = this.o.originPolicy?.check(req.baseUrl);
    if (refusal) throw new OriginRefusedError(req.endpoint, refusal);
    this.sweepIdlePools();
    const entry = this.pool(target.origin);
    const pool = entry.pool;
    const deadlineAt = performance.now() + this.o.deadlineMs;
    const idempotent = req.method === 'GET';
    const maxAttempts = idempotent ? this.o.retries + 1 : 1;

    const headers: Record<string, string> = {
      accept: 'application/json',
      'accept-encoding': 'gzip, deflate, br',
      'user-agent': USER_AGENT,
      ...req.headers,
    };
    let body: string | FormData | undefined;
    if (req.body?.kind === 'json') {
      headers['content-type'] = 'application/json;charset=UTF-8';
      body = JSON.stringify(req.body.value);
    } else if (req.body?.kind === 'form') {
      headers['content-type'] = 'application/x-www-form-urlencoded;charset=UTF-8';
      body = new URLSearchParams(req.body.value).toString();
    } else if (req.body?.kind === 'multipart') {
      body = req.body.value; // undici sets the multipart content-type with its boundary
    }

    entry.inflight++;
    try {
      return await this.attempts(req, target, pool, entry, headers, body, deadlineAt, maxAttempts);
    } finally {
      entry.inflight--;
      entry.lastUsed = this.o.now();
    }
  }

  private async attempts(
    req: HttpRequest,
    target: { origin: string; path: string },
    pool: Pool,
    entry: PoolEntry,
    headers: Record<string, string>,
    body: string | FormData | undefined,
    deadlineAt: number,
    maxAttempts: number,
  ): Promise<HttpResponse> {
    const log = this.o.logger;
    for (let attempt = 1; ; attempt++) {
      const started = this.o.now();
      const endTimer = serviceCallSeconds.startTimer({ endpoint: req.endpoint });
      let status: number | undefined;
      let retryAfterMs: number | undefined;
      let failure: ApiError;
      const remaining = deadlineAt - performance.now();
      const ac = new AbortController();
      let timedOut = false;
      const timer = setTimeout(
        () => {
          timedOut = true;
          ac.abort();
        },
        Math.max(1, remaining),
      );
      entry.lastUsed = this.o.now();
      try {
        const res = await pool.request({
          method: req.method,
          path: target.path,
          headers,
          body: body as never,
          headersTimeout: this.o.headersTimeoutMs,
          bodyTimeout: this.o.bodyTimeoutMs,
          signal: ac.signal,
        });
        status = res.statusCode;
        const declared = Number(res.headers['content-length']);
        if (Number.isFinite(declared) && declared > this.o.maxResponseBytes) {
          res.body.destroy();
          throw new BodyTooLarge();
        }
        const text = await readCapped(res.body, res.headers['content-encoding'], this.o.maxResponseBytes);
        clearTimeout(timer);
        endTimer();
        log.debug(
          { endpoint: req.endpoint, method: req.method, status, ms: this.o.now() - started, attempt },
          'service call',
        );
        if (status >= 300 && status < 400)
          throw redirectError(req.endpoint, status, res.headers.location, target, attempt);
        if (!isRetryableStatus(status)) return { status, headers: res.headers, text, attempts: attempt };
        retryAfterMs = parseRetryAfter(res.headers['retry-after'], this.o.now(), this.o.retryAfterMaxMs);
        failure = statusFailure(req.endpoint, status, attempt, text, retryAfterMs);
        // Asked to wait longer than a call may wait inline: retrying early would not respect it.
        if (retryAfterMs !== undefined && retryAfterMs > this.o.retryAfterCapMs) throw failure;
      } catch (e) {
        clearTimeout(timer);
        endTimer();
        if (e instanceof BodyTooLarge) {
          log.debug({ endpoint: req.endpoint, method: req.method, status, attempt }, 'response too large');
          throw tooLargeFailure(req.endpoint, this.o.maxResponseBytes, attempt, req.method);
        }
        if (timedOut) {
          log.debug({ endpoint: req.endpoint, method: req.method, attempt }, 'service call deadline');
          throw deadlineFailure(req.endpoint, this.o.deadlineMs, attempt);
        }
        const network = networkFailure(req.endpoint, e, attempt);
        log.debug(
          {
            endpoint: req.endpoint,
            method: req.method,
            code: network.code,
            ms: this.o.now() - started,
            attempt,
          },
          'service call failed',
        );
        if (!network.retry) throw network.failure;
        failure = network.failure;
      }
      if (attempt >= maxAttempts) throw failure;
      const wait = this.backoffMs(attempt - 1, retryAfterMs);
      // No retry that could not finish within the call's deadline.
      if (performance.now() + wait >= deadlineAt) throw failure;
      log.debug({ endpoint: req.endpoint, status, attempt, waitMs: wait }, 'retrying service call');
      await this.o.sleep(wait);
    }
  }

  async close(): Promise<void> {
    this.stopSweeper();
    const pools = [...this.pools.values()].map((e) => e.pool);
    this.pools.clear();
    await Promise.all(pools.map((p) => p.close().catch(() => p.destroy())));
  }
}

/** `drm-chatops/<version>`: the version of package.json (read once). */
const USER_AGENT = `drm-chatops/${packageVersion()}`;

function packageVersion(): string {
  // src/api/http.ts in development, dist/src/api/http.js when built (package.json one level up).
  for (const rel of ['../../package.json', '../../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(rel, import.meta.url), 'utf8')) as {
        name?: unknown;
        version?: unknown;
      };
      if (pkg.name === 'drm-chatops' && typeof pkg.version === 'string') return pkg.version;
    } catch {
      // not there: try the next
    }
  }
  return '0';
}

/** Count one failed logical call by endpoint and error kind. */
export function recordCallError(endpoint: string, e: unknown): void {
  const kind = e instanceof ApiError ? e.kind : 'unknown';
  serviceCallErrors.inc({ endpoint, kind });
}

/** Run one logical call, counting its failure (if any) once. */
export async function runCall<T>(endpoint: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    recordCallError(endpoint, e);
    throw e;
  }
}
