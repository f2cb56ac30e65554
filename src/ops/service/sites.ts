/**
 * Sites of the account (`/drm sites`), additional-site requests (`/drm site request <name>`,
 * admin) and their listing with filters (`/drm site requests [from:] [to:] [status:]
 * [account:|site:]`).
 */
import { z } from 'zod';
import { codeLabel, PRODUCT_STATUS, type ProductStatusCode, type ServiceCode } from '../../api/codes.js';
import type { AdditionalSiteRequest, AdditionalSiteRequestQuery, ServiceClient } from '../../api/types.js';
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
  serviceLabel,
  toPageQuery,
  toPageResult,
} from './common.js';

export interface SiteProductView {
  serviceCode: ServiceCode;
  /** "DRM" / "FWM". */
  label: string;
  status: ProductStatusCode;
  /** "In service" / "Suspended" (the code itself when the service sends an unknown one). */
  statusLabel: string;
  inService: boolean;
}

export interface SiteView {
  siteId: string;
  name: string;
  products: SiteProductView[];
}

/** Every site of the account with its products, sorted by site id; products DRM before FWM. */
export async function listSites(client: ServiceClient): Promise<SiteView[]> {
  const sites = await client.getSites();
  return sites
    .map((s) => ({
      siteId: s.siteId,
      name: s.name,
      products: s.products
        .map((p) => ({
          serviceCode: p.serviceCode,
          label: serviceLabel(p.serviceCode),
          status: p.status,
          statusLabel: codeLabel(PRODUCT_STATUS, p.status),
          inService: p.status === 'SE000',
        }))
        .sort((a, b) => a.serviceCode.localeCompare(b.serviceCode)),
    }))
    .sort((a, b) => a.siteId.localeCompare(b.siteId));
}

/**
 * Longest accepted name for a new site. The spec gives no limit ("service_name: string"); 100
 * characters is well above any real site name and keeps the name readable in Slack fields and
 * safe for the service's columns. Change here if the provider documents another limit.
 */
export const SITE_NAME_MAX = 100;

/** Validates a new site's name: trimmed, 1..SITE_NAME_MAX characters, no control characters. */
export function checkSiteName(name: string): string | null {
  const n = name.trim();
  if (n.length === 0) return 'The site name is empty: give the name of the new site, like "Movies EU".';
  if (n.length > SITE_NAME_MAX) {
    // The limit is the bot's own (the spec gives none): said as such, not as the service's.
    return `The site name is ${n.length} characters long; this bot takes at most ${SITE_NAME_MAX} (its own limit: the service documents none).`;
  }
  if (/[\u0000-\u001f\u007f]/.test(n)) return 'The site name contains control characters: use plain text.';
  return null;
}

/** Asks the provider for an additional site. Admin only (enforced by the caller, see slack). */
export async function requestAdditionalSite(
  client: ServiceClient,
  name: string,
): Promise<{ seq: number; name: string }> {
  const endpoint = opsEndpoint('sites.request');
  const finding = checkSiteName(name);
  if (finding) invalid(endpoint, 'name', finding);
  const trimmed = name.trim();
  const { seq } = await client.requestAdditionalSite(trimmed);
  return { seq, name: trimmed };
}

const siteRequestFilters = z
  .object({
    ...readerDateFields,
    status: z.string().trim().min(1, 'The status is empty.').max(40, 'The status is too long.').optional(),
    account: z
      .string()
      .trim()
      .min(1, 'The account id is empty.')
      .max(100, 'The account id is longer than 100 characters.')
      .optional(),
    site: z
      .string()
      .trim()
      .min(1, 'The site id is empty.')
      .max(20, 'The site id is longer than 20 characters.')
      .optional(),
    page: z.number().optional(),
    pageSize: z.number().optional(),
  })
  .strict();

export interface SiteRequestFilters extends PageInput {
  /** yyyy-MM-dd, a day of the reader (in `timeZone`). */
  from?: string;
  /** yyyy-MM-dd, a day of the reader (in `timeZone`). */
  to?: string;
  /**
   * The reader's IANA zone (Slack users.info tz; default UTC): the service filters by UTC day, so
   * it is asked for the UTC days covering the reader's days and the rows outside them are left
   * out (see `ReaderDays` in ./common.ts).
   */
  timeZone?: string;
  /**
   * Passed through as `req_status`: the spec does not list its values, so no fixed list is
   * enforced here (the service decides; the emulator uses e.g. "requested").
   */
  status?: string;
  account?: string;
  site?: string;
}

/** User filters to the API query; `account:` and `site:` are exclusive (one search_type). */
export function toSiteRequestQuery(filters: SiteRequestFilters): AdditionalSiteRequestQuery {
  return siteRequestQueryOf(filters).q;
}

function siteRequestQueryOf(filters: SiteRequestFilters): {
  q: AdditionalSiteRequestQuery;
  days: ReaderDays | undefined;
} {
  const endpoint = opsEndpoint('sites.requests');
  const f = parseInput(endpoint, siteRequestFilters, filters);
  const q: AdditionalSiteRequestQuery = { ...toPageQuery(endpoint, f) };
  const days = applyDates(endpoint, f, q, f.timeZone);
  if (f.status !== undefined) q.reqStatus = f.status;
  if (f.account !== undefined && f.site !== undefined) {
    invalid(
      endpoint,
      'account',
      'Give either account: or site:, not both: the service searches by one of them.',
    );
  }
  if (f.account !== undefined) {
    q.searchType = 'account_id';
    q.searchKeyword = f.account;
  } else if (f.site !== undefined) {
    q.searchType = 'site_id';
    q.searchKeyword = f.site;
  }
  return { q, days };
}

export async function listSiteRequests(
  client: ServiceClient,
  filters: SiteRequestFilters = {},
): Promise<PageResult<AdditionalSiteRequest>> {
  const { q, days } = siteRequestQueryOf(filters);
  const page = toPageResult(await client.listAdditionalSiteRequests(q));
  if (!days) return page;
  // Paging follows the service's page; the rows shown are the reader's days only.
  return {
    ...page,
    items: page.items.filter((r) => inReaderRange(days, r.regTime.epochMs)),
    dates: { ...days, exact: true },
  };
}
