/**
 * How one Watermarking API call goes out and comes back, for every endpoint group (jobs.ts,
 * recipients.ts): the site's bearer token (refreshed once on a 401 by the token manager), the
 * request, the envelope with the server's clock skew; and the pieces every list shares: the site
 * path segment, the time-zone check and the page a list call returns.
 */
import { decodeEnvelope, type Envelope, serverClockSkewMs } from '../envelope.js';
import type { HttpClient, HttpMethod, QueryParams, RequestBody } from '../http.js';
import { runCall } from '../http.js';
import type { WatermarkingCredentials, WmPage } from '../types.js';
import {
  assertValid,
  type Check,
  checkPositiveInt,
  checkSiteId,
  checkTimeZone,
  LIMITS,
} from '../validate.js';
import type { WmTokenManager } from '../wm-token.js';

export interface WatermarkingClientDeps {
  http: HttpClient;
  tokens: WmTokenManager;
  /** The bot's clock (compared with the server's Date header on a 401). Default Date.now. */
  now?: () => number;
}

/** One logical call for a site: token, request, envelope (with the server's clock skew). */
export type WmCall = (
  endpoint: string,
  siteId: string,
  method: HttpMethod,
  path: string,
  query?: QueryParams,
  body?: RequestBody,
) => Promise<Envelope>;

export function wmCall(creds: WatermarkingCredentials, deps: WatermarkingClientDeps): WmCall {
  const { http, tokens } = deps;
  return (endpoint, siteId, method, path, query, body) =>
    runCall(endpoint, () =>
      tokens.withToken(creds, siteId, async (authorization) => {
        const res = await http.request({
          endpoint,
          method,
          baseUrl: creds.baseUrl,
          path,
          query,
          body,
          headers: { authorization },
        });
        const env = decodeEnvelope(endpoint, res, { api: 'wm', ...(deps.now ? { now: deps.now } : {}) });
        const skew = serverClockSkewMs(res, (deps.now ?? Date.now)());
        return skew === undefined ? env : { ...env, serverClockSkewMs: skew };
      }),
    );
}

/** The site's path segment ("/AB12"), encoded. */
export const site = (siteId: string) => `/${encodeURIComponent(siteId)}`;

export const tzChecks = (tz?: string): Check[] => [
  ['time zone', tz === undefined ? null : checkTimeZone(tz)],
];

/** The query of a paged, dated list (jobs, recipients), in the time zone asked. */
export function listParams(q: {
  from?: string;
  to?: string;
  pageUnit?: number;
  pageIndex?: number;
  timeZone?: string;
}): QueryParams {
  return { from: q.from, to: q.to, page_unit: q.pageUnit, page_index: q.pageIndex, time_zone: q.timeZone };
}

/** One page of a list, in the zone its times were read in. */
export function page<T>(
  items: T[],
  env: { totalCount?: number; timeZone?: string; serverClockSkewMs?: number },
  q: { pageIndex?: number; pageUnit?: number },
  tz: string,
): WmPage<T> {
  const pageIndex = q.pageIndex ?? 1;
  const pageUnit = q.pageUnit ?? LIMITS.pageUnitDefault;
  return {
    items,
    // total_count is documented on every list; if a service omits it, the best lower bound for
    // display, flagged as unknown so that paging (PageWalk) does not stop there.
    totalCount: env.totalCount ?? (pageIndex - 1) * pageUnit + items.length,
    ...(env.totalCount === undefined ? { totalUnknown: true } : {}),
    pageIndex,
    pageUnit,
    timeZone: tz,
    ...(env.serverClockSkewMs !== undefined ? { serverClockSkewMs: env.serverClockSkewMs } : {}),
  };
}

/** The zone an answer's times are read in: the envelope's, else the one asked for, else UTC. */
export const zoneOf = (env: Envelope, asked?: string): string => env.timeZone ?? asked ?? '+00:00';

/**
 * A GET of one thing of a site by its number (a job, a job's tasks, a recipient) in the time zone
 * asked: the site id, the number and the zone checked first; the path is `${base}/<site>${rest}`.
 */
export async function getByNumber(
  call: WmCall,
  endpoint: string,
  siteId: string,
  id: { field: string; label: string; value: number },
  path: { base: string; rest: string },
  timeZone: string | undefined,
): Promise<{ env: Envelope; tz: string }> {
  assertValid(endpoint, [
    ['site id', checkSiteId(siteId)],
    [id.field, checkPositiveInt(id.value, id.label)],
    ...tzChecks(timeZone),
  ]);
  const env = await call(endpoint, siteId, 'GET', `${path.base}${site(siteId)}${path.rest}`, {
    time_zone: timeZone,
  });
  return { env, tz: zoneOf(env, timeZone) };
}
