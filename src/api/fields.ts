/**
 * The wire value schemas both APIs' answers are read with (zod at the boundary), tolerant where a
 * real service drifts from its spec and strict where it matters (see src/api/envelope.ts for the
 * rules): integers and ids (`intLike`), texts (`text`, `reqText`), codes (`codeOf`, the
 * envelope's `errorCodeSchema`), time zones and times, counts, and their clean fast-path forms
 * (`cleanInt`, `cleanText`).
 */

import { z } from 'zod';
import { logger } from '../log.js';
import { normalizeTimeZone, parseServiceTime } from './time.js';
import type { TimeValue } from './types.js';
import { SITE_ID_RE } from './validate.js';

const TOO_BIG = (shown: string) =>
  `the integer ${shown.slice(0, 30)} is beyond 2^53-1 and cannot be held exactly (it would be rounded to another id); the service sent an id this client cannot use`;

/**
 * An integer, also when sent as a string of digits ("42"). Ids above 2^53-1 are refused, not
 * rounded: as a JSON number they already lost precision in JSON.parse, as a string they would
 * lose it in Number(); either way another id would be used silently.
 */
export const intLike = z.union([z.number(), z.string()]).transform((v, ctx): number => {
  const shown = String(v).trim();
  if (typeof v === 'string' && !/^-?\d+$/.test(shown)) {
    ctx.addIssue({ code: 'custom', message: 'expected an integer' });
    return z.NEVER;
  }
  const n = typeof v === 'number' ? v : Number(shown);
  if (!Number.isInteger(n)) {
    ctx.addIssue({ code: 'custom', message: 'expected an integer' });
    return z.NEVER;
  }
  if (!Number.isSafeInteger(n)) {
    ctx.addIssue({ code: 'custom', message: TOO_BIG(shown) });
    return z.NEVER;
  }
  return n;
});

/**
 * A string, also when sent as a number; null, "" or a key left out entirely -> "". (Under zod 4 a
 * union that merely accepts `undefined` still makes the key required: `.optional()` is what lets
 * the key be absent.)
 */
export const text = z
  .union([z.string(), z.number().transform(String), z.null()])
  .optional()
  .transform((v) => v ?? '');

/** A required string (numbers accepted and turned into strings). */
export const reqText = z.union([z.string(), z.number().transform(String)]);

export const siteIdSchema = z.string().regex(SITE_ID_RE, 'expected a 4-character alphanumeric site id');

const warnedCodes = new Set<string>();

/** Log once per process for each distinct unknown code (bounded). */
function warnUnknownCode(field: string, code: string): void {
  const key = `${field}|${code}`;
  if (warnedCodes.has(key) || warnedCodes.size > 1000) return;
  warnedCodes.add(key);
  logger.warn(
    { field, code: code.slice(0, 40) },
    'the service sent a code the specs do not list; it is kept and shown as "unknown (CODE)"',
  );
}

/**
 * A code from one of the tables of codes.ts. A code the table does not list (a service newer than
 * the spec) is kept as its raw text, logged once, and typed as the table's codes: consumers must
 * treat a code they do not know as "not one of mine" (the watcher: not final; renderers:
 * `codeLabel` -> "unknown (CODE)"). Only an empty or non-text value is a ProtocolError.
 */
export function codeOf<const T extends string>(codes: readonly T[], field = 'code') {
  const known = new Set<string>(codes);
  // Case is not significant in a code ("dm500" is DM500): the spec spells them in capitals but does
  // not say a service cannot send them otherwise, and a final status read as "unknown" would
  // never be announced. Folded to the table's spelling.
  const folded = new Map<string, T>(codes.map((c) => [c.toUpperCase(), c]));
  return z.union([z.string(), z.number().transform(String)]).transform((v, ctx): T => {
    const code = v.trim();
    if (code === '') {
      ctx.addIssue({ code: 'custom', message: `empty code; expected one of ${codes.join(', ')}` });
      return z.NEVER;
    }
    if (known.has(code)) return code as T;
    const same = folded.get(code.toUpperCase());
    if (same !== undefined) return same;
    warnUnknownCode(field, code);
    return code as T;
  });
}

/**
 * error_code: "0000" means success and any other value failure (both specs). A JSON number 0 is
 * read as that same zero; any other zero form ("0", "00", 0.0 written "0.0") is kept as the
 * failure code it is by the letter of the specs, and logged once (a service that writes its
 * success that way shows every call failing with that code, which the log and the doctor name,
 * rather than a real failure being taken for success).
 */
export const errorCodeSchema = z.union([z.string(), z.number()]).transform((v) => {
  if (v === 0) return '0000';
  const s = String(v).trim();
  if (s !== '0000' && /^0+(\.0*)?$/.test(s)) warnZeroForm('error_code', s);
  return s;
});

const warnedZeros = new Set<string>();

/** Logs once per field and text a zero that is not the spec's success form. */
export function warnZeroForm(field: string, text: string): void {
  const key = `${field}|${text}`;
  if (warnedZeros.has(key) || warnedZeros.size > 100) return;
  warnedZeros.add(key);
  logger.warn(
    { field, code: text.slice(0, 20) },
    `the service sent ${field} "${text.slice(0, 20)}", a zero that is not the spec's success form: read as a failure code`,
  );
}

/**
 * The envelope's time_zone: a normalised offset, or `{ ignored }` when the text is not an offset
 * ("Asia/Seoul", "GMT+09:00", ""). The spec defines time_zone as the +hh:mm offset the request
 * asked for, so the caller falls back to the offset it requested (warned once per value).
 */
export const timeZoneSchema = z
  .union([z.string(), z.number().transform(String)])
  .transform((v): { tz: string } | { ignored: string } => {
    const n = normalizeTimeZone(v);
    return n ? { tz: n } : { ignored: v.slice(0, 40) };
  });

/** A time string; turned into a TimeValue by the caller once the time zone is known. */
export const timeText = text;

export function toTime(raw: string, timeZone: string): TimeValue {
  return parseServiceTime(raw, timeZone);
}

// ---------------------------------------------------------------------------------------------
// Envelope
// ---------------------------------------------------------------------------------------------

/**
 * A count of the envelope (`total_count`, `count`): a number, a digit string, or absent. A blank
 * string is read as absent (some services print an empty value): the count then falls back to the
 * page itself, which only weakens the "more pages?" hint, never the data. Any other text is a
 * ProtocolError: paging must not guess a total.
 */
export const countLike = z.preprocess(
  (v) => (typeof v === 'string' ? (v.trim() === '' ? null : withoutThousands(v.trim())) : v),
  z.union([intLike, z.null()]).optional(),
);

/**
 * A count written with thousands separators ("1,234", "1_234") as its digits. "Not shown" in the
 * specs (they show numbers); a service formatting its counts for people was seen. Only the exact
 * pattern of groups of three after one to three digits, one separator kind, is read: "1,23",
 * "1.234", "1,234.5" (decimals, or a European grouping that could be a decimal) are left as they
 * are and refused by intLike. Counts only: ids never take separators.
 */
export function withoutThousands(v: string): string {
  return /^\d{1,3}(?:,\d{3})+$/.test(v) || /^\d{1,3}(?:_\d{3})+$/.test(v) ? v.replace(/[,_]/g, '') : v;
}

/** The clean form of `intLike`: a JSON number that is a safe integer (else undefined). */
export function cleanInt(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isSafeInteger(v) ? v : undefined;
}

/** The clean form of `text`: a string as is, null or absent as "" (else undefined). */
export function cleanText(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  return v === undefined || v === null ? '' : undefined;
}
