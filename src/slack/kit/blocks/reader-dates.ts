/**
 * Date filters in the reader's zone, for every feature whose lists take `from:`/`to:` days (DRM
 * data, additional-site requests): the words a reader may type for a day, and the reply line that
 * names the zone (and, where the service counts per UTC day, the UTC days the figures cover). The
 * ops turn the reader's days into the service's UTC days (src/ops/service/common.ts `readerDays`).
 */
import { resolveDate } from '../../../ops/jobs.js';
import type { PageResult } from '../../../ops/service/common.js';
import { esc } from './mrkdwn.js';

/** `today`, `yesterday`, `Nd` to the reader's yyyy-MM-dd (others left for the op to check). */
export function readerDateWords<F extends { from?: string; to?: string }>(
  f: F,
  tz: string,
  nowMs: number,
): F {
  const out = { ...f };
  for (const k of ['from', 'to'] as const) {
    const v = f[k];
    if (v === undefined) continue;
    const r = resolveDate(v, tz, nowMs);
    if (r.ok) out[k] = r.date;
  }
  return out;
}

/**
 * The date range in one zone, the reader's (named as such, or by name in a shared reply), said in the reply. Counts the service sums per UTC
 * day cannot be cut to the reader's days: the UTC days they cover are named.
 */
export function datesLine(
  d: PageResult<unknown>['dates'],
  opts: { shared?: boolean } = {},
): string | undefined {
  if (!d) return undefined;
  const range =
    d.from && d.to
      ? d.from === d.to
        ? `on ${d.from}`
        : `from ${d.from} to ${d.to}`
      : d.from
        ? `from ${d.from}`
        : `up to ${d.to}`;
  // A shared reply is read by people in other zones: the zone is named, not called "your".
  const head = opts.shared
    ? `Dates ${range}, in the ${esc(d.zone)} time zone.`
    : `Dates ${range}, in your time zone (${esc(d.zone)}).`;
  if (d.exact || d.zone === 'UTC') return head;
  const utc =
    d.utcFrom && d.utcTo
      ? `${d.utcFrom} to ${d.utcTo}`
      : d.utcFrom
        ? `from ${d.utcFrom}`
        : `up to ${d.utcTo}`;
  return `${head} The service counts per UTC day, so these figures cover ${utc} UTC.`;
}

/** The UTC days a watermarking list was asked for, covering the reader's `from:`/`to:` days. */
export interface UtcDays {
  from?: string | undefined;
  to?: string | undefined;
}

/**
 * The line under a watermarking list filtered by the reader's days: the service was asked for the
 * covering UTC days, its total_count is of those, and only the rows of the reader's days are
 * listed (so a page may hold fewer rows than its size).
 */
export function utcDaysNote(utc: UtcDays, countText: string, noun: string, pageUnit: number): string {
  const span =
    utc.from && utc.to ? `${utc.from} to ${utc.to}` : utc.from ? `from ${utc.from}` : `up to ${utc.to}`;
  return `The service filters by UTC day: it was asked for ${span} UTC (${countText}), and only the ${noun} of your days are listed, so a page may hold fewer than ${pageUnit}.`;
}
