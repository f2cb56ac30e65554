/**
 * Monthly statistics (`/drm stats [site:] [yyyy-MM-dd | yyyy-MM]`): active licenses, users and
 * devices of the target month and the change against the previous month.
 */
import { addMonths, format } from 'date-fns';
import type { MonthlyStats, ServiceClient } from '../../api/types.js';
import { checkDate } from '../../api/validate.js';
import { monthIn } from '../../time.js';
import { invalid, opsEndpoint, requireSiteId } from './common.js';

export interface StatsDateOptions {
  /** The user's IANA zone (e.g. "Asia/Seoul"), used only when no date is given. Default UTC. */
  timeZone?: string;
  /** Clock, epoch ms. Default Date.now. */
  now?: () => number;
}

const MONTH_RE = /^(\d{4})-(\d{2})$/;

/**
 * The target date sent as `target_date`:
 * - `yyyy-MM-dd` as given;
 * - `yyyy-MM` -> the first day of that month;
 * - nothing -> the first day of the current month in the user's zone (near midnight on the 1st,
 *   users east and west of UTC are in different months; their own zone decides).
 */
export function parseStatsDate(input: string | undefined, opts: StatsDateOptions = {}): string {
  const endpoint = opsEndpoint('stats');
  const v = input?.trim() ?? '';
  if (v === '') {
    const tz = opts.timeZone ?? 'UTC';
    let month: string;
    try {
      month = monthIn((opts.now ?? Date.now)(), tz);
    } catch {
      return invalid(endpoint, 'time zone', `"${tz.slice(0, 40)}" is not a time zone name, like Asia/Seoul.`);
    }
    return `${month}-01`;
  }
  const m = MONTH_RE.exec(v);
  if (m) {
    const mo = Number(m[2]);
    if (mo < 1 || mo > 12) invalid(endpoint, 'date', `"${v}" is not a real month: months go from 01 to 12.`);
    return `${v}-01`;
  }
  const finding = checkDate(v);
  if (finding) {
    invalid(
      endpoint,
      'date',
      `"${v.slice(0, 30)}" is not a date: use yyyy-MM-dd (2026-11-22) or yyyy-MM (2026-11).`,
    );
  }
  return v;
}

/**
 * The same day one month earlier, clamped to the month's length (2026-03-31 -> 2026-02-28), so a
 * month-to-date figure is compared with the same span of the previous month.
 */
export function previousMonthDate(targetDate: string): string {
  const [y, m, d] = targetDate.split('-').map(Number) as [number, number, number];
  // Local-time Date only as a calendar: no instant is derived from it.
  return format(addMonths(new Date(y, m - 1, d), -1), 'yyyy-MM-dd');
}

export interface StatDelta {
  current: number;
  previous: number;
  /** current - previous */
  change: number;
  /** Change in percent of previous, one decimal; null when the previous month is 0. */
  percent: number | null;
}

export interface StatsComparison {
  siteId: string;
  targetDate: string;
  previousDate: string;
  current: MonthlyStats;
  previous: MonthlyStats;
  licenses: StatDelta;
  users: StatDelta;
  devices: StatDelta;
}

export function delta(current: number, previous: number): StatDelta {
  const change = current - previous;
  const percent = previous === 0 ? null : Math.round((change / previous) * 1000) / 10;
  return { current, previous, change, percent };
}

/** Fetches the target and the previous month in parallel (2 calls) and computes the deltas. */
export async function getStatsComparison(
  client: ServiceClient,
  siteId: string,
  date?: string,
  opts: StatsDateOptions = {},
): Promise<StatsComparison> {
  requireSiteId(opsEndpoint('stats'), siteId);
  const targetDate = parseStatsDate(date, opts);
  const previousDate = previousMonthDate(targetDate);
  const [current, previous] = await Promise.all([
    client.getMonthlyStats(siteId, targetDate),
    client.getMonthlyStats(siteId, previousDate),
  ]);
  return {
    siteId,
    targetDate,
    previousDate,
    current,
    previous,
    licenses: delta(current.licenseCount, previous.licenseCount),
    users: delta(current.userCount, previous.userCount),
    devices: delta(current.deviceCount, previous.deviceCount),
  };
}
