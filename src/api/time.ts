/**
 * Service time strings -> instants.
 *
 * The watermarking API sends local-time strings `yyyy-MM-ddTHH:mm:ss` in the envelope's
 * `time_zone`; the Service API sends UTC (+00:00) per its spec. Tolerated shapes: a space instead
 * of `T`, fractional seconds, `yyyyMMddHHmmss` (license list sample), `yyyy-MM-dd` (midnight),
 * slashes for dashes (`yyyy/MM/dd HH:mm:ss`), a string that carries its own `Z`/`+hh:mm`/`+hhmm`/
 * `+hh` (that offset then wins), and Unix time as 10 (seconds) or 13 (milliseconds) digits, a
 * number or a string (an instant: no offset applies).
 */

import { LruMap } from '../lru.js';
import { utcDay } from '../time.js';
import type { TimeValue } from './types.js';

const LOCAL_RE =
  /^(\d{4})[-/](\d{2})[-/](\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/;
/** Unix time: 10 digits are seconds, 13 milliseconds (the spec shows strings; "not shown" otherwise). */
const EPOCH_RE = /^(\d{10}|\d{13})$/;
const COMPACT_RE = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})$/;
const TZ_RE = /^([+-])?(\d{1,2})(?::?(\d{2}))?$/;

/**
 * Normalise a time zone offset: "09:00" -> "+09:00", "+0900" -> "+09:00", "+09" -> "+09:00",
 * "Z" -> "+00:00".
 * Returns null when it is not an offset.
 */
export function normalizeTimeZone(tz: string): string | null {
  const t = tz.trim();
  if (t === 'Z' || t === 'UTC') return '+00:00';
  // No sign ("09:00", or a "+" that arrived unencoded and decoded to a space, then trimmed) = "+".
  const m = TZ_RE.exec(t);
  if (!m) return null;
  const hh = Number(m[2]);
  const mm = Number(m[3] ?? 0);
  if (hh > 14 || mm > 59) return null;
  return `${m[1] ?? '+'}${String(hh).padStart(2, '0')}:${String(mm).padStart(2, '0')}`;
}

/** Offset in minutes of a normalised "+hh:mm" / "-hh:mm". */
export function offsetMinutes(tz: string): number {
  const n = normalizeTimeZone(tz) ?? '+00:00';
  const sign = n.startsWith('-') ? -1 : 1;
  return sign * (Number(n.slice(1, 3)) * 60 + Number(n.slice(4, 6)));
}

function utcMs(
  y: number,
  mo: number,
  d: number,
  h: number,
  mi: number,
  s: number,
  ms: number,
): number | null {
  const t = Date.UTC(y, mo - 1, d, h, mi, s, ms);
  const dt = new Date(t);
  if (dt.getUTCFullYear() !== y || dt.getUTCMonth() !== mo - 1 || dt.getUTCDate() !== d) return null;
  if (h > 23 || mi > 59 || s > 59) return null;
  return t;
}

/** Two ASCII digits at `i` as a number, or -1. */
function digits2(t: string, i: number): number {
  const a = t.charCodeAt(i) - 48;
  const b = t.charCodeAt(i + 1) - 48;
  return a >= 0 && a <= 9 && b >= 0 && b <= 9 ? a * 10 + b : -1;
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Offset minutes of each time zone text seen (a handful per process: the envelopes' zones). */
const offsetCache = new LruMap<string, number>(256);
function cachedOffsetMinutes(tz: string): number {
  let m = offsetCache.get(tz);
  if (m === undefined) {
    m = offsetMinutes(tz);
    offsetCache.set(tz, m);
  }
  return m;
}

/**
 * The common shape, `yyyy-MM-ddTHH:mm:ss` (or a space for `T`), read without a regex match,
 * intermediate arrays or a Date: every job of every poll carries a few of these, and they were
 * the largest source of garbage in the 1,000-site benchmark. undefined for anything else (the
 * general parser below then decides).
 */
function parseCommonShape(text: string, timeZone: string): number | null | undefined {
  if (text.length !== 19) return undefined;
  const sep = text.charCodeAt(10);
  if (text.charCodeAt(4) !== 45 || text.charCodeAt(7) !== 45 || (sep !== 84 && sep !== 32)) return undefined;
  if (text.charCodeAt(13) !== 58 || text.charCodeAt(16) !== 58) return undefined;
  const y100 = digits2(text, 0);
  const y1 = digits2(text, 2);
  const mo = digits2(text, 5);
  const d = digits2(text, 8);
  const h = digits2(text, 11);
  const mi = digits2(text, 14);
  const s = digits2(text, 17);
  if (y100 < 0 || y1 < 0 || mo < 0 || d < 0 || h < 0 || mi < 0 || s < 0) return undefined;
  const y = y100 * 100 + y1;
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  const dim = mo === 2 && leap ? 29 : (DAYS_IN_MONTH[mo - 1] ?? 0);
  if (mo < 1 || mo > 12 || d < 1 || d > dim || h > 23 || mi > 59 || s > 59) return null;
  // Date.UTC maps years 0-99 to 1900-1999; the general path (utcMs) then refuses them.
  if (y < 100) return undefined;
  return Date.UTC(y, mo - 1, d, h, mi, s) - cachedOffsetMinutes(timeZone) * 60_000;
}

/** Parse a service time string given the offset it is expressed in (default +00:00). */
export function parseServiceTime(raw: string | null | undefined, timeZone = '+00:00'): TimeValue {
  const text = (raw ?? '').trim();
  if (text === '') return { raw: raw ?? '', epochMs: null };
  const common = parseCommonShape(text, timeZone);
  if (common !== undefined) return { raw: text, epochMs: common };
  let parts: number[] | null = null;
  let ownOffset: string | undefined;
  const m = LOCAL_RE.exec(text);
  if (m) {
    parts = [1, 2, 3, 4, 5, 6].map((i) => Number(m[i] ?? 0));
    const frac = m[7] ? Number(`0.${m[7]}`) * 1000 : 0;
    parts.push(Math.floor(frac));
    ownOffset = m[8];
  } else if (EPOCH_RE.test(text)) {
    return { raw: text, epochMs: text.length === 10 ? Number(text) * 1000 : Number(text) };
  } else {
    const c = COMPACT_RE.exec(text);
    if (c) parts = [1, 2, 3, 4, 5, 6].map((i) => Number(c[i])).concat([0]);
  }
  if (!parts) return { raw: text, epochMs: null };
  const [y, mo, d, h, mi, s, ms] = parts as [number, number, number, number, number, number, number];
  const base = utcMs(y, mo, d, h, mi, s, ms);
  if (base === null) return { raw: text, epochMs: null };
  const off = ownOffset ? offsetMinutes(ownOffset) : offsetMinutes(timeZone);
  return { raw: text, epochMs: base - off * 60_000 };
}

/** Format an instant as yyyy-MM-ddTHH:mm:ss in the given offset (for keyset cursors and tests). */
export function formatServiceTime(epochMs: number, timeZone = '+00:00'): string {
  const d = new Date(epochMs + offsetMinutes(timeZone) * 60_000);
  return d.toISOString().slice(0, 19);
}

const DAY_MS = 24 * 3600_000;

/**
 * UTC days (yyyy-MM-dd bounds, as the bot's queries carry them) as the days of a service that
 * reads `from`/`to` in the offset `tz` (SERVICE_TIME_ZONE): the days of that offset that cover
 * them, so no record of the asked UTC days is left out (the reader's own days are cut from the
 * answer above). A bound that is not a date is sent as given.
 */
export function coveringDaysIn(
  range: { from?: string; to?: string },
  tz: string,
): { from?: string; to?: string } {
  const off = cachedOffsetMinutes(tz) * 60_000;
  if (off === 0) return range;
  const day = (ms: number) => utcDay(ms + off);
  const start = (d: string) => {
    const ms = Date.parse(`${d}T00:00:00Z`);
    return /^\d{4}-\d{2}-\d{2}$/.test(d) && !Number.isNaN(ms) ? ms : null;
  };
  const out: { from?: string; to?: string } = {};
  if (range.from !== undefined) {
    const s = start(range.from);
    out.from = s === null ? range.from : day(s);
  }
  if (range.to !== undefined) {
    const s = start(range.to);
    out.to = s === null ? range.to : day(s + DAY_MS - 1);
  }
  return out;
}
