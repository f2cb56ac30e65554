/**
 * Watermarking API tokens.
 *
 * Basic base64(`accountId:accessKey`) to GET /api/token/{siteId}; `data.token` already carries the
 * scheme word ("Bearer ...") and is sent as-is (the scheme is added only if missing).
 * Cached per baseUrl + accountId + siteId (+ a hash of the access key, so changed credentials never
 * reuse an old token). The token text is never logged nor put in an error.
 *
 * Token lifetime is "not shown" in the spec: a token is kept until a 401, plus an optional max age
 * (default 50 min) after which it is refreshed proactively. On a 401 from any call the token is
 * invalidated, refreshed (single-flight: concurrent callers share one token call) and the call
 * retried. A 401 for a token that differs from the one refused before (it ran out in the middle
 * of a burst, or another caller's refresh replaced it) refreshes again, at most MAX_AUTH_RETRIES
 * times per call; a 401 for the same token twice is an AuthError (the credentials are wrong).
 * An HTTP 200 error envelope with an unlisted code that says the token expired or is invalid is
 * treated the same way, once per call (`isTokenRefusalEnvelope`).
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { decodeData, serverMessage } from './envelope.js';
import { errorCondition } from './error-codes.js';
import { AuthError, ProtocolError, ServiceError } from './errors.js';
import type { HttpClient } from './http.js';
import type { WatermarkingCredentials } from './types.js';

export interface TokenManagerOptions {
  /** Refresh proactively after this age, ms. 0 or Infinity = only on 401. Default 50 min. */
  maxAgeMs?: number;
  now?: () => number;
}

interface Cached {
  header: string;
  obtainedAt: number;
}

/** Refreshes per call after 401s (each for a token not refused before). */
export const MAX_AUTH_RETRIES = 3;

const tokenData = z.object({ token: z.string().min(1) });

export class WmTokenManager {
  private readonly cache = new Map<string, Cached>();
  private readonly inflight = new Map<string, Promise<string>>();
  private readonly maxAgeMs: number;
  private readonly now: () => number;
  /** Number of token calls made (tests and metrics). */
  tokenCalls = 0;

  constructor(
    private readonly http: HttpClient,
    opts: TokenManagerOptions = {},
  ) {
    this.maxAgeMs = opts.maxAgeMs ?? 50 * 60_000;
    this.now = opts.now ?? Date.now;
  }

  private key(creds: WatermarkingCredentials, siteId: string): string {
    const kh = createHash('sha256').update(creds.accessKey).digest('base64url').slice(0, 16);
    return `${creds.baseUrl.replace(/\/+$/, '')}|${creds.accountId}|${siteId}|${kh}`;
  }

  /** The Authorization header value for the site (cached or freshly issued). */
  async header(creds: WatermarkingCredentials, siteId: string): Promise<string> {
    const key = this.key(creds, siteId);
    const c = this.cache.get(key);
    if (c && (this.maxAgeMs <= 0 || this.now() - c.obtainedAt < this.maxAgeMs)) return c.header;
    return this.refresh(key, creds, siteId);
  }

  /** Drop the cached token if it is still the one that was refused. */
  invalidate(creds: WatermarkingCredentials, siteId: string, refusedHeader?: string): void {
    const key = this.key(creds, siteId);
    const c = this.cache.get(key);
    if (c && (refusedHeader === undefined || c.header === refusedHeader)) this.cache.delete(key);
  }

  private refresh(key: string, creds: WatermarkingCredentials, siteId: string): Promise<string> {
    let p = this.inflight.get(key);
    if (!p) {
      p = this.issue(creds, siteId)
        .then((header) => {
          this.cache.set(key, { header, obtainedAt: this.now() });
          return header;
        })
        .finally(() => this.inflight.delete(key));
      this.inflight.set(key, p);
    }
    return p;
  }

  private async issue(creds: WatermarkingCredentials, siteId: string): Promise<string> {
    const endpoint = 'wm.token';
    this.tokenCalls++;
    const basic = Buffer.from(`${creds.accountId}:${creds.accessKey}`, 'utf8').toString('base64');
    const res = await this.http.request({
      endpoint,
      method: 'GET',
      baseUrl: creds.baseUrl,
      path: `/api/token/${encodeURIComponent(siteId)}`,
      headers: { authorization: `Basic ${basic}` },
    });
    if (res.status === 401) {
      const said = serverMessage(res);
      throw new AuthError(
        endpoint,
        `The watermarking account id or access key was refused (HTTP 401${said ? `, the service says "${said}"` : ''}): check the credentials for this site.`,
      );
    }
    const { data } = decodeData(endpoint, res, tokenData, { api: 'wm', now: this.now });
    const token = data.token.trim();
    if (/^bearer$/i.test(token)) {
      // Only the scheme word: "Bearer Bearer" would be sent otherwise.
      throw new ProtocolError(endpoint, 'data.token', 'holds only the word "Bearer", no token');
    }
    if (/\s/.test(token) && !/^Bearer\s+\S+$/i.test(token)) {
      throw new ProtocolError(endpoint, 'data.token', 'not of the form "Bearer <token>"');
    }
    return /^Bearer\s/i.test(token) ? token : `Bearer ${token}`;
  }

  /**
   * Run `call` with the site's token; on AuthError invalidate, refresh (shared with concurrent
   * callers) and retry. Retries again only while each refused token differs from the ones refused
   * before, and at most MAX_AUTH_RETRIES times; otherwise the AuthError propagates.
   */
  async withToken<T>(
    creds: WatermarkingCredentials,
    siteId: string,
    call: (authorization: string) => Promise<T>,
  ): Promise<T> {
    const refused = new Set<string>();
    let header = await this.header(creds, siteId);
    let envelopeRefusal = false;
    for (let retry = 0; ; retry++) {
      try {
        return await call(header);
      } catch (e) {
        if (!envelopeRefusal && isTokenRefusalEnvelope(e)) {
          // Once per call: a second such answer with a fresh token is the service's real answer.
          envelopeRefusal = true;
          this.invalidate(creds, siteId, header);
          header = await this.header(creds, siteId);
          continue;
        }
        if (!(e instanceof AuthError)) throw e;
        if (refused.has(header) || retry >= MAX_AUTH_RETRIES) throw e;
        refused.add(header);
        this.invalidate(creds, siteId, header);
        header = await this.header(creds, siteId);
        // The refresh gave back a token already refused: the credentials, not the token, are wrong.
        if (refused.has(header)) throw e;
      }
    }
  }

  clear(): void {
    this.cache.clear();
  }
}

/**
 * A token refusal sent as an HTTP 200 error envelope instead of a 401: how a service says "token
 * expired" is "not shown" in the spec, and some use an envelope code of their own. Recognised
 * when the code is none of the known error conditions (error-codes.ts) and the message speaks of
 * the token, expiry or authentication. The token is then refreshed and the call retried once.
 */
function isTokenRefusalEnvelope(e: unknown): boolean {
  return (
    e instanceof ServiceError &&
    e.httpStatus === undefined &&
    errorCondition(e) === undefined &&
    /token|expir|auth/i.test(e.serviceMessage)
  );
}
