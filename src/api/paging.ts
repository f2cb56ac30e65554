/**
 * Paging helpers.
 *
 * `iteratePages` walks page_index paging (watermarking lists, Service API lists 3, 4, 11-14): it
 * stops when total_count is reached (when the page reports one), on a short or empty page, or at
 * `maxItems`. `iteratePackaging` walks the keyset paging of endpoint 15 using the last item's
 * created/update times as the cursor, and stops on an empty page or a cursor that does not move.
 */
import type { PackagingQuery, PackagingRecord, ServiceClient } from './types.js';
import { LIMITS } from './validate.js';

export interface PageFetchArgs {
  pageIndex: number;
  pageUnit: number;
}

export interface FetchedPage<T> {
  items: T[];
  /** Total matches, when the API reports it (watermarking lists). */
  totalCount?: number;
}

export interface PagingOptions {
  /** Page size requested, 1..1000. Default 100. */
  pageUnit?: number;
  /** Stop after this many items. Default: no cap. */
  maxItems?: number;
  /** Hard stop after this many pages (guards against a service that ignores page_index). Default 10000. */
  maxPages?: number;
}

export async function* iteratePages<T>(
  fetchPage: (args: PageFetchArgs) => Promise<FetchedPage<T>>,
  opts: PagingOptions = {},
): AsyncGenerator<T, void, undefined> {
  const pageUnit = Math.min(Math.max(1, Math.floor(opts.pageUnit ?? 100)), LIMITS.pageUnitMax);
  const maxItems = opts.maxItems ?? Number.POSITIVE_INFINITY;
  const maxPages = opts.maxPages ?? 10_000;
  let yielded = 0;
  if (maxItems <= 0) return;
  for (let pageIndex = 1; pageIndex <= maxPages; pageIndex++) {
    const page = await fetchPage({ pageIndex, pageUnit });
    for (const item of page.items) {
      yield item;
      yielded++;
      if (yielded >= maxItems) return;
    }
    if (page.items.length === 0 || page.items.length < pageUnit) return;
    if (page.totalCount !== undefined && pageIndex * pageUnit >= page.totalCount) return;
  }
}

/** Drain an async iterable into an array (with an optional cap). */
export async function collectAll<T>(
  iter: AsyncIterable<T>,
  maxItems = Number.POSITIVE_INFINITY,
): Promise<T[]> {
  const out: T[] = [];
  if (maxItems <= 0) return out;
  for await (const item of iter) {
    out.push(item);
    if (out.length >= maxItems) break;
  }
  return out;
}

export async function* iteratePackaging(
  client: Pick<ServiceClient, 'listPackaging'>,
  siteId: string,
  query: Omit<PackagingQuery, 'lastCreatedTimeCid' | 'lastUpdateTime'> = {},
  opts: { maxItems?: number; maxPages?: number } = {},
): AsyncGenerator<PackagingRecord, void, undefined> {
  const maxItems = opts.maxItems ?? Number.POSITIVE_INFINITY;
  const maxPages = opts.maxPages ?? 10_000;
  let cursor: { lastCreatedTimeCid: string; lastUpdateTime: string } | undefined;
  let yielded = 0;
  if (maxItems <= 0) return;
  for (let n = 0; n < maxPages; n++) {
    const page = await client.listPackaging(siteId, { ...query, ...cursor });
    for (const item of page.items) {
      yield item;
      yielded++;
      if (yielded >= maxItems) return;
    }
    const last = page.items[page.items.length - 1];
    if (!last) return;
    const next = { lastCreatedTimeCid: last.createdTime.raw, lastUpdateTime: last.updateTime.raw };
    if (
      cursor &&
      cursor.lastCreatedTimeCid === next.lastCreatedTimeCid &&
      cursor.lastUpdateTime === next.lastUpdateTime
    ) {
      return; // the service ignored the cursor: stop rather than loop forever
    }
    cursor = next;
  }
}
