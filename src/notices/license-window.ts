/**
 * Reading a site's license failures: the window of the license list (endpoint 11) a poll reads,
 * `from`/`to` narrowed to the window's UTC days, pages in the list's detected order under a page
 * cap (readLicenseWindow), and the counts of a window (windowStats: totals, ratio, the top errors,
 * contents and device models). Used by the alert poll (license-alerts.ts) and the digest's license
 * counts (digest-compose.ts).
 */
import type { LicenseRecord, ServiceClient } from '../api/types.js';
import { utcDay } from '../time.js';
import type { Ranked, WindowStats } from './types.js';

export interface WindowRead {
  siteId: string;
  fromMs: number;
  toMs: number;
  /** Records inside [fromMs, toMs]. */
  records: LicenseRecord[];
  pages: number;
  /** True when the page cap stopped the read before the whole window was covered. */
  truncated: boolean;
  /** The list's order as detected on its first page. */
  order: 'newest-first' | 'oldest-first' | 'unknown';
}

export interface WindowReadOptions {
  /** Records per page. Default 200. */
  pageUnit?: number;
  /** Page cap per read (every call counts). Default 20. */
  maxPages?: number;
}

/**
 * The `from`/`to` days (`YYYY-MM-DD`) the license list is asked for to cover [fromMs, toMs]: the
 * UTC days with a day of margin on both sides (the zone of the service's days is not shown).
 */
export function licenseWindowDays(fromMs: number, toMs: number): { from: string; to: string } {
  return { from: utcDay(fromMs - 24 * 3600_000), to: utcDay(toMs + 24 * 3600_000) };
}

class PageCapReached extends Error {}

/**
 * The license records of [fromMs, toMs], at most `maxPages` calls.
 *
 * The spec says neither the list's order nor the zone of `reg_time`/`from`/`to`. Choices:
 * - `from`/`to` are UTC days (what the emulator and the sample use) with a day of margin on
 *   both sides, so a service counting days (or writing `reg_time`) in another zone up to a day
 *   off still returns the window; `reg_time` itself is read in SERVICE_LICENSE_TIME_ZONE (default UTC; src/api).
 * - The order is detected from the first page (its first and last record times), and the read
 *   goes in that direction until the window is covered:
 *   newest first: pages in order until one reaches past the window's start (a busy list costs
 *   one page per poll);
 *   oldest first: the window sits at the end, behind the margin's older records: the first page
 *   reaching the window is found by probing pages 2, 3, 5, 9… then halving (a few calls instead
 *   of reading every older page), then pages in order until one starts after the window;
 *   unknown (all times equal, or none): every page until a short one.
 * - When the cap stops the read before the window is covered, `truncated` says so: the counts
 *   are a floor, and the alerts list says "window not fully read" instead of a silent 0 of 0.
 */
export async function readLicenseWindow(
  client: ServiceClient,
  siteId: string,
  fromMs: number,
  toMs: number,
  opts: WindowReadOptions = {},
): Promise<WindowRead> {
  const pageUnit = opts.pageUnit ?? 200;
  const maxPages = Math.max(1, opts.maxPages ?? 20);
  const out: WindowRead = {
    siteId,
    fromMs,
    toMs,
    records: [],
    pages: 0,
    truncated: false,
    order: 'unknown',
  };
  const { from, to } = licenseWindowDays(fromMs, toMs);
  const pages = new Map<number, LicenseRecord[]>();
  const read = async (i: number): Promise<LicenseRecord[]> => {
    const cached = pages.get(i);
    if (cached) return cached;
    if (out.pages >= maxPages) throw new PageCapReached();
    out.pages++;
    const p = await client.listLicenses(siteId, { from, to, pageUnit, pageIndex: i });
    pages.set(i, p.items);
    return p.items;
  };
  const times = (items: LicenseRecord[]) =>
    items.map((r) => r.regTime.epochMs).filter((t): t is number => t !== null);
  const full = (items: LicenseRecord[]) => items.length >= pageUnit;
  /** Entirely before the window (every dated record older than fromMs). */
  const before = (items: LicenseRecord[]) => {
    const t = times(items);
    return t.length > 0 && Math.max(...t) < fromMs;
  };
  /** Holds a record older than the window (newest first: every later page is older still). */
  const reachesBefore = (items: LicenseRecord[]) => {
    const t = times(items);
    return t.length > 0 && Math.min(...t) < fromMs;
  };
  const after = (items: LicenseRecord[]) => {
    const t = times(items);
    return t.length > 0 && Math.min(...t) > toMs;
  };
  try {
    const first = await read(1);
    const t = times(first);
    const a = t[0];
    const b = t[t.length - 1];
    out.order =
      a === undefined || b === undefined || a === b ? 'unknown' : a > b ? 'newest-first' : 'oldest-first';
    if (full(first)) {
      if (out.order === 'oldest-first') {
        // Find the first page that is not entirely before the window: gallop, then halve.
        let lo = 0; // the last page known to be entirely before the window (0: none)
        let hi: number | undefined; // the first page known not to be
        if (before(first)) {
          lo = 1;
          for (let step = 1; hi === undefined; step *= 2) {
            const i = lo + step;
            const items = await read(i);
            if (full(items) && before(items)) lo = i;
            else hi = i;
          }
          while (hi - lo > 1) {
            const mid = Math.floor((lo + hi) / 2);
            const items = await read(mid);
            if (full(items) && before(items)) lo = mid;
            else hi = mid;
          }
        }
        for (let i = lo + 1; ; i++) {
          const items = await read(i);
          if (!full(items) || after(items)) break;
        }
      } else {
        for (let i = 2; ; i++) {
          const prev = pages.get(i - 1) ?? [];
          if (out.order === 'newest-first' && reachesBefore(prev)) break;
          const items = await read(i);
          if (!full(items)) break;
        }
      }
    }
  } catch (e) {
    if (!(e instanceof PageCapReached)) throw e;
    out.truncated = true;
  }
  for (const i of [...pages.keys()].sort((x, y) => x - y)) {
    for (const r of pages.get(i) ?? []) {
      const ms = r.regTime.epochMs;
      if (ms !== null && ms >= fromMs && ms <= toMs) out.records.push(r);
    }
  }
  return out;
}

function top(counts: Map<string, number>, n = 5): Ranked[] {
  return [...counts]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, n)
    .map(([key, count]) => ({ key, count }));
}

/** Counts of the records at or after `fromMs` (pure). */
export function windowStats(read: WindowRead, fromMs: number): WindowStats {
  let total = 0;
  let failed = 0;
  const errors = new Map<string, number>();
  const content = new Map<string, number>();
  const devices = new Map<string, number>();
  for (const r of read.records) {
    const t = r.regTime.epochMs;
    if (t === null || t < fromMs) continue;
    total++;
    if (r.status !== 'fail') continue;
    failed++;
    const inc = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);
    inc(errors, r.errorCode || '(none)');
    inc(content, r.cid || '(none)');
    // The device model only, never the device id: an alert is posted in a channel every member
    // reads, and device ids are end viewers' personal data (admin-only: docs/security.md).
    inc(devices, r.deviceModel || '(model unknown)');
  }
  return {
    siteId: read.siteId,
    fromMs,
    toMs: read.toMs,
    total,
    failed,
    ratio: total > 0 ? failed / total : 0,
    topErrors: top(errors),
    topContent: top(content),
    topDevices: top(devices),
    truncated: read.truncated,
  };
}
