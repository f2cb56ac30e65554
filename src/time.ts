/**
 * Time zones and the dates users read: the one module, usable by every layer. What lives here:
 * whether a name is an IANA time zone (`isIanaTimeZone`), an instant written in a zone (the
 * card and notice text "2026-11-22 14:05 Asia/Seoul", a zone's day `yyyy-MM-dd` and month
 * `yyyy-MM`, a UTC day) and the two conversions between a zone's wall clock and instants.
 *
 * Formatting goes through one cached Intl formatter per zone (building one costs ~0.2 ms, and a
 * job list formats a time per line: BENCHMARKS.md). The conversions use date-fns-tz, loaded on
 * first use (with the date-fns it pulls in, about 14 MB of RSS): most processes never need one.
 * Service API time strings (fixed offsets, not zones) are read in src/api/time.ts.
 */
import { createRequire } from 'node:module';
import { LruMap } from './lru.js';

let tz: typeof import('date-fns-tz') | undefined;
const dateFnsTz = () => {
  tz ??= createRequire(import.meta.url)('date-fns-tz') as typeof import('date-fns-tz');
  return tz;
};

/** A zone name as people and Slack write them: a letter first, then letters, digits, _ + - /. */
const ZONE_NAME_RE = /^[A-Za-z][A-Za-z0-9_+\-/]{0,63}$/;

/**
 * One Intl formatter per zone, made once; null for a zone Intl does not know (so it also answers
 * "is this a zone"). Bounded: zone names come from users.info and users (a few hundred at most).
 */
const formatters = new LruMap<string, Intl.DateTimeFormat | null>(500);

function formatterFor(timeZone: string): Intl.DateTimeFormat | null {
  let f = formatters.get(timeZone);
  if (f !== undefined) return f;
  try {
    f = new Intl.DateTimeFormat('en-CA', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    });
  } catch {
    f = null;
  }
  formatters.set(timeZone, f);
  return f;
}

/** True for an IANA time zone name Intl knows (Slack's users.info tz, a user's `zone:`). */
export function isIanaTimeZone(zone: string): boolean {
  return ZONE_NAME_RE.test(zone) && formatterFor(zone) !== null;
}

/** A zone name Intl knows, else UTC (the safe reading; users.info gives IANA names). */
export function knownZone(zone: string | undefined): string {
  return zone && isIanaTimeZone(zone) ? zone : 'UTC';
}

/** The parts of an instant in a zone Intl knows (RangeError otherwise, as Intl itself). */
function partsIn(epochMs: number, timeZone: string): Record<string, string> {
  const f = formatterFor(timeZone);
  if (!f) throw new RangeError(`Invalid time zone specified: ${timeZone}`);
  const p: Record<string, string> = {};
  for (const part of f.formatToParts(epochMs)) p[part.type] = part.value;
  return p;
}

/** Plain date-time text in a zone: "2026-11-22 14:05 UTC". Unknown zones fall back to UTC. */
export function formatTime(epochMs: number, timeZone = 'UTC'): string {
  const zone = formatterFor(timeZone) ? timeZone : 'UTC';
  // UTC is always known to Intl; the ISO text is the same format without a formatter.
  if (!formatterFor(zone)) return `${new Date(epochMs).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  const p = partsIn(epochMs, zone);
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute} ${zone}`;
}

/** The day (yyyy-MM-dd) of an instant in a zone Intl knows (RangeError otherwise). */
export function dayIn(epochMs: number, timeZone: string): string {
  const p = partsIn(epochMs, timeZone);
  return `${p.year}-${p.month}-${p.day}`;
}

/** The month (yyyy-MM) of an instant in a zone Intl knows (RangeError otherwise). */
export function monthIn(epochMs: number, timeZone: string): string {
  const p = partsIn(epochMs, timeZone);
  return `${p.year}-${p.month}`;
}

/**
 * An exponential backoff: `baseMs` doubled `n` times (`n` 0 waits `baseMs`), at most `capMs`.
 * The HTTP retries (its ceiling), the deliveries, the wait outbox, the site polls and the notice polls
 * back off alike.
 */
export function doubledWaitMs(baseMs: number, n: number, capMs: number): number {
  return Math.min(capMs, baseMs * 2 ** n);
}

/** The UTC day (yyyy-MM-dd) of an instant. */
export function utcDay(epochMs: number): string {
  return new Date(epochMs).toISOString().slice(0, 10);
}

/** The instant of a wall-clock time `yyyy-MM-ddTHH:mm:ss` in `timeZone`. */
export function zonedTimeToEpoch(local: string, timeZone: string): number {
  return dateFnsTz().fromZonedTime(local, timeZone).getTime();
}

/** "+hh:mm"/"-hh:mm" offset of an IANA zone at an instant. */
export function offsetOf(timeZone: string, atMs: number): string {
  const minutes = Math.round(dateFnsTz().getTimezoneOffset(timeZone, atMs) / 60000);
  const sign = minutes < 0 ? '-' : '+';
  const abs = Math.abs(minutes);
  return `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}
