/**
 * Paging helpers.
 *
 * `iteratePages` walks page_index paging (watermarking lists, Service API lists 3, 4, 11-14) with
 * `PageWalk`: it stops when total_count is reached (when the page reports one), on a page shorter
 * than the first one, on an empty page or one with nothing new, or at `maxItems`. `iteratePackaging` walks the keyset paging of endpoint 15 using the last item's
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
  /** True when the service left total_count out (`totalCount` is then only the items seen). */
  totalUnknown?: boolean;
}

/** Pages one walk reads at most (a service that ignores page_index and never runs dry). */
export const MAX_PAGES = 10_000;

/**
 * When page_index paging is over. A service may cap page_unit below what was asked (the spec does
 * not say it cannot; "not shown"), so a page shorter than the size ASKED for is not the end: the
 * walk goes on while a page is as full as the FIRST page actually was. It stops on a shorter page,
 * an empty page, a page with nothing new (a service that ignores page_index: no progress), when
 * the reported total_count is reached, or after `maxPages`. A missing total_count is unknown, not
 * "what was seen". The price: a list smaller than one page without total_count costs one more
 * (empty) page.
 */
export class PageWalk {
  private full = 0;
  private seen = 0;
  private pages = 0;
  private readonly ids = new Set<unknown>();
  constructor(private readonly maxPages = MAX_PAGES) {}

  /**
   * The items of a page not returned by an earlier page of this walk (by `idOf`): a list that
   * shifted between two pages, or a service that ignores page_index, repeats items. Pass the
   * count on to `next` (nothing new: the walk ends).
   */
  fresh<T>(items: readonly T[], idOf: (item: T) => unknown): T[] {
    const out: T[] = [];
    for (const item of items) {
      const id = idOf(item);
      if (this.ids.has(id)) continue;
      this.ids.add(id);
      out.push(item);
    }
    return out;
  }

  /** After a page (`fresh`: its items not seen before; default all): true to fetch the next. */
  next(
    page: Omit<FetchedPage<unknown>, 'items'> & { items: readonly unknown[] },
    fresh = page.items.length,
  ): boolean {
    this.pages++;
    this.seen += fresh;
    const n = page.items.length;
    if (n === 0 || fresh === 0 || this.pages >= this.maxPages) return false;
    if (this.pages === 1) this.full = n;
    else if (n < this.full) return false;
    const total = page.totalUnknown ? undefined : page.totalCount;
    return total === undefined || this.seen < total;
  }
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
  const walk = new PageWalk(opts.maxPages ?? MAX_PAGES);
  let yielded = 0;
  if (maxItems <= 0) return;
  for (let pageIndex = 1; ; pageIndex++) {
    const page = await fetchPage({ pageIndex, pageUnit });
    for (const item of page.items) {
      yield item;
      yielded++;
      if (yielded >= maxItems) return;
    }
    if (!walk.next(page)) return;
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
