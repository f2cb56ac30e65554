/**
 * How the Service API's answers are read, for every endpoint group: the zone of its times, the
 * safe defaults of counts and optional numbers a real service leaves out, the search checks the
 * license and packaging lists share, and the page a list call returns. The schemas of one group's
 * answers live with that group (sites.ts, drm-data.ts, members.ts, settings.ts).
 */
import { z } from 'zod';
import { LICENSE_SEARCH_CONDITIONS, type ServiceEndpointName } from '../codes.js';
import type { Envelope } from '../envelope.js';
import { countLike, intLike } from '../fields.js';
import type { PageQuery, SvcPage } from '../types.js';
import { type Check, checkCode, LIMITS } from '../validate.js';

/**
 * Service API times are read as UTC. The spec says so for reg_dt/update_dt ("UTC +00:00"); for
 * the other times (additional-site reg_time/update_time, license reg_time, packaging times) it
 * shows no zone: additional-site and packaging times are read in `timeZone` (SERVICE_TIME_ZONE,
 * default UTC), and the license list's reg_time, whose
 * offset is a setting (`licenseTimeZone`, SERVICE_LICENSE_TIME_ZONE, default UTC): the license
 * alerts count the records of a window by that time, so a service writing it in local time must
 * be read in that zone. A time string that carries its own offset or `Z` is read with that offset
 * instead (time.ts).
 */
export const UTC = '+00:00';

/**
 * Fields a real service may leave out or send as null although the spec lists them ("not shown"
 * whether they may be): read with safe defaults instead of failing the whole answer.
 * - a count (license_cnt, success, ...): null, "" or absent -> 0;
 * - an optional number (group_seq, token_duration): null, "" or absent -> 0, which no table
 *   lists (a group 0 is shown with the service's group_name; a token duration 0 as "not set").
 */
export const orZero = z
  .preprocess(
    (v) => (typeof v === 'string' && v.trim() === '' ? null : v),
    z.union([intLike, z.null()]).optional(),
  )
  .transform((v) => v ?? 0);

/** A count (license_cnt, success, ...): the envelope's count (also "1,234"), null or absent -> 0. */
export const countOrZero = countLike.transform((v) => v ?? 0);

/** The logical endpoint name of errors, logs and metrics ("svc.listLicenses"). */
export const ep = (name: ServiceEndpointName) => `svc.${name}`;

/** A path segment (site id) as sent. */
export const enc = encodeURIComponent;

export function searchChecks(q: {
  searchCondition?: string;
  searchKeyword?: string;
  searchStatus?: string;
}): Check[] {
  return [
    [
      'search status',
      q.searchStatus === undefined ? null : checkCode(q.searchStatus, ['success', 'fail'], 'Search status'),
    ],
    [
      'search condition',
      q.searchCondition === undefined
        ? null
        : checkCode(q.searchCondition, LICENSE_SEARCH_CONDITIONS, 'Search condition'),
    ],
    [
      'search keyword',
      q.searchKeyword !== undefined && 'searchCondition' in q && q.searchCondition === undefined
        ? `A search keyword needs a search condition (one of ${LICENSE_SEARCH_CONDITIONS.join(', ')}).`
        : null,
    ],
  ];
}

/** One page of a page_index-paged list: the envelope's count, the page asked for. */
export function svcPage<T>(items: T[], env: Envelope, q: PageQuery): SvcPage<T> {
  return {
    items,
    count: env.count ?? items.length,
    pageIndex: q.pageIndex ?? 1,
    pageUnit: q.pageUnit ?? LIMITS.pageUnitDefault,
  };
}
