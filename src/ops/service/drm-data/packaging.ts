/**
 * The packaging history (`/drm packaging`): the filters to the API query, and keyset paging with
 * a compact cursor that fits a Slack button value ("More"): the cursor's encoding, and one page
 * after it with the records already shown left out.
 */
import { z } from 'zod';
import type { PackagingQuery, PackagingRecord, ServiceClient } from '../../../api/types.js';
import { SITE_ID_RE } from '../../../api/validate.js';
import {
  applyDates,
  inReaderRange,
  invalid,
  opsEndpoint,
  parseInput,
  type ReaderDays,
  readerDateFields,
  requireSiteId,
} from '../common.js';
import { type DateFilters, readerDaysOf, SEARCH_KEYWORD_MAX, searchFields, searchOf } from './filters.js';

export interface PackagingFilters extends DateFilters {
  cid?: string;
  drm?: string;
  user?: string;
  device?: string;
  model?: string;
}

const packagingFilters = z
  .object({
    ...readerDateFields,
    ...searchFields,
  })
  .strict();

export function toPackagingQuery(filters: PackagingFilters): PackagingQuery {
  const endpoint = opsEndpoint('drm.packaging');
  const f = parseInput(endpoint, packagingFilters, filters);
  const q: PackagingQuery = {};
  applyDates(endpoint, f, q, f.timeZone);
  const s = searchOf(endpoint, f);
  if (s) Object.assign(q, s);
  return q;
}

/**
 * Longest cursor: Slack's 2,000 characters of a button value minus 100 for the wrapper the Slack
 * layer puts around it (`{"w":"<workspace id, at most 64>","c":"…"}`), so every cursor this op
 * makes fits a "More" button.
 */
export const CURSOR_MAX_CHARS = 1900;

/** Everything needed to fetch the next packaging page: site, filters and the keyset position. */
export interface PackagingCursor {
  siteId: string;
  query: PackagingQuery;
  /** The reader's range as instants (rows outside it are left out of every page). */
  range?: { startMs?: number; endMs?: number };
  /**
   * The cids of the records already shown at the cursor's exact times: a service whose stored
   * times are finer than the seconds it prints sends them again; they are dropped, and only they,
   * not the other records of the same second. Left out when they do not fit a button value (then
   * every record at the cursor's times is dropped, as before).
   */
  lastCids?: string[];
}

/** Characters of cids a cursor carries at most (a button value holds 2,000 characters). */
const CURSOR_CIDS_MAX_CHARS = 900;

const cursorSchema = z
  .object({
    v: z.literal(1),
    s: z.string().regex(SITE_ID_RE),
    f: z.string().optional(),
    t: z.string().optional(),
    c: z.enum(['cid', 'drm_type', 'user_id', 'device_id', 'device_model']).optional(),
    k: z.string().max(SEARCH_KEYWORD_MAX).optional(),
    lc: z.string().max(100),
    lu: z.string().max(100),
    a: z.number().int().optional(),
    b: z.number().int().optional(),
    i: z.array(z.string().max(CURSOR_CIDS_MAX_CHARS)).max(200).optional(),
  })
  .strict();

/** base64url(JSON) with one-letter keys; throws when it would not fit a button value. */
export function encodeCursor(cursor: PackagingCursor): string {
  const { query: q } = cursor;
  if (q.lastCreatedTimeCid === undefined || q.lastUpdateTime === undefined) {
    invalid(
      opsEndpoint('drm.packaging'),
      'cursor',
      'A cursor needs both the last created and last update time.',
    );
  }
  const body: z.input<typeof cursorSchema> = {
    v: 1,
    s: cursor.siteId,
    lc: q.lastCreatedTimeCid,
    lu: q.lastUpdateTime,
  };
  if (q.from) body.f = q.from;
  if (q.to) body.t = q.to;
  if (q.searchCondition) body.c = q.searchCondition;
  if (q.searchKeyword) body.k = q.searchKeyword;
  if (cursor.range?.startMs !== undefined) body.a = cursor.range.startMs;
  if (cursor.range?.endMs !== undefined) body.b = cursor.range.endMs;
  if (cursor.lastCids && JSON.stringify(cursor.lastCids).length <= CURSOR_CIDS_MAX_CHARS)
    body.i = cursor.lastCids;
  const text = Buffer.from(JSON.stringify(body), 'utf8').toString('base64url');
  if (text.length > CURSOR_MAX_CHARS) {
    invalid(opsEndpoint('drm.packaging'), 'cursor', 'The filters are too long to page through: narrow them.');
  }
  return text;
}

/** Inverse of encodeCursor; a tampered or stale value gives a ValidationError, never a crash. */
export function decodeCursor(text: string): PackagingCursor {
  const endpoint = opsEndpoint('drm.packaging');
  const bad = () =>
    invalid(endpoint, 'cursor', {
      before: 'This page of packaging records is no longer valid: run ',
      step: { do: 'packaging' },
      after: ' again.',
    });
  if (text.length === 0 || text.length > CURSOR_MAX_CHARS || !/^[A-Za-z0-9_-]+$/.test(text)) bad();
  let raw: unknown;
  try {
    raw = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    return bad();
  }
  const r = cursorSchema.safeParse(raw);
  if (!r.success) return bad();
  const b = r.data;
  const query: PackagingQuery = { lastCreatedTimeCid: b.lc, lastUpdateTime: b.lu };
  if (b.f) query.from = b.f;
  if (b.t) query.to = b.t;
  if (b.c) query.searchCondition = b.c;
  if (b.k) query.searchKeyword = b.k;
  const range = {
    ...(b.a !== undefined ? { startMs: b.a } : {}),
    ...(b.b !== undefined ? { endMs: b.b } : {}),
  };
  const out: PackagingCursor =
    b.a !== undefined || b.b !== undefined ? { siteId: b.s, query, range } : { siteId: b.s, query };
  if (b.i !== undefined) out.lastCids = b.i;
  return out;
}

export interface PackagingPage {
  /** The reader's days of the first page's filters (rows outside them are left out). */
  dates?: ReaderDays & { exact: boolean };
  items: PackagingRecord[];
  /** Button value for "More", or null when this page was empty (nothing after it). */
  nextCursor: string | null;
  /**
   * No "More" although records may follow: the last record has no time to continue from (the
   * keyset needs its created and update times), or the service sent only records already shown
   * (more of one second than its page holds). Said to the reader, never taken as the end.
   */
  moreMayExist?: boolean;
}

/**
 * One packaging page: either the first (from filters) or the one after a cursor. The service
 * has no page size for this endpoint, so the end is known only when a page comes back empty:
 * a non-empty page always offers "More" (which may then say there is nothing more).
 * The keyset position is the last item's created_time / update_time exactly as the service
 * sent them (raw strings), so no time-zone or format conversion can skip or repeat items.
 */
export async function listPackaging(
  client: ServiceClient,
  start: { siteId: string; filters?: PackagingFilters } | { cursor: string },
): Promise<PackagingPage> {
  let siteId: string;
  let query: PackagingQuery;
  let range: PackagingCursor['range'];
  let days: ReaderDays | undefined;
  let lastCids: string[] | undefined;
  if ('cursor' in start) {
    ({ siteId, query, range, lastCids } = decodeCursor(start.cursor));
  } else {
    siteId = requireSiteId(opsEndpoint('drm.packaging'), start.siteId);
    query = toPackagingQuery(start.filters ?? {});
    days = readerDaysOf(start.filters ?? {});
    if (days)
      range = {
        ...(days.startMs !== undefined ? { startMs: days.startMs } : {}),
        ...(days.endMs !== undefined ? { endMs: days.endMs } : {}),
      };
  }
  const page = await client.listPackaging(siteId, query);
  // Only records later than the cursor are wanted. A service whose stored times are finer than
  // the seconds it prints can send the records of the cursor's second again (their real times
  // are a fraction of a second later): those already shown are dropped (by cid), and only they,
  // so "More" never shows a record twice nor loses a sibling of the same second. Without the
  // cids (a cursor too long to carry them), every record sitting exactly at the cursor is dropped.
  const at = query.lastCreatedTimeCid;
  const items =
    at === undefined
      ? page.items
      : page.items.filter(
          (r) =>
            !(
              r.createdTime.raw === at &&
              r.updateTime.raw === query.lastUpdateTime &&
              (lastCids === undefined || lastCids.includes(r.cid))
            ),
        );
  // The keyset moves over every row the service sent; only the reader's days are shown.
  const last = items.at(-1);
  // A record without a time cannot be continued from: stop, saying more may exist.
  const timeless = last !== undefined && (last.createdTime.raw === '' || last.updateTime.raw === '');
  // The cids shown at the last record's exact times (with the earlier ones when still the same).
  const shownAt = (l: PackagingRecord): string[] => {
    const same = (r: PackagingRecord) =>
      r.createdTime.raw === l.createdTime.raw && r.updateTime.raw === l.updateTime.raw;
    const before =
      l.createdTime.raw === at && l.updateTime.raw === query.lastUpdateTime ? (lastCids ?? []) : [];
    return [...new Set([...before, ...items.filter(same).map((r) => r.cid)])];
  };
  const nextCursor =
    last && !timeless
      ? encodeCursor({
          siteId,
          query: { ...query, lastCreatedTimeCid: last.createdTime.raw, lastUpdateTime: last.updateTime.raw },
          ...(range ? { range } : {}),
          lastCids: shownAt(last),
        })
      : null;
  // Every record sent was one already shown (a page full of the cursor's second): the keyset
  // cannot move past them, so this is not known to be the end.
  const stuck = items.length === 0 && page.items.length > 1 && at !== undefined;
  const moreMayExist = timeless || stuck;
  const shown = range
    ? items.filter((r) => inReaderRange({ zone: 'UTC', ...range }, r.createdTime.epochMs))
    : items;
  const out: PackagingPage = days
    ? { items: shown, nextCursor, dates: { ...days, exact: true } }
    : { items: shown, nextCursor };
  if (moreMayExist) out.moreMayExist = true;
  return out;
}
