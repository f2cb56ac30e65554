/**
 * DRM data (`/drm licenses|users|devices|cids|packaging`): user filters to API queries, one page
 * for tables, the full-range CSV export, and keyset paging of the packaging history with a
 * compact cursor that fits a Slack button value. The entry point of src/ops/service/drm-data/,
 * one module per reason to change: `filters.ts` (the filters every kind shares), `licenses.ts`,
 * `counts.ts` (users, devices and cids, counted per UTC day), `csv-export.ts` and `packaging.ts`.
 */
export {
  type CidFilters,
  type CidQuery,
  type DeviceFilters,
  type DeviceQuery,
  listCids,
  listDevices,
  listUsers,
  toCidQuery,
  toDeviceQuery,
  toUserQuery,
  type UserFilters,
  type UserQuery,
} from './drm-data/counts.js';
export {
  EXPORT_MAX_ROWS,
  EXPORT_PAGE_UNIT,
  type ExportKind,
  type ExportOptions,
  type ExportProgress,
  type ExportQueries,
  type ExportResult,
  exportAll,
  type RowOf,
} from './drm-data/csv-export.js';
export {
  type DateFilters,
  parseDrmType,
  readerDaysOf,
  SEARCH_KEYWORD_MAX,
  SEARCH_OPTIONS,
} from './drm-data/filters.js';
export { type LicenseFilters, listLicenses, toLicenseQuery } from './drm-data/licenses.js';
export {
  CURSOR_MAX_CHARS,
  decodeCursor,
  encodeCursor,
  listPackaging,
  type PackagingCursor,
  type PackagingFilters,
  type PackagingPage,
  toPackagingQuery,
} from './drm-data/packaging.js';
