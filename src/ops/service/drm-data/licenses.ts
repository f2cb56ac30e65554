/**
 * License records (`/drm licenses`): the filters (status, one search option, the reader's
 * dates) to the API query, and one page for the table with the rows outside the reader's days
 * left out.
 */
import { z } from 'zod';
import type { LicenseQuery, LicenseRecord, ServiceClient } from '../../../api/types.js';
import {
  applyDates,
  inReaderRange,
  opsEndpoint,
  type PageInput,
  type PageResult,
  parseInput,
  type ReaderDays,
  readerDateFields,
  requireSiteId,
  toPageQuery,
  toPageResult,
} from '../common.js';
import { type DateFilters, pageFields, searchFields, searchOf, statusFilter } from './filters.js';

const licenseFilters = z
  .object({
    ...readerDateFields,
    ...pageFields,
    status: statusFilter,
    ...searchFields,
  })
  .strict();

export interface LicenseFilters extends DateFilters, PageInput {
  status?: 'success' | 'fail';
  cid?: string;
  drm?: string;
  user?: string;
  device?: string;
  model?: string;
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
