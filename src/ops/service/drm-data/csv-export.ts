/**
 * The full-range CSV export of the DRM data (licenses, users, devices, cids): every page of a
 * kind's query fetched one after the other up to a row cap, the columns of each kind, and the
 * license rows outside the reader's days left out. The paced progress around it is
 * ../paced-export.ts.
 */
import { collectAll, iteratePages, type PageFetchArgs } from '../../../api/paging.js';
import type {
  CidLicense,
  DrmDevice,
  DrmUser,
  LicenseQuery,
  LicenseRecord,
  ServiceClient,
  SvcPage,
  TimeValue,
} from '../../../api/types.js';
import { LIMITS } from '../../../api/validate.js';
import { type CsvColumn, writeCsv } from '../../csv.js';
import { inReaderRange, invalid, opsEndpoint, type ReaderDays, requireSiteId } from '../common.js';
import type { CidQuery, DeviceQuery, UserQuery } from './counts.js';

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
