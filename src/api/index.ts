/**
 * The API module's entry point: `createApi(options)` builds one factory per process that shares
 * the pooled HTTP connections, the watermarking token cache, the JWT cache and the endpoint-14
 * path memo across every workspace and site.
 */
import type { Logger } from '../log.js';
import { HttpClient, type HttpOptions } from './http.js';
import { type JwtClaimsOptions, JwtSigner } from './jwt.js';
import { OriginPolicy } from './origins.js';
import type { ApiCodeIn, BodyEncoding } from './service/call.js';
import type { CidLicensePath } from './service/drm-data.js';
import { createServiceClient } from './service.js';
import type { ApiFactory } from './types.js';
import { createWatermarkingClient } from './watermarking.js';
import { WmTokenManager } from './wm-token.js';

export interface ApiOptions {
  /** Connect / headers / body timeouts, ms (defaults 5000 / 10000 / 30000). */
  timeouts?: { connectMs?: number; headersMs?: number; bodyMs?: number };
  /**
   * GET retry policy (defaults: 3 retries, 200 ms base, 5 s cap, Retry-After waited inline up to
   * 30 s; the Retry-After carried on the final error capped at 15 min).
   */
  retries?: {
    max?: number;
    baseMs?: number;
    maxDelayMs?: number;
    retryAfterCapMs?: number;
    retryAfterMaxMs?: number;
  };
  /** JWT claims of the Service API (defaults ServiceAPI / AUDIENCE / Service) and lifetime. */
  claims?: JwtClaimsOptions;
  jwtTtlSeconds?: number;
  /** JSON type of the JWT `account_seq` claim (not shown in the spec; default 'string'). */
  jwtAccountSeqType?: 'string' | 'number';
  /** How `<SERVICE_API_KEY>` becomes the HMAC key (not shown; default 'utf8', or 'base64'). */
  jwtSecretEncoding?: 'utf8' | 'base64';
  /** Watermarking token max age before a proactive refresh, ms (default 50 min; 0 = until 401). */
  wmTokenMaxAgeMs?: number;
  /** Spelling of Service endpoint 14 tried first (default 'cid-License'; falls back on 404). */
  cidLicensePath?: CidLicensePath;
  /** Service API POST/PUT parameter placement (default 'json'). */
  bodyEncoding?: BodyEncoding;
  /** Where a Service API POST/PUT puts api_code (default 'query'). */
  apiCodeIn?: ApiCodeIn;
  /** UTC offset of the license list's reg_time (SERVICE_LICENSE_TIME_ZONE; default UTC). */
  serviceLicenseTimeZone?: string;
  /** UTC offset of the other unzoned Service API times (SERVICE_TIME_ZONE; default UTC). */
  serviceTimeZone?: string;
  connectionsPerOrigin?: number;
  /**
   * The upstream allow-list (origins.ts): the configured base URLs plus UPSTREAM_ALLOWED_ORIGINS.
   * Absent: every http(s) origin (tests and tools); the bot's main always sets it.
   */
  upstream?: {
    configuredBaseUrls?: ReadonlyArray<string | undefined>;
    allowedOrigins?: readonly string[];
  };
  /** Largest response body, bytes (default 10 MB). */
  maxResponseBytes?: number;
  /** Total deadline of one call, ms (default 30000). */
  callDeadlineMs?: number;
  /** Close pools of origins unused this long, ms (default 5 min). */
  poolIdleCloseMs?: number;
  logger?: Logger;
  /** Clock (ms) for token ages and JWT expiry. */
  clock?: () => number;
  /** Test hooks for the retry backoff. */
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
}

export interface Api extends ApiFactory {
  /** Internals shared by the clients (tests, diagnostics). */
  readonly http: HttpClient;
  readonly tokens: WmTokenManager;
  readonly jwt: JwtSigner;
  /** The upstream allow-list in force (undefined: unrestricted). */
  readonly originPolicy: OriginPolicy | undefined;
}

export function createApi(options: ApiOptions = {}): Api {
  const httpOpts: HttpOptions = {
    connectTimeoutMs: options.timeouts?.connectMs,
    headersTimeoutMs: options.timeouts?.headersMs,
    bodyTimeoutMs: options.timeouts?.bodyMs,
    retries: options.retries?.max,
    backoffBaseMs: options.retries?.baseMs,
    backoffMaxMs: options.retries?.maxDelayMs,
    retryAfterCapMs: options.retries?.retryAfterCapMs,
    retryAfterMaxMs: options.retries?.retryAfterMaxMs,
    connectionsPerOrigin: options.connectionsPerOrigin,
    maxResponseBytes: options.maxResponseBytes,
    deadlineMs: options.callDeadlineMs,
    poolIdleCloseMs: options.poolIdleCloseMs,
    originPolicy: options.upstream
      ? new OriginPolicy({
          configured: options.upstream.configuredBaseUrls ?? [],
          allowed: options.upstream.allowedOrigins ?? [],
        })
      : undefined,
    logger: options.logger,
    now: options.clock,
    sleep: options.sleep,
    random: options.random,
  };
  const http = new HttpClient(httpOpts);
  const tokens = new WmTokenManager(http, { maxAgeMs: options.wmTokenMaxAgeMs, now: options.clock });
  const jwt = new JwtSigner({
    claims: options.claims,
    ttlSeconds: options.jwtTtlSeconds,
    accountSeqType: options.jwtAccountSeqType,
    secretEncoding: options.jwtSecretEncoding,
    now: options.clock,
  });
  const cidPathMemo = new Map<string, CidLicensePath>();
  return {
    http,
    tokens,
    jwt,
    originPolicy: httpOpts.originPolicy,
    watermarking: (creds) =>
      createWatermarkingClient(creds, { http, tokens, ...(options.clock ? { now: options.clock } : {}) }),
    service: (creds) =>
      createServiceClient(
        creds,
        { http, jwt, cidPathMemo, ...(options.clock ? { now: options.clock } : {}) },
        {
          bodyEncoding: options.bodyEncoding,
          apiCodeIn: options.apiCodeIn,
          cidLicensePath: options.cidLicensePath,
          licenseTimeZone: options.serviceLicenseTimeZone,
          timeZone: options.serviceTimeZone,
        },
      ),
    close: () => http.close(),
  };
}

export { type AddressClass, classifyAddress } from './addresses.js';
export * from './codes.js';
export * from './error-codes.js';
export * from './errors.js';
export { parseRetryAfter } from './http/retry.js';
export { HttpClient, type HttpOptions, OriginRefusedError } from './http.js';
export { DEFAULT_JWT_CLAIMS, type JwtClaimsOptions, JwtSigner } from './jwt.js';
export { canonicalOrigin, OriginPolicy, type OriginRefusal, parseAllowedOrigin } from './origins.js';
export { collectAll, iteratePackaging, iteratePages, type PagingOptions } from './paging.js';
export {
  type ApiCodeIn,
  type BodyEncoding,
  type ParamPlacement,
  placeServiceParams,
} from './service/call.js';
export type { CidLicensePath } from './service/drm-data.js';
export { createServiceClient, type ServiceClientOptions } from './service.js';
export * from './site-request-statuses.js';
export { formatServiceTime, normalizeTimeZone, parseServiceTime } from './time.js';
export type * from './types.js';
export * from './validate.js';
export { createWatermarkingClient } from './watermarking.js';
export { WmTokenManager } from './wm-token.js';
