/**
 * The API factory's options of a configuration (`apiOptionsOf`): the ONE mapping of the settings
 * to the upstream clients (timeouts, retries, encodings, time zones, JWT, allowed hosts).
 */
import type { ApiOptions } from '../api/index.js';
import type { Logger } from '../log.js';
import type { Config } from './types.js';

/**
 * The API factory's options for a configuration: the ONE mapping of the settings to the clients
 * (the bot's main and `npm run doctor` build their clients the same way).
 */
export function apiOptionsOf(config: Config, logger?: Logger): ApiOptions {
  return {
    ...(logger ? { logger } : {}),
    timeouts: { headersMs: config.serviceTimeoutMs, bodyMs: config.serviceTimeoutMs },
    retries: { max: config.serviceRetries },
    bodyEncoding: config.serviceApi.bodyEncoding,
    apiCodeIn: config.serviceApi.apiCodeIn,
    serviceLicenseTimeZone: config.serviceApi.licenseTimeZone,
    serviceTimeZone: config.serviceApi.timeZone,
    jwtAccountSeqType: config.serviceApi.jwtAccountSeqType,
    jwtSecretEncoding: config.serviceApi.jwtSecretEncoding,
    wmTokenMaxAgeMs: config.wmTokenMaxAgeSeconds * 1000,
    jwtTtlSeconds: config.serviceJwtTtlSeconds,
    upstream: {
      configuredBaseUrls: [config.dwmBaseUrl, config.serviceApiBaseUrl],
      allowedOrigins: config.upstream.allowedOrigins,
    },
    maxResponseBytes: config.upstream.maxResponseBytes,
    callDeadlineMs: config.upstream.callDeadlineMs,
    claims: {
      subject: config.serviceJwt.sub,
      audience: config.serviceJwt.aud,
      issuer: config.serviceJwt.iss,
    },
  };
}
