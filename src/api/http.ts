/**
 * The one HTTP layer of the API module, on undici.
 *
 * - One keep-alive `Pool` per origin, shared by every client of the process (many workspaces and
 *   sites talk to the same one or two origins).
 * - Base URLs may carry a path prefix (`http://127.0.0.1:4010/wm`): the prefix is kept and the
 *   endpoint path appended.
 * - Timeouts: connect / headers / body, configurable.
 * - Retries: ONLY for GET (idempotent), on network errors, timeouts, 5xx and 429, with exponential
 *   backoff and full jitter (`random() * min(cap, base * 2^n)`), honouring `Retry-After` (seconds
 *   or HTTP date, capped at `retryAfterCapMs`).
 * - POST and PUT are never retried. Registration (POST /api/recipient) is kept safe another way:
 *   after an ambiguous failure (`TransportError.ambiguous`: the request may have reached the
 *   server) the ops layer reconciles by searching for the names it sent. Names are unique per site
 *   case-insensitively, so a name found afterwards was registered by that request, and a second
 *   attempt is only made for names not found: nothing can be registered twice.
 * - Logs at debug with endpoint, method, status, duration and attempt; never headers or bodies.
 * - Records `serviceCallSeconds` per attempt. Final errors are counted in `serviceCallErrors` by
 *   `recordCallError`, called once per logical call by the clients (see `runCall`).
 */
import { type FormData, Pool } from 'undici';
import { type Logger, logger as rootLogger } from '../log.js';
import { serviceCallErrors, serviceCallSeconds } from '../metrics.js';
import { ApiError, TransportError, ValidationError } from './errors.js';
import { urlForMessage } from './validate.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT';

export type QueryValue = string | number | boolean | undefined | null | ReadonlyArray<string | number>;
export type QueryParams = Record<string, QueryValue>;

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
  /** Keep-alive idle timeout of pooled sockets, ms. Default 30000. */
  keepAliveTimeoutMs?: number;
  /** Max sockets per origin. Default 16. */
  connectionsPerOrigin?: number;
  /** Retries (after the first attempt) for GET. Default 3. */
  retries?: number;
  /** Backoff base, ms. Default 200. */
  backoffBaseMs?: number;
  /** Backoff cap, ms. Default 5000. */
  backoffMaxMs?: number;
  /** Largest Retry-After honoured, ms. Default 30000. */
  retryAfterCapMs?: number;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  now?: () => number;
  logger?: Logger;
}

const RETRYABLE_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CLOSED',
]);

/** Errors that prove the request never left (nothing can have been processed). */
const NOT_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_INVALID_ARG',
]);

function errCode(e: unknown): string | undefined {
  if (e && typeof e === 'object') {
    const c = (e as { code?: unknown }).code;
    if (typeof c === 'string') return c;
    const cause = (e as { cause?: unknown }).cause;
    if (cause && cause !== e) return errCode(cause);
  }
  return undefined;
}

function describeNetworkError(code: string | undefined): string {
  switch (code) {
    case 'UND_ERR_CONNECT_TIMEOUT':
      return 'connect timeout';
    case 'UND_ERR_HEADERS_TIMEOUT':
      return 'timed out waiting for the response';
    case 'UND_ERR_BODY_TIMEOUT':
      return 'timed out reading the response body';
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
      return 'connection closed by the server';
    default:
      return code ? `network error ${code}` : 'network error';
  }
}

/** Parse Retry-After (delta seconds or HTTP date) into ms, or undefined. */
export function parseRetryAfter(value: string | string[] | undefined, nowMs: number): number | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  if (!v) return undefined;
  const trimmed = v.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - nowMs);
}

/** A base URL that cannot be used (never echoes the URL's secrets). */
export class BaseUrlError extends Error {
  override readonly name = 'BaseUrlError';
}

/** Turns a base URL (with optional path prefix) + path + query into origin and request path. */
export function buildTarget(
  baseUrl: string,
  path: string,
  query?: QueryParams,
): { origin: string; path: string } {
  // Messages never carry the URL's query, fragment or user:password (see urlForMessage), and no
  // `cause` is kept: Node's "Invalid URL" TypeError holds the whole input in its `input` field,
  // which a log serialiser would print.
  let u: URL;
  try {
    u = new URL(baseUrl);
  } catch {
    throw new BaseUrlError(`The base URL "${urlForMessage(baseUrl)}" is not a valid URL.`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    throw new BaseUrlError(`The base URL must start with http:// or https://, not ${u.protocol}//.`);
  }
  if (u.username || u.password) {
    // The pool connects to the origin only, so these would be dropped silently; and a password in
    // a URL ends up in logs and error reports. Refused instead.
    throw new BaseUrlError('The base URL must not contain a user name or password.');
  }
  const prefix = u.pathname.replace(/\/+$/, '');
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {})) {
    if (v === undefined || v === null) continue;
    if (Array.isArray(v)) for (const item of v) qs.append(k, String(item));
    else qs.append(k, String(v));
  }
  const q = qs.toString();
  return { origin: u.origin, path: `${prefix}${path}${q ? `?${q}` : ''}` };
}

export class HttpClient {
  private readonly pools = new Map<string, Pool>();
  private readonly o: Required<Omit<HttpOptions, 'logger'>> & { logger: Logger };

  constructor(opts: HttpOptions = {}) {
    this.o = {
      connectTimeoutMs: opts.connectTimeoutMs ?? 5_000,
      headersTimeoutMs: opts.headersTimeoutMs ?? 10_000,
      bodyTimeoutMs: opts.bodyTimeoutMs ?? 30_000,
      keepAliveTimeoutMs: opts.keepAliveTimeoutMs ?? 30_000,
      connectionsPerOrigin: opts.connectionsPerOrigin ?? 16,
      retries: opts.retries ?? 3,
      backoffBaseMs: opts.backoffBaseMs ?? 200,
      backoffMaxMs: opts.backoffMaxMs ?? 5_000,
      retryAfterCapMs: opts.retryAfterCapMs ?? 30_000,
      sleep: opts.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms))),
      random: opts.random ?? Math.random,
      now: opts.now ?? Date.now,
      logger: opts.logger ?? rootLogger,
    };
  }

  private pool(origin: string): Pool {
    let p = this.pools.get(origin);
    if (!p) {
      p = new Pool(origin, {
        connections: this.o.connectionsPerOrigin,
        connectTimeout: this.o.connectTimeoutMs,
        headersTimeout: this.o.headersTimeoutMs,
        bodyTimeout: this.o.bodyTimeoutMs,
        keepAliveTimeout: this.o.keepAliveTimeoutMs,
      });
      this.pools.set(origin, p);
    }
    return p;
  }

  /** Backoff before retry number `n` (0-based): full jitter, or the server's Retry-After. */
  backoffMs(n: number, retryAfterMs: number | undefined): number {
    if (retryAfterMs !== undefined) return Math.min(retryAfterMs, this.o.retryAfterCapMs);
    const ceiling = Math.min(this.o.backoffMaxMs, this.o.backoffBaseMs * 2 ** n);
    return Math.floor(this.o.random() * ceiling);
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
    const pool = this.pool(target.origin);
    const idempotent = req.method === 'GET';
    const maxAttempts = idempotent ? this.o.retries + 1 : 1;
    const log = this.o.logger;

    const headers: Record<string, string> = { accept: 'application/json', ...req.headers };
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

    for (let attempt = 1; ; attempt++) {
      const started = this.o.now();
      const endTimer = serviceCallSeconds.startTimer({ endpoint: req.endpoint });
      let status: number | undefined;
      let retryAfterMs: number | undefined;
      let failure: TransportError;
      try {
        const res = await pool.request({
          method: req.method,
          path: target.path,
          headers,
          body: body as never,
          headersTimeout: this.o.headersTimeoutMs,
          bodyTimeout: this.o.bodyTimeoutMs,
        });
        status = res.statusCode;
        const text = await res.body.text();
        endTimer();
        log.debug(
          { endpoint: req.endpoint, method: req.method, status, ms: this.o.now() - started, attempt },
          'service call',
        );
        const retryable = status === 429 || status >= 500;
        if (!retryable) return { status, headers: res.headers, text, attempts: attempt };
        retryAfterMs = parseRetryAfter(res.headers['retry-after'], this.o.now());
        failure = new TransportError(
          req.endpoint,
          `${req.endpoint}: the service answered HTTP ${status}${attempt > 1 ? ` after ${attempt} attempts` : ''}`,
          status,
          attempt,
          undefined,
          // 429 means "not processed"; a 5xx may have been processed.
          status !== 429,
        );
      } catch (e) {
        endTimer();
        const code = errCode(e);
        log.debug(
          { endpoint: req.endpoint, method: req.method, code, ms: this.o.now() - started, attempt },
          'service call failed',
        );
        if (!code || !RETRYABLE_CODES.has(code)) {
          if (e instanceof ApiError) throw e;
        }
        failure = new TransportError(
          req.endpoint,
          `${req.endpoint}: ${describeNetworkError(code)}${attempt > 1 ? ` after ${attempt} attempts` : ''}`,
          undefined,
          attempt,
          e,
          !(code && NOT_SENT_CODES.has(code)),
        );
        if (!code || !RETRYABLE_CODES.has(code)) throw failure;
      }
      if (attempt >= maxAttempts) throw failure;
      const wait = this.backoffMs(attempt - 1, retryAfterMs);
      log.debug({ endpoint: req.endpoint, status, attempt, waitMs: wait }, 'retrying service call');
      await this.o.sleep(wait);
    }
  }

  async close(): Promise<void> {
    const pools = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(pools.map((p) => p.close().catch(() => p.destroy())));
  }
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
