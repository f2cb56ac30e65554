/**
 * The frame of a counted Watermarking list that may be of the reader's days (`/dwm jobs`,
 * `/dwm recipients`): the header, the filters line, the note on the covering UTC days, the line
 * of a page with no rows, the rows, and the position line. The feature adds its rows, its paging
 * buttons and what follows them.
 */
import { type Block, context, header, section } from '../../kit/blocks/blocks.js';
import { listPositionLine } from '../../kit/blocks/paging.js';

export interface DayListPage {
  title: string;
  /** The filters as applied (the first context line). */
  filterLine: string;
  /** Set when the list is of the reader's days: the note on the covering UTC days. */
  utcNote: string | undefined;
  totalCount: number;
  /** 1-based page of `pages`, `pageUnit` rows a page. */
  pageIndex: number;
  pageUnit: number;
  pages: number;
  rows: Block[];
  /** What a list with no match at all says (what to try instead). */
  noMatch: string;
  /** A row of the reader's days: "No `noun` on page N of the service's list `onDays` your days". */
  noun: string;
  onDays: string;
}

/** The number of pages of a counted list (at least one). */
export function pageCount(totalCount: number, pageUnit: number): number {
  return Math.max(1, Math.ceil(totalCount / pageUnit));
}

/** The list's blocks up to its position line (the paging buttons and the card context follow). */
export function dayListBlocks(p: DayListPage): Block[] {
  const { pageIndex, pages, totalCount } = p;
  const blocks: Block[] = [header(p.title), context(p.filterLine)];
  if (p.utcNote !== undefined) blocks.push(context(p.utcNote));
  if (p.rows.length === 0) {
    blocks.push(
      section(
        totalCount === 0
          ? p.noMatch
          : pageIndex > pages
            ? `Page ${pageIndex} is past the end (${pages} page${pages === 1 ? '' : 's'}).`
            : `No ${p.noun} on page ${pageIndex} of the service's list ${p.onDays} your days${pages > 1 ? ': try the other pages' : ''}.`,
      ),
    );
  }
  blocks.push(...p.rows);
  if (p.rows.length > 0)
    blocks.push(
      context(
        listPositionLine(p.utcNote !== undefined, pageIndex, p.pageUnit, p.rows.length, totalCount, pages),
      ),
    );
  return blocks;
}
