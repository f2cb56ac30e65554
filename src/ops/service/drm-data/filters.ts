/**
 * The filters every DRM data list shares: the reader's dates, the search keywords and the one
 * search option the service takes (`cid:`, `drm:`, `user:`, `device:`, `model:` to its
 * search_condition), and the DRM type names. A change to how a user's filter is read, for any
 * kind of DRM data, lives here.
 */
import { z } from 'zod';
import { DRM_TYPES, type LicenseSearchCondition } from '../../../api/codes.js';
import {
  applyDates,
  invalid,
  opsEndpoint,
  parseInput,
  type ReaderDays,
  readerDateFields,
} from '../common.js';

/** Longest search keyword accepted (content ids are at most 200 bytes; the others have no limit). */
export const SEARCH_KEYWORD_MAX = 200;

export const keyword = (what: string) =>
  z
    .string()
    .trim()
    .min(1, `The ${what} is empty: give a value after the colon.`)
    .max(SEARCH_KEYWORD_MAX, `The ${what} is longer than ${SEARCH_KEYWORD_MAX} characters.`);

export const pageFields = { page: z.number().optional(), pageSize: z.number().optional() };

/** The search options of licenses and packaging (one at most is used: `searchOf`). */
export const searchFields = {
  cid: keyword('content id').optional(),
  drm: keyword('DRM type').optional(),
  user: keyword('user id').optional(),
  device: keyword('device id').optional(),
  model: keyword('device model').optional(),
};

/** `status:success|fail` (licenses and per-content counts). */
export const statusFilter = z
  .enum(['success', 'fail'], { error: 'The status must be success or fail.' })
  .optional();

export interface DateFilters {
  /** yyyy-MM-dd, a day of the reader (in `timeZone`) */
  from?: string;
  /** yyyy-MM-dd, a day of the reader (in `timeZone`) */
  to?: string;
  /** The reader's IANA zone (Slack users.info tz); default UTC. */
  timeZone?: string;
}

/** The user's option name -> the service's search_condition. */
export const SEARCH_OPTIONS: Readonly<
  Record<'cid' | 'drm' | 'user' | 'device' | 'model', LicenseSearchCondition>
> = {
  cid: 'cid',
  drm: 'drm_type',
  user: 'user_id',
  device: 'device_id',
  model: 'device_model',
};

/** `drm:widevine` -> "Widevine"; unknown names are refused with the list of valid ones. */
export function parseDrmType(input: string, endpoint = opsEndpoint('drm')): string {
  const hit = DRM_TYPES.find((t) => t.toLowerCase() === input.trim().toLowerCase());
  if (!hit)
    invalid(
      endpoint,
      'drm',
      `"${input.slice(0, 30)}" is not a DRM type: use one of ${DRM_TYPES.join(', ')}.`,
    );
  return hit;
}

/** One search option at most (the service takes one search_condition + search_keyword). */
export function searchOf(
  endpoint: string,
  f: Partial<Record<keyof typeof SEARCH_OPTIONS, string | undefined>>,
): { searchCondition: LicenseSearchCondition; searchKeyword: string } | undefined {
  const given = (Object.keys(SEARCH_OPTIONS) as (keyof typeof SEARCH_OPTIONS)[]).filter(
    (k) => f[k] !== undefined,
  );
  if (given.length > 1) {
    invalid(
      endpoint,
      'search',
      `Only one of cid:, drm:, user:, device:, model: can be used at a time (got ${given.map((g) => `${g}:`).join(' and ')}): the service searches by one of them.`,
    );
  }
  const k = given[0];
  if (!k) return undefined;
  const value = f[k] as string;
  return {
    searchCondition: SEARCH_OPTIONS[k],
    searchKeyword: k === 'drm' ? parseDrmType(value, endpoint) : value,
  };
}

/** The reader's days of a filter set (undefined without dates), for the reply and the export. */
export function readerDaysOf(filters: DateFilters): ReaderDays | undefined {
  const endpoint = opsEndpoint('drm.dates');
  const f = parseInput(endpoint, z.object(readerDateFields).passthrough(), filters);
  return applyDates(endpoint, f, {}, f.timeZone);
}
