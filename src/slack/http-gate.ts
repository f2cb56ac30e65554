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
 * A body over the limit (`bodyLimit`, 4 MB) is answered 413, never handed to Bolt. When the
 * owner asks (`onOversized`), the gate keeps reading it up to `oversizedReadLimit` (hashing it for
 * the signature, keeping only its first and last `OVERSIZED_KEEP_BYTES`) and hands those ends,
 * with whether Slack signed the whole body, to the owner after the answer: a Workflow Builder
 * step whose event is too large is then failed instead of waiting forever (./oversized-event.ts).
 * A body declared larger than that read limit is read only to its first bytes (never signed).
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
import { createHash, createHmac, type Hmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../log.js';

export const REPLAY_WINDOW_MS = 6 * 60_000;
/** Slack's rule for a request's timestamp: at most 5 minutes from now, either way. */
export const SIGNATURE_WINDOW_MS = 5 * 60_000;
/** Bolt's own default body limit; Slack's payloads are far smaller. */
export const DEFAULT_BODY_LIMIT = 4 * 1024 * 1024;

/** How much of each end of an oversized body is kept for its owner (ids are read from them). */
export const OVERSIZED_KEEP_BYTES = 64 * 1024;

/** A Slack request over the body limit, after its 413 (see `onOversized`). */
export interface OversizedRequest {
  path: string;
  /** The first OVERSIZED_KEEP_BYTES of the body (UTF-8, possibly cut inside a character). */
  head: string;
  /** The last OVERSIZED_KEEP_BYTES of the body read ('' when it is all in `head`). */
  tail: string;
  /** Bytes received. */
  size: number;
  /** Slack's signature verified over the whole body (read to its end within the limits). */
  signed: boolean;
}

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
  /** Called after the 413 of a Slack request over `bodyLimit` (errors are logged). */
  onOversized?: (r: OversizedRequest) => void | Promise<void>;
  /** How much of an oversized body is read to verify its signature (default 8 x bodyLimit). */
  oversizedReadLimit?: number;
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

/** An oversized body as read: its two ends, its size, and its HMAC when it was read to the end. */
interface OverBody {
  head: Buffer;
  tail: Buffer;
  size: number;
  digest?: Buffer;
}

/** How an oversized body is read on (absent: refused at the limit, nothing kept). */
interface OverflowRead {
  /** Read at most this many bytes in all. */
  readLimit: number;
  /** The signature's HMAC, primed with `v0:{timestamp}:` (undefined: not signed, ends only). */
  mac: (() => Hmac) | undefined;
}

function readBody(
  req: IncomingMessage,
  limit: number,
  timeoutMs: number,
  overflow?: OverflowRead,
): Promise<{ body: Buffer } | { over: OverBody }> {
  return new Promise((resolve, reject) => {
    let chunks: Buffer[] = [];
    let size = 0;
    let cap = limit;
    let hardLimit = overflow?.readLimit ?? limit;
    const declared = Number(header(req.headers['content-length']));
    if (Number.isFinite(declared) && declared > limit) {
      if (!overflow) {
        reject(new BodyError(413));
        return;
      }
      if (declared > overflow.readLimit) {
        // Too large to read through: only its first bytes, for the ids they may hold.
        cap = Math.min(limit, OVERSIZED_KEEP_BYTES);
        hardLimit = cap;
      }
    }
    // Overflow mode: what is kept of the body, and the running signature.
    let over: { head: Buffer; tail: Buffer; mac: Hmac | undefined } | undefined;
    const overBody = (complete: boolean): OverBody => {
      const o = over!;
      const mac = complete ? o.mac?.digest() : undefined;
      return { head: o.head, tail: o.tail, size, ...(mac ? { digest: mac } : {}) };
    };
    const timer = setTimeout(
      () => (over ? finish(undefined, { over: overBody(false) }) : finish(new BodyError(408))),
      timeoutMs,
    );
    timer.unref?.();
    const finish = (err?: Error, result?: { body: Buffer } | { over: OverBody }) => {
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      if (err) reject(err);
      else resolve(result ?? { body: Buffer.alloc(0) });
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (over) {
        over.mac?.update(chunk);
        over.tail = Buffer.concat([over.tail, chunk]);
        if (over.tail.length > OVERSIZED_KEEP_BYTES) over.tail = over.tail.subarray(-OVERSIZED_KEEP_BYTES);
        if (size > hardLimit) finish(undefined, { over: overBody(false) });
        return;
      }
      if (size > cap) {
        if (!overflow) {
          finish(new BodyError(413));
          return;
        }
        const all = Buffer.concat([...chunks, chunk]);
        chunks = [];
        const mac = overflow.mac?.();
        mac?.update(all);
        over = {
          head: Buffer.from(all.subarray(0, OVERSIZED_KEEP_BYTES)),
          tail:
            all.length > OVERSIZED_KEEP_BYTES
              ? Buffer.from(all.subarray(-OVERSIZED_KEEP_BYTES))
              : Buffer.alloc(0),
          mac,
        };
        if (size > hardLimit) finish(undefined, { over: overBody(false) });
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => finish(undefined, over ? { over: overBody(true) } : { body: Buffer.concat(chunks) });
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
  if (!signatureHeadersValid(signingSecret, timestamp, signature, nowMs)) return false;
  const expected = createHmac('sha256', signingSecret).update(`v0:${timestamp}:${body}`).digest();
  return timingSafeEqual(Buffer.from(signature.slice(3), 'hex'), expected);
}

/** The parts of the signature rule that do not need the body (format, age). */
function signatureHeadersValid(
  signingSecret: string,
  timestamp: string,
  signature: string,
  nowMs: number,
): boolean {
  if (!signingSecret || !TIMESTAMP.test(timestamp) || !SIGNATURE.test(signature)) return false;
  return Number(timestamp) >= Math.floor(nowMs / 1000) - SIGNATURE_WINDOW_MS / 1000;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Interactive payload types and what Slack always sends with them (Bolt reads these unchecked). */
const INTERACTIVE_NEEDS: Record<string, readonly string[]> = {
  block_actions: ['user'],
  block_suggestion: ['user'],
  view_submission: ['user', 'view'],
  view_closed: ['user', 'view'],
  shortcut: ['user'],
  message_action: ['user'],
  interactive_message: ['user'],
  dialog_submission: ['user'],
};

/**
 * A signed body of a shape Slack never sends, which Bolt would throw on (a 500 to the sender):
 * an interactive `payload` that is not a JSON object with a string `type`, or lacks the `user`
 * (and `view`) object Slack sends with that type; a JSON event body that is not an object with a
 * string `type`, or an `event_callback` without its `event` object. Slash commands (form fields)
 * and ssl_check are not looked at here. Exported for tests.
 */
export function malformedSlackBody(text: string, contentType: string): boolean {
  let json: string | null = null;
  if (contentType.startsWith('application/x-www-form-urlencoded'))
    json = new URLSearchParams(text).get('payload');
  else if (contentType.startsWith('application/json')) json = text;
  if (json === null) return false;
  let b: unknown;
  try {
    b = JSON.parse(json);
  } catch {
    return true;
  }
  if (!isObject(b) || typeof b.type !== 'string') return true;
  if (b.type === 'event_callback') return !isObject(b.event);
  return (INTERACTIVE_NEEDS[b.type] ?? []).some((k) => !isObject(b[k]));
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
  const oversizedReadLimit = opts.oversizedReadLimit ?? 8 * bodyLimit;
  const { logger } = opts;
  // A claim's holder only has to differ between requests (and processes): a random prefix per
  // gate and a counter, instead of 8 random bytes per request.
  const holderPrefix = `once-${randomBytes(6).toString('hex')}-`;
  let claimSeq = 0;

  /**
   * Claim a verified request once (see the file header): false for a replay; true when the store
   * does not answer in time (processed anyway, logged).
   */
  async function claimOnce(ts: string, sig: string, path: string): Promise<boolean> {
    try {
      return await withTimeout(
        opts.claims.acquire(replayKey(ts, sig), `${holderPrefix}${++claimSeq}`, REPLAY_WINDOW_MS),
        claimTimeoutMs,
      );
    } catch (err) {
      logger.error({ err, path }, 'replay check failed (store slow or unreachable): processing the request');
      return true;
    }
  }

  async function slackRequest(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    const ts = header(req.headers['x-slack-request-timestamp']);
    const sig = header(req.headers['x-slack-signature']);
    const tsMs = Number(ts) * 1000;
    if (ts !== undefined && Number.isFinite(tsMs) && tsMs > opts.now() + SIGNATURE_WINDOW_MS) {
      logger.warn({ path }, 'refused a request signed with a future timestamp');
      answer(req, res, 401);
      return;
    }
    const headersOk =
      ts !== undefined && sig !== undefined && signatureHeadersValid(opts.signingSecret, ts, sig, opts.now());
    let read: Awaited<ReturnType<typeof readBody>>;
    try {
      read = await readBody(
        req,
        bodyLimit,
        bodyTimeoutMs,
        opts.onOversized
          ? {
              readLimit: oversizedReadLimit,
              mac: headersOk ? () => createHmac('sha256', opts.signingSecret).update(`v0:${ts}:`) : undefined,
            }
          : undefined,
      );
    } catch (err) {
      const status = err instanceof BodyError ? err.status : 400;
      logger.warn({ path, status }, 'refused a request whose body could not be read');
      answer(req, res, status);
      return;
    }
    if ('over' in read) {
      const o = read.over;
      const signed =
        headersOk && o.digest !== undefined && timingSafeEqual(Buffer.from(sig!.slice(3), 'hex'), o.digest);
      logger.warn(
        { path, status: 413, bytes: o.size, limit: bodyLimit, signed },
        'refused a request over the body limit',
      );
      answer(req, res, 413);
      // A signed one is claimed like any request: a replay of it is not handed on twice.
      if (signed && !(await claimOnce(ts!, sig!, path))) return;
      await Promise.resolve(
        opts.onOversized?.({
          path,
          head: o.head.toString('utf8'),
          tail: o.tail.toString('utf8'),
          size: o.size,
          signed,
        }),
      ).catch((err: unknown) => logger.error({ err, path }, 'handling an oversized request failed'));
      return;
    }
    const body = read.body;
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
    // Signed, but not a shape Slack sends (Bolt would throw reading it: a 500): answered 400.
    if (malformedSlackBody(text, contentType)) {
      logger.warn({ path }, 'refused a signed request whose payload is not of a shape Slack sends');
      answer(req, res, 400);
      return;
    }
    if (!(await claimOnce(ts, sig, path))) {
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
