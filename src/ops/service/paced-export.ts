/**
 * The full-range DRM data export with paced progress: `exportAll` (src/ops/service/drm-data.ts)
 * fetches every page and reports each one; this wraps it so the caller's progress sink (a Slack
 * message that is edited) is called for the first page and then at most once per
 * `minIntervalMs` (Slack's chat.update is rate limited; an export of 100 pages must not send 100
 * edits in a few seconds). The final state is the caller's: it gets the result.
 * Also: user filters of one kind to that kind's API query (one switch, used by the Slack side).
 */
import type { ServiceClient } from '../../api/types.js';
import type { ReaderDays } from './common.js';
import {
  type ExportKind,
  type ExportProgress,
  type ExportQueries,
  type ExportResult,
  exportAll,
  type LicenseFilters,
  toCidQuery,
  toDeviceQuery,
  toLicenseQuery,
  toUserQuery,
} from './drm-data.js';

/** Filters as the user typed them; each kind takes its own subset (the op refuses the others). */
export type AnyDataFilters = Omit<LicenseFilters, 'page' | 'pageSize'>;

/** Only the filters a kind accepts (users: user; devices: device; cids: status), as its API query. */
export function exportQueryOf<K extends ExportKind>(kind: K, f: AnyDataFilters): ExportQueries[K] {
  const dates = {
    ...(f.from ? { from: f.from } : {}),
    ...(f.to ? { to: f.to } : {}),
    ...(f.timeZone ? { timeZone: f.timeZone } : {}),
  };
  switch (kind) {
    case 'licenses':
      return toLicenseQuery(f) as ExportQueries[K];
    case 'users':
      return toUserQuery({ ...dates, ...(f.user ? { user: f.user } : {}) }) as ExportQueries[K];
    case 'devices':
      return toDeviceQuery({ ...dates, ...(f.device ? { device: f.device } : {}) }) as ExportQueries[K];
    default:
      return toCidQuery({ ...dates, ...(f.status ? { status: f.status } : {}) }) as ExportQueries[K];
  }
}

export interface PacedExportOptions {
  /** Called for the first page, then at most once per minIntervalMs. Errors are the sink's own. */
  onProgress?: (p: ExportProgress) => Promise<void>;
  /** Default 1000 ms. */
  minIntervalMs?: number;
  /** Clock, epoch ms (default Date.now). */
  now?: () => number;
  /** The reader's days (licenses: rows outside them are left out). */
  days?: ReaderDays;
  maxRows?: number;
}

export async function exportWithProgress<K extends ExportKind>(
  kind: K,
  client: ServiceClient,
  siteId: string,
  query: ExportQueries[K],
  opts: PacedExportOptions = {},
): Promise<ExportResult & { progressCalls: number }> {
  const now = opts.now ?? Date.now;
  const interval = opts.minIntervalMs ?? 1000;
  let last: number | undefined;
  let progressCalls = 0;
  const result = await exportAll(kind, client, siteId, query, {
    ...(opts.maxRows !== undefined ? { maxRows: opts.maxRows } : {}),
    ...(opts.days ? { days: opts.days } : {}),
    onProgress: async (p) => {
      const t = now();
      if (last !== undefined && t - last < interval) return;
      last = t;
      progressCalls++;
      await opts.onProgress?.(p);
    },
  });
  return { ...result, progressCalls };
}
