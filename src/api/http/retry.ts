/**
 * The retry policy of the HTTP layer and what a failed attempt is. Retries are ONLY for GET
 * (idempotent), on network errors, timeouts, 5xx and 429, with exponential backoff and full
 * jitter (`random() * min(cap, base * 2^n)`), honouring `Retry-After` (seconds or HTTP date) up
 * to `retryAfterCapMs` inline; the TransportError of the last attempt carries the service's
 * `Retry-After` (capped at `retryAfterMaxMs`) and whether the request may have been processed
 * (`ambiguous`). The loop that applies this, within one call's deadline, is HttpClient's
 * (http.ts).
 */
import { z } from 'zod';
import { doubledWaitMs } from '../../time.js';
import { METADATA_REFUSED } from '../addresses.js';
import { ApiError, TransportError } from '../errors.js';
import { serverText } from '../server-text.js';

export interface RetryPolicy {
  /** Backoff base, ms. */
  backoffBaseMs: number;
  /** Backoff cap, ms. */
  backoffMaxMs: number;
  /** Longest Retry-After waited inline before a retry, ms (longer: no retry). */
  retryAfterCapMs: number;
  random: () => number;
}

/** Backoff before retry number `n` (0-based): full jitter, or the server's Retry-After. */
export function backoffMs(p: RetryPolicy, n: number, retryAfterMs: number | undefined): number {
  if (retryAfterMs !== undefined) return Math.min(retryAfterMs, p.retryAfterCapMs);
  const ceiling = doubledWaitMs(p.backoffBaseMs, n, p.backoffMaxMs);
  return Math.floor(p.random() * ceiling);
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
  METADATA_REFUSED,
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
    case METADATA_REFUSED:
      return 'the host name resolves to a cloud metadata address; the bot never connects there';
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
      return 'connection closed by the server';
    case 'UNSUPPORTED_CONTENT_ENCODING':
      return 'the answer is compressed in a way this bot cannot read (Content-Encoding other than gzip, deflate or br)';
    case 'Z_DATA_ERROR':
    case 'Z_BUF_ERROR':
    case 'ERR_BROTLI_DECOMPRESSION_FAILED':
      return 'the compressed answer is corrupt';
    default:
      return code ? `network error ${code}` : 'network error';
  }
}

/** " after 3 attempts" past the first attempt, "" on it. */
const afterAttempts = (attempt: number) => (attempt > 1 ? ` after ${attempt} attempts` : '');

/**
 * An attempt that threw (network error, timeout, a body that could not be decoded): the error to
 * throw, whether a GET may try again, and the error's code (for the log). An ApiError that is not
 * a network failure is thrown as it is.
 */
export function networkFailure(
  endpoint: string,
  e: unknown,
  attempt: number,
): { failure: ApiError; retry: boolean; code: string | undefined } {
  const code = errCode(e);
  const retry = code !== undefined && RETRYABLE_CODES.has(code);
  if (!retry && e instanceof ApiError) return { failure: e, retry, code };
  const failure = new TransportError(
    endpoint,
    `${endpoint}: ${describeNetworkError(code)}${afterAttempts(attempt)}`,
    undefined,
    attempt,
    e,
    !(code && NOT_SENT_CODES.has(code)),
  );
  return { failure, retry, code };
}

/** An answer worth trying again (GET only): 429 or a server error. */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || status >= 500;
}

/** The failure of an attempt answered 429 or 5xx, with what the service said and its Retry-After. */
export function statusFailure(
  endpoint: string,
  status: number,
  attempt: number,
  text: string,
  retryAfterMs: number | undefined,
): TransportError {
  const said = serverText(text);
  return new TransportError(
    endpoint,
    `${endpoint}: the service answered HTTP ${status}${afterAttempts(attempt)}${said ? `, saying "${said}"` : ''}`,
    status,
    attempt,
    undefined,
    // 429 means "not processed"; a 5xx may have been processed.
    status !== 429,
    retryAfterMs,
  );
}

/** No complete answer within one call's deadline (every attempt, wait, header and body). */
export function deadlineFailure(endpoint: string, deadlineMs: number, attempt: number): TransportError {
  return new TransportError(
    endpoint,
    `${endpoint}: no complete answer within the ${Number((deadlineMs / 1000).toFixed(1))} s deadline of one call (UPSTREAM_CALL_DEADLINE_MS)${afterAttempts(attempt)}`,
    undefined,
    attempt,
    undefined,
    true,
  );
}

/** The Retry-After header as received (undici gives a string, or an array when repeated). */
const retryAfterHeader = z
  .union([z.string(), z.array(z.string()).min(1)])
  .transform((v) => (Array.isArray(v) ? (v[0] as string) : v).trim());
/** RFC 9110 delta-seconds (decimals tolerated), or an HTTP date (IMF-fixdate and the older forms). */
const retryAfterValue = z.union([
  z
    .string()
    .regex(/^\d{1,10}(\.\d+)?$/)
    .transform((v) => ({ seconds: Number(v) })),
  z
    .string()
    .regex(/[A-Za-z]/)
    .refine((v) => !Number.isNaN(Date.parse(v)))
    .transform((v) => ({ date: Date.parse(v) })),
]);

/**
 * Parse Retry-After (delta seconds or HTTP date) into ms (0 for a date in the past), or undefined
 * when absent or not understood. `capMs` bounds the result (a date years ahead is not honoured).
 */
export function parseRetryAfter(
  value: string | string[] | undefined,
  nowMs: number,
  capMs = Number.POSITIVE_INFINITY,
): number | undefined {
  const header = retryAfterHeader.safeParse(value);
  if (!header.success) return undefined;
  const parsed = retryAfterValue.safeParse(header.data);
  if (!parsed.success) return undefined;
  const ms =
    'seconds' in parsed.data ? Math.round(parsed.data.seconds * 1000) : Math.max(0, parsed.data.date - nowMs);
  return Math.min(ms, capMs);
}
