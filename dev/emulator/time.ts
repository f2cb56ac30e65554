/**
 * Time handling of the emulator: the watermarking API renders every time as local
 * `yyyy-MM-ddTHH:mm:ss` in the requested `+hh:mm`/`-hh:mm` offset; the Service API uses UTC.
 */
import { checkDate, checkTimeZone } from '../../src/api/validate.js';
import { invalid } from './errors.js';

const DAY_MS = 86_400_000;

export interface Tz {
  /** Normalised "+hh:mm" / "-hh:mm". */
  text: string;
  offsetMinutes: number;
}

export const UTC: Tz = { text: '+00:00', offsetMinutes: 0 };

/**
 * Parses a time_zone parameter. An unencoded `+` arrives as a space after form decoding
 * (`?time_zone=+09:00` -> " 09:00"); that is tolerated and read as `+`.
 */
export function parseTimeZone(raw: string | null | undefined): Tz {
  if (raw === null || raw === undefined || raw === '') return UTC;
  let v = raw;
  if (v.startsWith(' ')) v = `+${v.slice(1)}`;
  v = v.trim();
  const finding = checkTimeZone(v);
  if (finding) throw invalid(`time_zone: ${finding}`);
  const sign = v.startsWith('-') ? -1 : 1;
  const offsetMinutes = sign * (Number(v.slice(1, 3)) * 60 + Number(v.slice(4, 6)));
  return { text: v, offsetMinutes };
}

function pad(n: number, w = 2): string {
  return String(n).padStart(w, '0');
}

/** `yyyy-MM-ddTHH:mm:ss` in the offset. */
export function formatLocal(ms: number, tz: Tz): string {
  return new Date(ms + tz.offsetMinutes * 60_000).toISOString().slice(0, 19);
}

/** Service API datetimes: `yyyy-MM-dd HH:mm:ss`, UTC. */
export function formatUtcSpace(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
}

/** DRM license reg_time, shaped like the spec's sample: `yyyyMMddHHmmss`, UTC. */
export function formatCompact(ms: number): string {
  const d = new Date(ms);
  return (
    `${d.getUTCFullYear()}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}` +
    `${pad(d.getUTCHours())}${pad(d.getUTCMinutes())}${pad(d.getUTCSeconds())}`
  );
}

/** `yyyy-MM-dd`, UTC. */
export function formatDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** Parses `yyyy-MM-dd HH:mm:ss` or `yyyy-MM-ddTHH:mm:ss` (UTC); null when not that shape. */
export function parseUtcDateTime(s: string): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})$/.exec(s);
  if (!m) return null;
  const ms = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]));
  return Number.isNaN(ms) ? null : ms;
}

/**
 * A from/to pair of `yyyy-MM-dd` dates as an inclusive [start, end] ms range: `from` is the start
 * of that day and `to` the end of that day, both in the given offset.
 */
export function parseDateRange(
  from: string | null | undefined,
  to: string | null | undefined,
  tz: Tz = UTC,
): { fromMs: number; toMs: number } {
  let fromMs = Number.NEGATIVE_INFINITY;
  let toMs = Number.POSITIVE_INFINITY;
  if (from) {
    const f = checkDate(from);
    if (f) throw invalid(`from: ${f}`);
    fromMs = dayStart(from, tz);
  }
  if (to) {
    const f = checkDate(to);
    if (f) throw invalid(`to: ${f}`);
    toMs = dayStart(to, tz) + DAY_MS - 1;
  }
  if (fromMs > toMs) throw invalid(`from: the start date ${from} is after the end date ${to}.`);
  return { fromMs, toMs };
}

export function dayStart(date: string, tz: Tz = UTC): number {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  return Date.UTC(y, m - 1, d) - tz.offsetMinutes * 60_000;
}
