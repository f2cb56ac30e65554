/**
 * The HTTP request gate in front of Bolt's HTTPReceiver. Every request gets an HTTP answer, and
 * nothing is stored for a request that has not proven it comes from Slack.
 *
 * Routing (before Bolt sees anything):
 * - the Slack endpoint (`/slack/events`) with POST: the gate reads the body (bounded size and
 *   time), refuses a timestamp more than 5 minutes ahead (Bolt only bounds the past), verifies the
 *   signature itself (401, nothing stored), then claims the request once against replays (below),
 *   then hands it to Bolt with the body already read (Bolt reuses `rawBody` and verifies again);
 * - the Slack endpoint with another method, or a known operational route (/healthz, /readyz,
 *   /metrics, the OAuth pages) with a method it does not serve: 405 with an Allow header;
 * - anything else goes to Bolt's own routing synchronously, and Bolt's "no such route" throw is
 *   answered 404 here (calling Bolt from inside a promise turned that throw into an unhandled
 *   rejection and left the socket hanging).
 * Only the path is logged, never headers (they carry cookies and credentials) or the body.
 *
 * Replay protection: Slack's signature only bounds a request's age (5 minutes), so a captured,
 * correctly signed request could be sent again within that window and would run again (Bolt does
 * not dedupe). Each (timestamp, signature) pair that passed verification is claimed once in the
 * store for 6 minutes (a lease with a one-off holder: SET NX PX on Redis, so replicas share it); a
 * repeat is answered 200 with no work done, which is also the right answer for a duplicate
 * delivery. The claim waits on the store for `claimTimeoutMs` at most: when the store is slow or
 * down the request is processed (availability first: the signature was verified, and Slack's own
 * 5-minute window still bounds a replay) and the failure is logged, so acks never wait on the
 * store.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../log.js';

export const REPLAY_WINDOW_MS = 6 * 60_000;
/** Slack's rule for a request's timestamp: at most 5 minutes from now, either way. */
export const SIGNATURE_WINDOW_MS = 5 * 60_000;
/** Bolt's own default body limit; Slack's payloads are far smaller. */
export const DEFAULT_BODY_LIMIT = 4 * 1024 * 1024;

export interface ReplayClaims {
  acquire(key: string, holder: string, ttlMs: number): Promise<boolean>;
}

export interface RequestGateOptions {
  signingSecret: string;
  /** Paths of the Slack endpoint (Bolt's `endpoints`, default ['/slack/events']). */
  endpoints?: string[];
  /** Other paths the receiver serves, with their methods (405 for any other method). */
  routes?: Record<string, string[]>;
  claims: ReplayClaims;
  logger: Logger;
  now(): number;
  /** How long the replay claim may wait on the store before the request is processed anyway. */
  claimTimeoutMs?: number;
  bodyLimit?: number;
  /** A body that has not arrived in full by then is answered 408. */
  bodyTimeoutMs?: number;
}

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

/** The store key of a request's replay claim (exported for tests). */
export function replayKey(timestamp: string, signature: string): string {
  return `slack-request-${createHash('sha256').update(`${timestamp}:${signature}`).digest('hex').slice(0, 40)}`;
}

function header(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

/** Characters after which a path needs the URL parser (dot segments, escapes, backslashes). */
const PLAIN_PATH = /^\/[A-Za-z0-9_/-]*$/;

function pathOf(req: IncomingMessage): string | undefined {
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  const raw = q < 0 ? url : url.slice(0, q);
  // The common case (`/slack/events`) needs no URL object; anything unusual is normalised by it.
  if (PLAIN_PATH.test(raw)) return raw;
  try {
    return new URL(req.url ?? '/', 'http://localhost').pathname;
  } catch {
    return undefined;
  }
}

function answer(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  headers: Record<string, string> = {},
) {
  if (res.headersSent) {
    if (!res.writableEnded) res.end();
    return;
  }
  // Drain what the client is still sending so the connection can be reused or closed cleanly.
  if (!req.complete) req.resume();
  res.writeHead(status, headers).end();
}

class BodyError extends Error {
  constructor(readonly status: 408 | 413 | 400) {
    super(`request body: ${status}`);
  }
}

function readBody(req: IncomingMessage, limit: number, timeoutMs: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const declared = Number(header(req.headers['content-length']));
    if (Number.isFinite(declared) && declared > limit) {
      reject(new BodyError(413));
      return;
    }
    const timer = setTimeout(() => finish(new BodyError(408)), timeoutMs);
    timer.unref?.();
    const finish = (err?: Error, body?: Buffer) => {
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      if (err) reject(err);
      else resolve(body ?? Buffer.alloc(0));
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        finish(new BodyError(413));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => finish(undefined, Buffer.concat(chunks));
    const onError = () => finish(new BodyError(400));
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`no answer from the store within ${ms} ms`)), ms);
    t.unref?.();
    p.then(
      (v) => {
        clearTimeout(t);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(t);
        reject(e);
      },
    );
  });
}

const SIGNATURE = /^v0=[0-9a-f]{64}$/;
const TIMESTAMP = /^\d{1,12}$/;

/**
 * Slack's request signature (https://api.slack.com/authentication/verifying-requests-from-slack):
 * `v0=` + hex HMAC-SHA256 of `v0:{timestamp}:{raw body}` with the signing secret, the timestamp at
 * most 5 minutes old. The same rule as Bolt's `isValidSlackRequest`, compared with node's
 * constant-time `timingSafeEqual` (Bolt's tsscmp draws random bytes and two more HMACs for every
 * comparison, the largest single item of the gate in a profile). Exported for tests.
 */
export function validSlackSignature(
  signingSecret: string,
  timestamp: string,
  signature: string,
  body: string,
  nowMs: number,
): boolean {
  if (!signingSecret || !TIMESTAMP.test(timestamp) || !SIGNATURE.test(signature)) return false;
  if (Number(timestamp) < Math.floor(nowMs / 1000) - SIGNATURE_WINDOW_MS / 1000) return false;
  const expected = createHmac('sha256', signingSecret).update(`v0:${timestamp}:${body}`).digest();
  return timingSafeEqual(Buffer.from(signature.slice(3), 'hex'), expected);
}

/** Wrap a receiver's request listener with the gate. Returns the wrapped listener. */
export function createRequestGate(inner: Listener, opts: RequestGateOptions): Listener {
  const endpoints = new Set(opts.endpoints ?? ['/slack/events']);
  const routes = new Map(
    Object.entries(opts.routes ?? {}).map(([p, m]) => [p, m.map((x) => x.toUpperCase())]),
  );
  const claimTimeoutMs = opts.claimTimeoutMs ?? 500;
  const bodyLimit = opts.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const bodyTimeoutMs = opts.bodyTimeoutMs ?? 10_000;
  const { logger } = opts;
  // A claim's holder only has to differ between requests (and processes): a random prefix per
  // gate and a counter, instead of 8 random bytes per request.
  const holderPrefix = `once-${randomBytes(6).toString('hex')}-`;
  let claimSeq = 0;

  async function slackRequest(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    const ts = header(req.headers['x-slack-request-timestamp']);
    const sig = header(req.headers['x-slack-signature']);
    const tsMs = Number(ts) * 1000;
    if (ts !== undefined && Number.isFinite(tsMs) && tsMs > opts.now() + SIGNATURE_WINDOW_MS) {
      logger.warn({ path }, 'refused a request signed with a future timestamp');
      answer(req, res, 401);
      return;
    }
    let body: Buffer;
    try {
      body = await readBody(req, bodyLimit, bodyTimeoutMs);
    } catch (err) {
      const status = err instanceof BodyError ? err.status : 400;
      logger.warn({ path, status }, 'refused a request whose body could not be read');
      answer(req, res, status);
      return;
    }
    (req as IncomingMessage & { rawBody?: Buffer }).rawBody = body;
    const text = body.toString('utf8');
    const contentType = header(req.headers['content-type']) ?? '';
    // Slack's ssl_check carries no signature; Bolt answers it (and strips anything else in it).
    if (contentType.startsWith('application/x-www-form-urlencoded') && /(^|&)ssl_check=1(&|$)/.test(text)) {
      inner(req, res);
      return;
    }
    const signed =
      ts !== undefined &&
      sig !== undefined &&
      validSlackSignature(opts.signingSecret, ts, sig, text, opts.now());
    if (!signed) {
      logger.warn({ path }, 'refused a request without a valid Slack signature');
      answer(req, res, 401);
      return;
    }
    let fresh = true;
    try {
      fresh = await withTimeout(
        opts.claims.acquire(replayKey(ts, sig), `${holderPrefix}${++claimSeq}`, REPLAY_WINDOW_MS),
        claimTimeoutMs,
      );
    } catch (err) {
      logger.error({ err, path }, 'replay check failed (store slow or unreachable): processing the request');
    }
    if (!fresh) {
      logger.warn({ path }, 'ignored a replayed request (same timestamp and signature)');
      answer(req, res, 200);
      return;
    }
    inner(req, res);
  }

  return (req, res) => {
    const path = pathOf(req);
    const method = (req.method ?? 'GET').toUpperCase();
    if (path === undefined) {
      answer(req, res, 400);
      return;
    }
    if (endpoints.has(path)) {
      if (method !== 'POST') {
        answer(req, res, 405, { allow: 'POST' });
        return;
      }
      slackRequest(req, res, path).catch((err: unknown) => {
        logger.error({ err, path }, 'request gate failed');
        answer(req, res, 500);
      });
      return;
    }
    const methods = routes.get(path);
    if (methods && !methods.includes(method)) {
      answer(req, res, 405, { allow: methods.join(', ') });
      return;
    }
    try {
      inner(req, res);
    } catch (err) {
      // Bolt throws for a path it does not route (HTTPReceiverDeferredRequestError).
      const unrouted =
        (err as { code?: string } | undefined)?.code === 'slack_bolt_http_receiver_deferred_request_error';
      if (!unrouted) logger.error({ err, path }, 'request listener failed');
      answer(req, res, unrouted ? 404 : 500);
    }
  };
}
