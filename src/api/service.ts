/**
 * Service API client (spec endpoints 1 to 19): `createServiceClient` wires one set of credentials
 * to the endpoint groups of src/api/service/:
 * - call.ts: how a call goes out (parameter placement, JWT, one re-sign on 401, the envelope);
 * - parse.ts: how answers are read (time zones, safe defaults, search checks, pages);
 * - sites.ts: sites, additional-site requests, the plan's status change requests;
 * - drm-data.ts: licenses, users, devices, license counts per content, packaging, statistics;
 * - members.ts: the account's sub-members;
 * - settings.ts: a site's DRM settings and the FairPlay certificate upload.
 * Inputs are validated before sending (ValidationError), answers are checked with zod
 * (ProtocolError) and mapped to the camelCase domain types of types.ts.
 */
import type { HttpClient } from './http.js';
import type { JwtSigner } from './jwt.js';
import type { ApiCodeIn, BodyEncoding } from './service/call.js';
import { serviceCall } from './service/call.js';
import type { CidLicensePath } from './service/drm-data.js';
import { drmDataEndpoints } from './service/drm-data.js';
import { memberEndpoints } from './service/members.js';
import { UTC } from './service/parse.js';
import { settingsEndpoints } from './service/settings.js';
import { siteEndpoints } from './service/sites.js';
import { normalizeTimeZone } from './time.js';
import type { ServiceApiCredentials, ServiceClient } from './types.js';

export interface ServiceClientOptions {
  /** Where POST/PUT parameters go (placement not shown in the spec). Default 'json'. */
  bodyEncoding?: BodyEncoding;
  /** Where api_code goes in a POST/PUT (not shown in the spec). Default 'query'. */
  apiCodeIn?: ApiCodeIn;
  /** Spelling of endpoint 14 tried first. Default 'cid-License'. */
  cidLicensePath?: CidLicensePath;
  /**
   * UTC offset the license list's `reg_time` is written in (SERVICE_LICENSE_TIME_ZONE, e.g.
   * "+09:00"). The spec gives that field no zone (only reg_dt/update_dt say "UTC +00:00").
   * Default UTC. A time that carries its own offset or `Z` is read with that one.
   */
  licenseTimeZone?: string;
  /**
   * UTC offset of the other times the spec leaves unzoned (SERVICE_TIME_ZONE): additional-site
   * reg_time / update_time and packaging created_time / update_time, and the packaging list's
   * `from`/`to` days (sent as the days of this offset that cover the UTC days asked). Default UTC.
   */
  timeZone?: string;
}

export interface ServiceClientDeps {
  http: HttpClient;
  jwt: JwtSigner;
  /** baseUrl -> spelling of endpoint 14 that worked (shared across clients). */
  cidPathMemo?: Map<string, CidLicensePath>;
  /** The bot's clock (compared with the server's Date header on a 401). Default Date.now. */
  now?: () => number;
}

export function createServiceClient(
  creds: ServiceApiCredentials,
  deps: ServiceClientDeps,
  opts: ServiceClientOptions = {},
): ServiceClient {
  const call = serviceCall(creds, deps, {
    bodyEncoding: opts.bodyEncoding ?? 'json',
    apiCodeIn: opts.apiCodeIn ?? 'query',
  });
  const unzonedTz = normalizeTimeZone(opts.timeZone ?? UTC) ?? UTC;
  return {
    ...siteEndpoints(call, unzonedTz),
    ...drmDataEndpoints(call, {
      baseUrl: creds.baseUrl,
      licenseTz: normalizeTimeZone(opts.licenseTimeZone ?? UTC) ?? UTC,
      unzonedTz,
      preferredCid: opts.cidLicensePath ?? 'cid-License',
      cidMemo: deps.cidPathMemo ?? new Map<string, CidLicensePath>(),
    }),
    ...memberEndpoints(call),
    ...settingsEndpoints(call),
  };
}
