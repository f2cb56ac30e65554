/**
 * DRM data (`/drm licenses|users|devices|cids|packaging`): user filters to API queries, one page
 * for tables, the full-range CSV export, and keyset paging of the packaging history with a
 * compact cursor that fits a Slack button value.
 */
import { z } from 'zod';
import { DRM_TYPES, type LicenseSearchCondition } from '../../api/codes.js';
import { collectAll, iteratePages, type PageFetchArgs } from '../../api/paging.js';
import type {
  CidLicense,
  DrmDevice,
  DrmListQuery,
  DrmUser,
  LicenseQuery,
  LicenseRecord,
  PackagingQuery,
  PackagingRecord,
  ServiceClient,
  SvcPage,
  TimeValue,
} from '../../api/types.js';
import { LIMITS, SITE_ID_RE } from '../../api/validate.js';
import { type CsvColumn, writeCsv } from '../csv.js';
import {
  applyDates,
  inReaderRange,
  invalid,
  opsEndpoint,
  type PageInput,
  type PageResult,
  parseInput,
  type ReaderDays,
  readerDateFields,
  requireSiteId,
  toPageQuery,
  toPageResult,
} from './common.js';

/** Longest search keyword accepted (content ids are at most 200 bytes; the others have no limit). */
export const SEARCH_KEYWORD_MAX = 200;

const keyword = (what: string) =>
  z
    .string()
    .trim()
    .min(1, `The ${what} is empty: give a value after the colon.`)
    .max(SEARCH_KEYWORD_MAX, `The ${what} is longer than ${SEARCH_KEYWORD_MAX} characters.`);

const pageFields = { page: z.number().optional(), pageSize: z.number().optional() };

const licenseFilters = z
  .object({
    ...readerDateFields,
    ...pageFields,
    status: z.enum(['success', 'fail'], { error: 'The status must be success or fail.' }).optional(),
    cid: keyword('content id').optional(),
    drm: keyword('DRM type').optional(),
    user: keyword('user id').optional(),
    device: keyword('device id').optional(),
    model: keyword('device model').optional(),
  })
  .strict();

export interface DateFilters {
  /** yyyy-MM-dd, a day of the reader (in `timeZone`) */
  from?: string;
  /** yyyy-MM-dd, a day of the reader (in `timeZone`) */
  to?: string;
  /** The reader's IANA zone (Slack users.info tz); default UTC. */
  timeZone?: string;
}

export interface LicenseFilters extends DateFilters, PageInput {
  status?: 'success' | 'fail';
  cid?: string;
  drm?: string;
  user?: string;
  device?: string;
  model?: string;
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
function searchOf(
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

export function toLicenseQuery(filters: LicenseFilters): LicenseQuery {
  return licenseQueryOf(filters).q;
}

function licenseQueryOf(filters: LicenseFilters): { q: LicenseQuery; days: ReaderDays | undefined } {
  const endpoint = opsEndpoint('drm.licenses');
  const f = parseInput(endpoint, licenseFilters, filters);
  const q: LicenseQuery = { ...toPageQuery(endpoint, f) };
  const days = applyDates(endpoint, f, q, f.timeZone);
  if (f.status) q.searchStatus = f.status;
  const s = searchOf(endpoint, f);
  if (s) Object.assign(q, s);
  return { q, days };
}

/** The reader's days of a filter set (undefined without dates), for the reply and the export. */
export function readerDaysOf(filters: DateFilters): ReaderDays | undefined {
  const endpoint = opsEndpoint('drm.dates');
  const f = parseInput(endpoint, z.object(readerDateFields).passthrough(), filters);
  return applyDates(endpoint, f, {}, f.timeZone);
}

const userFilters = z
  .object({ ...readerDateFields, ...pageFields, user: keyword('user id').optional() })
  .strict();
const deviceFilters = z
  .object({ ...readerDateFields, ...pageFields, device: keyword('device id').optional() })
  .strict();
const cidFilters = z
  .object({
    ...readerDateFields,
    ...pageFields,
    status: z.enum(['success', 'fail'], { error: 'The status must be success or fail.' }).optional(),
  })
  .strict();

export interface UserFilters extends DateFilters, PageInput {
  user?: string;
}
export interface DeviceFilters extends DateFilters, PageInput {
  device?: string;
}
export interface CidFilters extends DateFilters, PageInput {
  status?: 'success' | 'fail';
}

export type UserQuery = DrmListQuery & { searchKeyword?: string };
export type DeviceQuery = DrmListQuery & { searchKeyword?: string };
export type CidQuery = DrmListQuery & { searchStatus?: 'success' | 'fail' };

export function toUserQuery(filters: UserFilters): UserQuery {
  const endpoint = opsEndpoint('drm.users');
  const f = parseInput(endpoint, userFilters, filters);
  const q: UserQuery = { ...toPageQuery(endpoint, f) };
  applyDates(endpoint, f, q, f.timeZone);
  if (f.user) q.searchKeyword = f.user;
  return q;
}

export function toDeviceQuery(filters: DeviceFilters): DeviceQuery {
  const endpoint = opsEndpoint('drm.devices');
  const f = parseInput(endpoint, deviceFilters, filters);
  const q: DeviceQuery = { ...toPageQuery(endpoint, f) };
  applyDates(endpoint, f, q, f.timeZone);
  if (f.device) q.searchKeyword = f.device;
  return q;
}

export function toCidQuery(filters: CidFilters): CidQuery {
  const endpoint = opsEndpoint('drm.cids');
  const f = parseInput(endpoint, cidFilters, filters);
  const q: CidQuery = { ...toPageQuery(endpoint, f) };
  applyDates(endpoint, f, q, f.timeZone);
  if (f.status) q.searchStatus = f.status;
  return q;
}

// ---------------------------------------------------------------------------------------------
// One page for tables
// ---------------------------------------------------------------------------------------------

export async function listLicenses(
  client: ServiceClient,
  siteId: string,
  filters: LicenseFilters = {},
): Promise<PageResult<LicenseRecord>> {
  requireSiteId(opsEndpoint('drm.licenses'), siteId);
  const { q, days } = licenseQueryOf(filters);
  const page = toPageResult(await client.listLicenses(siteId, q));
  if (!days) return page;
  // Paging follows the service's page (hasMore from the unfiltered page); the rows shown are
  // the reader's days only.
  return {
    ...page,
    items: page.items.filter((r) => inReaderRange(days, r.regTime.epochMs)),
    dates: { ...days, exact: true },
  };
}

export async function listUsers(
  client: ServiceClient,
  siteId: string,
  filters: UserFilters = {},
): Promise<PageResult<DrmUser>> {
  requireSiteId(opsEndpoint('drm.users'), siteId);
  const page = toPageResult(await client.listUsers(siteId, toUserQuery(filters)));
  return withCountedDays(page, filters);
}

export async function listDevices(
  client: ServiceClient,
  siteId: string,
  filters: DeviceFilters = {},
): Promise<PageResult<DrmDevice>> {
  requireSiteId(opsEndpoint('drm.devices'), siteId);
  const page = toPageResult(await client.listDevices(siteId, toDeviceQuery(filters)));
  return withCountedDays(page, filters);
}

export async function listCids(
  client: ServiceClient,
  siteId: string,
  filters: CidFilters = {},
): Promise<PageResult<CidLicense>> {
  requireSiteId(opsEndpoint('drm.cids'), siteId);
  const page = toPageResult(await client.listCidLicenses(siteId, toCidQuery(filters)));
  return withCountedDays(page, filters);
}

/** Counts summed per UTC day by the service: the reply says which UTC days they cover. */
function withCountedDays<T>(page: PageResult<T>, filters: DateFilters): PageResult<T> {
  const days = readerDaysOf(filters);
  return days ? { ...page, dates: { ...days, exact: false } } : page;
}

// ---------------------------------------------------------------------------------------------
// Export CSV of the full range
// ---------------------------------------------------------------------------------------------

export type ExportKind = 'licenses' | 'users' | 'devices' | 'cids';

export interface ExportQueries {
  licenses: LicenseQuery;
  users: UserQuery;
  devices: DeviceQuery;
  cids: CidQuery;
}

export interface ExportProgress {
  kind: ExportKind;
  pages: number;
  rows: number;
}

export interface ExportOptions {
  onProgress?: (p: ExportProgress) => void | Promise<void>;
  /**
   * Row cap (default EXPORT_MAX_ROWS). The export stops there and says `truncated`: a Slack file
   * of 100,000 rows is already ~10 MB, and the cap also ends a loop if a service ignored
   * page_index and kept sending full pages.
   */
  maxRows?: number;
  /**
   * The reader's days (`readerDaysOf`): license rows outside them are left out (the query asks
   * for the UTC days that cover them). Counts per UTC day (users, devices, cids) are kept as sent.
   */
  days?: ReaderDays;
}

export interface ExportResult {
  kind: ExportKind;
  csv: string;
  /** Data rows in the CSV (the header not counted). */
  rowCount: number;
  pages: number;
  /** True when maxRows stopped the export before the last page. */
  truncated: boolean;
  /** Suggested file name, e.g. "drm-licenses-AB12.csv". */
  filename: string;
}

export const EXPORT_PAGE_UNIT = LIMITS.pageUnitMax;
export const EXPORT_MAX_ROWS = 100_000;

function timeCell(t: TimeValue): string {
  return t.epochMs === null ? t.raw : new Date(t.epochMs).toISOString();
}

const COLUMNS: { [K in ExportKind]: CsvColumn<RowOf<K>>[] } = {
  licenses: [
    { header: 'cid', value: (r) => r.cid },
    { header: 'status', value: (r) => r.status },
    { header: 'error_code', value: (r) => r.errorCode },
    { header: 'drm_type', value: (r) => r.drmType },
    { header: 'user_id', value: (r) => r.userId },
    { header: 'device_id', value: (r) => r.deviceId },
    { header: 'device_model', value: (r) => r.deviceModel },
    { header: 'license_type', value: (r) => r.licenseType },
    { header: 'platform_name', value: (r) => r.platformName },
    { header: 'reg_time', value: (r) => timeCell(r.regTime) },
  ],
  users: [
    { header: 'user_id', value: (r) => r.userId },
    { header: 'license_cnt', value: (r) => r.licenseCount },
    { header: 'device_cnt', value: (r) => r.deviceCount },
    { header: 'success', value: (r) => r.success },
    { header: 'fail', value: (r) => r.fail },
  ],
  devices: [
    { header: 'device_id', value: (r) => r.deviceId },
    { header: 'device_model', value: (r) => r.deviceModel },
    { header: 'license_cnt', value: (r) => r.licenseCount },
    { header: 'success', value: (r) => r.success },
    { header: 'fail', value: (r) => r.fail },
  ],
  cids: [
    { header: 'cid', value: (r) => r.cid },
    { header: 'license_cnt', value: (r) => r.licenseCount },
  ],
};

export type RowOf<K extends ExportKind> = K extends 'licenses'
  ? LicenseRecord
  : K extends 'users'
    ? DrmUser
    : K extends 'devices'
      ? DrmDevice
      : CidLicense;

function fetchPageFn<K extends ExportKind>(
  kind: K,
  client: ServiceClient,
  siteId: string,
  query: ExportQueries[K],
): (args: PageFetchArgs) => Promise<SvcPage<RowOf<K>>> {
  return ({ pageIndex, pageUnit }) => {
    const q = { ...query, pageIndex, pageUnit };
    switch (kind) {
      case 'licenses':
        return client.listLicenses(siteId, q as LicenseQuery) as Promise<SvcPage<RowOf<K>>>;
      case 'users':
        return client.listUsers(siteId, q as UserQuery) as Promise<SvcPage<RowOf<K>>>;
      case 'devices':
        return client.listDevices(siteId, q as DeviceQuery) as Promise<SvcPage<RowOf<K>>>;
      default:
        return client.listCidLicenses(siteId, q as CidQuery) as Promise<SvcPage<RowOf<K>>>;
    }
  };
}

/**
 * Fetches every page (page_unit 1000, page_index 1, 2, ...) of the query through the API's
 * `iteratePages` and returns the CSV. Pages are fetched one after the other (the service has no
 * total count, so the end is a page shorter than the first one, or an empty page: see PageWalk)
 * and `onProgress` is called after each page.
 * The query's own paging is ignored. One row beyond `maxRows` is asked for, so `truncated` is
 * exact: true only when rows were really left out.
 */
export async function exportAll<K extends ExportKind>(
  kind: K,
  client: ServiceClient,
  siteId: string,
  query: ExportQueries[K],
  opts: ExportOptions = {},
): Promise<ExportResult> {
  const endpoint = opsEndpoint(`drm.export.${kind}`);
  requireSiteId(endpoint, siteId);
  const maxRows = opts.maxRows ?? EXPORT_MAX_ROWS;
  if (!Number.isInteger(maxRows) || maxRows < 1) {
    invalid(endpoint, 'maxRows', `The row cap ${maxRows} is not valid: use a whole number of at least 1.`);
  }
  const fetchPage = fetchPageFn(kind, client, siteId, query);
  let pages = 0;
  let fetched = 0;
  const counted = async (args: PageFetchArgs): Promise<SvcPage<RowOf<K>>> => {
    const page = await fetchPage(args);
    pages++;
    fetched += page.items.length;
    await opts.onProgress?.({ kind, pages, rows: Math.min(fetched, maxRows) });
    return page;
  };
  const all = await collectAll(iteratePages(counted, { pageUnit: EXPORT_PAGE_UNIT, maxItems: maxRows + 1 }));
  const days = opts.days;
  const rows =
    kind === 'licenses' && days
      ? all.filter((r) => inReaderRange(days, (r as LicenseRecord).regTime.epochMs))
      : all;
  // Truncated when the service had more rows than the cap (before the reader's-days cut).
  const truncated = all.length > maxRows;
  if (rows.length > maxRows) rows.length = maxRows;
  const csv = writeCsv(COLUMNS[kind] as CsvColumn<RowOf<K>>[], rows);
  return { kind, csv, rowCount: rows.length, pages, truncated, filename: `drm-${kind}-${siteId}.csv` };
}

// ---------------------------------------------------------------------------------------------
// Packaging history: keyset paging with a cursor for a "More" button
// ---------------------------------------------------------------------------------------------

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
    cid: keyword('content id').optional(),
    drm: keyword('DRM type').optional(),
    user: keyword('user id').optional(),
    device: keyword('device id').optional(),
    model: keyword('device model').optional(),
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
    invalid(
      opsEndpoint('drm.packaging'),
      'cursor',
      'The filters are too long to page with a button: narrow them.',
    );
  }
  return text;
}

/** Inverse of encodeCursor; a tampered or stale value gives a ValidationError, never a crash. */
export function decodeCursor(text: string): PackagingCursor {
  const endpoint = opsEndpoint('drm.packaging');
  const bad = () =>
    invalid(endpoint, 'cursor', 'This "More" button is no longer valid: run /drm packaging again.');
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
