/**
 * Service time strings -> instants.
 *
 * The watermarking API sends local-time strings `yyyy-MM-ddTHH:mm:ss` in the envelope's
 * `time_zone`; the Service API sends UTC (+00:00) per its spec. Tolerated shapes: a space instead
 * of `T`, fractional seconds, `yyyyMMddHHmmss` (license list sample), `yyyy-MM-dd` (midnight), and
 * a string that carries its own `Z`/`+hh:mm` (that offset then wins).
 */
import type { TimeValue } from './types.js';

const LOCAL_RE =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?\s*(Z|[+-]\d{2}:?\d{2})?$/;
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

/** Parse a service time string given the offset it is expressed in (default +00:00). */
export function parseServiceTime(raw: string | null | undefined, timeZone = '+00:00'): TimeValue {
  const text = (raw ?? '').trim();
  if (text === '') return { raw: raw ?? '', epochMs: null };
  let parts: number[] | null = null;
  let ownOffset: string | undefined;
  const m = LOCAL_RE.exec(text);
  if (m) {
    parts = [1, 2, 3, 4, 5, 6].map((i) => Number(m[i] ?? 0));
    const frac = m[7] ? Number(`0.${m[7]}`) * 1000 : 0;
    parts.push(Math.floor(frac));
    ownOffset = m[8];
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
