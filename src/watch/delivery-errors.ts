/**
 * What a Slack error means for a delivery, shared by every sender (job notifications, notices,
 * the Slack layer's background sender): `classifyDeliveryError` sorts an error of the poster
 * (our `DeliveryError` or @slack/web-api's shapes, duck typed) into rate limited, transient,
 * permanent (the channel is gone for good: PERMANENT_DELIVERY_ERRORS), rejected (the message
 * itself) or unknown; `withPlainTextRetry` sends a message Slack refused for its content once
 * more as plain text; `retryWaitMs` is the wait before a sender's next try.
 */
import { doubledWaitMs } from '../time.js';
import {
  type ChannelMessage,
  type ChannelPoster,
  DeliveryError,
  PERMANENT_DELIVERY_ERRORS,
} from './types.js';

export type ErrorClass =
  | { type: 'rate'; retryAfterMs: number }
  | { type: 'transient'; retryAfterMs?: number }
  | { type: 'permanent'; code: string }
  | { type: 'rejected'; code: string }
  | { type: 'unknown' };

const TRANSIENT_CODES = new Set([
  'internal_error',
  'fatal_error',
  'service_unavailable',
  'request_timeout',
  'team_added_to_org',
]);

function classifyCode(code: string, httpStatus?: number, retryAfterMs?: number): ErrorClass {
  if (code === 'ratelimited' || code === 'rate_limited' || httpStatus === 429) {
    return { type: 'rate', retryAfterMs: retryAfterMs ?? 1000 };
  }
  if ((PERMANENT_DELIVERY_ERRORS as readonly string[]).includes(code)) return { type: 'permanent', code };
  if (
    TRANSIENT_CODES.has(code) ||
    (httpStatus !== undefined && httpStatus >= 500) ||
    /^http_5\d\d$/.test(code)
  ) {
    return retryAfterMs !== undefined ? { type: 'transient', retryAfterMs } : { type: 'transient' };
  }
  if (code === 'network' || code === 'timeout') return { type: 'transient' };
  return { type: 'rejected', code };
}

/** Classify a poster error: our DeliveryError, or @slack/web-api's error shapes (duck typed). */
export function classifyDeliveryError(e: unknown): ErrorClass {
  if (e instanceof DeliveryError) return classifyCode(e.code, e.httpStatus, e.retryAfterMs);
  if (e && typeof e === 'object') {
    const x = e as { code?: unknown; retryAfter?: unknown; data?: { error?: unknown }; statusCode?: unknown };
    if (x.code === 'slack_webapi_rate_limited_error') {
      const s = typeof x.retryAfter === 'number' ? x.retryAfter : 1;
      return { type: 'rate', retryAfterMs: s * 1000 };
    }
    if (x.code === 'slack_webapi_platform_error' && typeof x.data?.error === 'string') {
      return classifyCode(x.data.error);
    }
    if (x.code === 'slack_webapi_http_error' && typeof x.statusCode === 'number') {
      return classifyCode(`http_${x.statusCode}`, x.statusCode);
    }
    if (x.code === 'slack_webapi_request_error') return { type: 'transient' };
  }
  return { type: 'unknown' };
}

/**
 * How long a sender waits before its next try after a rate limit or a transient failure: Slack's
 * Retry-After when it gave one, else `baseMs` doubled per try so far (`attempt` 1 waits `baseMs`),
 * at most `capMs`. The job notifications and the notices retry alike.
 */
export function retryWaitMs(
  c: Extract<ErrorClass, { type: 'rate' | 'transient' }>,
  attempt: number,
  o: { backoffBaseMs: number; backoffCapMs: number },
): number {
  return c.type === 'rate'
    ? c.retryAfterMs
    : (c.retryAfterMs ?? doubledWaitMs(o.backoffBaseMs, attempt - 1, o.backoffCapMs));
}

/** Slack refusals of a message's content that its plain text alone can get past. */
const PLAIN_RETRY_CODES = new Set(['invalid_blocks', 'invalid_blocks_format', 'msg_too_long']);
/** Plain text cut here (Slack's own limit is 40,000 characters; a notification needs far less). */
const PLAIN_TEXT_MAX = 3000;

/**
 * The poster, sending a message Slack refuses for its content (invalid_blocks, msg_too_long) once
 * more as its text alone (no blocks, cut to PLAIN_TEXT_MAX), so a rendering problem does not lose
 * the notification; `onRefused` is told (the caller logs it). The refused call posted nothing, so
 * the second one cannot double it (and it carries the same metadata for the recovery check).
 */
export function withPlainTextRetry(p: ChannelPoster, onRefused: (code: string) => void): ChannelPoster {
  // Cut by code points: half of an emoji (a surrogate pair split) makes Slack refuse the text too.
  const plainOf = (m: ChannelMessage): ChannelMessage => {
    const chars = Array.from(m.text);
    return {
      text: chars.length > PLAIN_TEXT_MAX ? `${chars.slice(0, PLAIN_TEXT_MAX - 1).join('')}…` : m.text,
    };
  };
  const retried = async <T>(m: ChannelMessage, send: (m: ChannelMessage) => Promise<T>): Promise<T> => {
    try {
      return await send(m);
    } catch (err) {
      const c = classifyDeliveryError(err);
      if (c.type !== 'rejected' || !PLAIN_RETRY_CODES.has(c.code)) throw err;
      onRefused(c.code);
      return send(plainOf(m));
    }
  };
  return {
    post: (channel, m, o) => retried(m, (x) => p.post(channel, x, o)),
    update: (channel, ts, m) => retried(m, (x) => p.update(channel, ts, x)),
    findByMetadata: (...a) => p.findByMetadata(...a),
  };
}
