/**
 * Paging of a list message: the Previous / Next buttons (the same labels on every list that
 * pages) and the "Showing a–b of N · page x of y" line of a list with a total count. Pure.
 */
import { type ButtonElement, button } from './blocks.js';
import { count } from './cards.js';

export const PAGE_LABELS = { prev: 'Previous', next: 'Next' } as const;

export interface PagingInput {
  /** The page Previous opens (none: no Previous button). */
  prev?: number | undefined;
  /** The page Next opens (none: no Next button). */
  next?: number | undefined;
  /** The list's page action id; the buttons are `<action><separator>prev` / `…next`. */
  action: string;
  separator?: '_' | '-';
  /** The button value that opens page `p`; undefined: the state does not fit a button value. */
  value: (p: number) => string | undefined;
}

/**
 * Previous / Next of a list, in that order. `unpageable`: a button was left out because its value
 * could not be built (the caller says how to page instead).
 */
export function pagingButtons(p: PagingInput): { buttons: ButtonElement[]; unpageable: boolean } {
  const buttons: ButtonElement[] = [];
  let unpageable = false;
  const sep = p.separator ?? '_';
  for (const dir of ['prev', 'next'] as const) {
    const page = p[dir];
    if (page === undefined) continue;
    const value = p.value(page);
    if (value === undefined) unpageable = true;
    else buttons.push(button(PAGE_LABELS[dir], `${p.action}${sep}${dir}`, { value }));
  }
  return { buttons, unpageable };
}

/** "Showing 21–40 of 137 · page 2 of 7" (1-based page, `shown` items on it). */
export function showingLine(
  pageIndex: number,
  pageUnit: number,
  shown: number,
  total: number,
  pages: number,
): string {
  const first = (pageIndex - 1) * pageUnit + 1;
  return `Showing ${count(first)}–${count(first + shown - 1)} of ${count(total)} · page ${pageIndex} of ${pages}`;
}

/**
 * The position line under a counted list: `showingLine`, or "Page 2 of 7 of the service's list"
 * when the list is of the reader's days (`readerDays`: the service counts the covering UTC days,
 * so its count and positions are not said as the reader's).
 */
export function listPositionLine(readerDays: boolean, ...at: Parameters<typeof showingLine>): string {
  const [pageIndex, , , , pages] = at;
  return readerDays ? `Page ${pageIndex} of ${pages} of the service's list` : showingLine(...at);
}

/**
 * The paging of a Service API list page (1-based `page`, `hasMore`: the service gives no total):
 * Previous from page 2, Next while there is more.
 */
export function svcPaging(
  page: { page: number; hasMore: boolean },
  action: string,
  value: (p: number) => string,
): PagingInput {
  return {
    prev: page.page > 1 ? page.page - 1 : undefined,
    next: page.hasMore ? page.page + 1 : undefined,
    action,
    value,
  };
}

/** The paging of a list with a total (1-based `pageIndex` of `pages`): Previous from page 2, Next before the last. */
export function countedPaging(
  pageIndex: number,
  pages: number,
  action: string,
  value: (p: number) => string | undefined,
): PagingInput {
  return {
    prev: pageIndex > 1 ? pageIndex - 1 : undefined,
    next: pageIndex < pages ? pageIndex + 1 : undefined,
    action,
    value,
  };
}
