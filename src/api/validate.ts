/**
 * Input rules of both specs, checked before anything is sent. Each check returns null when the
 * value is fine, or a sentence that says what is wrong and what to do; `assertValid` turns a list
 * of findings into a ValidationError. The ops and slack layers reuse these for inline errors.
 */
import { ValidationError, type ValidationIssue } from './errors.js';

export const LIMITS = {
  recipientName: 128,
  recipientDescription: 50,
  recipientsPerRegistration: 150,
  contentIdBytes: 200,
  pageUnitMax: 1000,
  pageUnitDefault: 25,
  keyPwBytes: 32,
} as const;

const NAME_RE = /^[A-Za-z0-9._-]+$/;
/** The site id rule of both APIs: exactly 4 letters or digits. The one pattern of the code base. */
export const SITE_ID_RE = /^[A-Za-z0-9]{4}$/;
const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TZ_RE = /^[+-](\d{2}):(\d{2})$/;
/**
 * Content ids (documented rule): letters and digits of any script (with their combining marks),
 * hyphen, underscore, period; at most 200 bytes of UTF-8 (an ASCII letter is 1 byte, most accented
 * and Hangul letters 2 or 3). The spec says only "no special characters; maximum 200 bytes": a limit in BYTES (not
 * characters, unlike the 128-character recipient names, which are explicitly ASCII) means content
 * ids may hold multi-byte letters, so non-ASCII letters are accepted and the limit is checked on
 * the UTF-8 length. Punctuation, symbols, spaces, control and invisible characters are refused.
 */
const CONTENT_ID_RE = /^[\p{L}\p{M}\p{N}._-]+$/u;

const utf8 = new TextEncoder();
export function byteLength(s: string): number {
  return utf8.encode(s).length;
}

/** Printable form of a character for messages: "é", "space", "U+200F". */
export function describeChar(ch: string): string {
  if (ch === ' ') return 'space';
  const cp = ch.codePointAt(0) ?? 0;
  if (
    cp < 0x20 ||
    (cp >= 0x7f && cp < 0xa0) ||
    (cp >= 0x200b && cp <= 0x200f) ||
    (cp >= 0x202a && cp <= 0x202e)
  ) {
    return `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
  }
  return `"${ch}"`;
}

export function checkRecipientName(name: string): string | null {
  if (name.length === 0) return 'The name is empty. Give a name of 1 to 128 characters.';
  if (name.length > LIMITS.recipientName) {
    return `The name is ${name.length} characters long; the limit is ${LIMITS.recipientName}.`;
  }
  if (!NAME_RE.test(name)) {
    const bad = [...new Set([...name].filter((c) => !/[A-Za-z0-9._-]/.test(c)))].slice(0, 5);
    return `The name contains ${bad.map(describeChar).join(', ')}; only letters A-Z and a-z, digits, hyphen (-), underscore (_) and period (.) are allowed.`;
  }
  return null;
}

/**
 * Characters as the service counts them: Unicode code points, so an emoji is one character (a
 * JavaScript `length` counts UTF-16 units and would call it two).
 */
export function charCount(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

export function checkRecipientDescription(description: string): string | null {
  const n = charCount(description);
  if (n > LIMITS.recipientDescription) {
    return `The description is ${n} characters long; the limit is ${LIMITS.recipientDescription}.`;
  }
  return null;
}

/**
 * True when `finding` is null (the value passed its check); otherwise the finding goes into
 * `issues` as the field's message and the answer is false. For `if (passes(...)) use the value`.
 */
export function passes(issues: ValidationIssue[], field: string, finding: string | null): boolean {
  if (finding) issues.push({ field, message: finding });
  return !finding;
}

/** One `key:value` option of a command: the key lower-cased ('' when the token has no key). */
export interface OptionToken {
  tok: string;
  key: string;
  value: string;
}

/** The option tokens of a command (`site:AB12 ratio:20%`), trimmed, blank ones left out. */
export function optionTokens(tokens: string[]): OptionToken[] {
  const out: OptionToken[] = [];
  for (const raw of tokens) {
    const tok = raw.trim();
    if (!tok) continue;
    const i = tok.indexOf(':');
    out.push({ tok, key: i > 0 ? tok.slice(0, i).toLowerCase() : '', value: i > 0 ? tok.slice(i + 1) : '' });
  }
  return out;
}

export function checkSiteId(siteId: string): string | null {
  if (!SITE_ID_RE.test(siteId)) {
    return `Site id "${siteId.slice(0, 20)}" is not valid: a site id is exactly 4 letters or digits, like AB12.`;
  }
  return null;
}

export function checkDate(value: string): string | null {
  const m = DATE_RE.exec(value);
  if (!m) return `"${value.slice(0, 30)}" is not a date: use yyyy-MM-dd, like 2026-11-22.`;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const dt = new Date(Date.UTC(y, mo - 1, d));
  if (dt.getUTCFullYear() !== y || dt.getUTCMonth() !== mo - 1 || dt.getUTCDate() !== d) {
    return `"${value}" is not a real calendar date.`;
  }
  return null;
}

export function checkDateRange(from?: string, to?: string): string | null {
  if (from && to && !checkDate(from) && !checkDate(to) && from > to) {
    return `The start date ${from} is after the end date ${to}.`;
  }
  return null;
}

export function checkTimeZone(tz: string): string | null {
  const m = TZ_RE.exec(tz);
  if (!m || Number(m[1]) > 14 || Number(m[2]) > 59) {
    return `Time zone "${tz.slice(0, 20)}" is not valid: use +hh:mm or -hh:mm, like +09:00.`;
  }
  return null;
}

export function checkContentId(contentId: string): string | null {
  if (contentId.length === 0) return 'The content id is empty.';
  if (byteLength(contentId) > LIMITS.contentIdBytes) {
    return `The content id is ${byteLength(contentId)} bytes; the limit is ${LIMITS.contentIdBytes}.`;
  }
  if (!CONTENT_ID_RE.test(contentId)) {
    return 'The content id may contain only letters, digits, hyphen (-), underscore (_) and period (.).';
  }
  return null;
}

export function checkPageUnit(n: number): string | null {
  if (!Number.isInteger(n) || n < 1 || n > LIMITS.pageUnitMax) {
    return `Page size ${n} is not valid: use a whole number from 1 to ${LIMITS.pageUnitMax}.`;
  }
  return null;
}

export function checkPageIndex(n: number): string | null {
  if (!Number.isInteger(n) || n < 1) return `Page ${n} is not valid: pages start at 1.`;
  return null;
}

/** One input check: the field as the user knows it, and what is wrong with it (null: nothing). */
export type Check = [field: string, finding: string | null];

/**
 * The checks of a paged, dated list query (both APIs): page size, page, the from/to days and
 * their order.
 */
export function checkPageQuery(q: {
  pageUnit?: number;
  pageIndex?: number;
  from?: string;
  to?: string;
}): Check[] {
  return [
    ['page size', q.pageUnit === undefined ? null : checkPageUnit(q.pageUnit)],
    ['page', q.pageIndex === undefined ? null : checkPageIndex(q.pageIndex)],
    ['from', q.from === undefined ? null : checkDate(q.from)],
    ['to', q.to === undefined ? null : checkDate(q.to)],
    ['date range', checkDateRange(q.from, q.to)],
  ];
}

export function checkKeyPassword(pw: string): string | null {
  if (pw.length === 0) return 'The key password is empty.';
  if (byteLength(pw) > LIMITS.keyPwBytes) {
    return `The key password is ${byteLength(pw)} bytes; the limit is ${LIMITS.keyPwBytes} bytes.`;
  }
  return null;
}

/** Collects findings and throws one ValidationError carrying all of them. */
export function assertValid(endpoint: string, checks: Check[]): void {
  const issues: ValidationIssue[] = [];
  for (const [field, finding] of checks) if (finding) issues.push({ field, message: finding });
  if (issues.length > 0) throw new ValidationError(endpoint, issues);
}

/** Case-insensitive identity of a recipient name (rule 3 and 4 of the spec). */
export function nameKey(name: string): string {
  return name.toLowerCase();
}

// ---------------------------------------------------------------------------------------------
// Rules added with the API clients (endpoint parameters of both specs)
// ---------------------------------------------------------------------------------------------

const EMAIL_RE =
  /^[^\s@"<>,;:]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+$/;

/** A value from a fixed list of codes, e.g. job status. */
export function checkCode(
  value: string,
  allowed: readonly (string | number)[],
  label: string,
): string | null {
  if (!allowed.map(String).includes(String(value))) {
    return `${label} "${String(value).slice(0, 20)}" is not known: use one of ${allowed.join(', ')}.`;
  }
  return null;
}

export function checkPositiveInt(n: number, label: string): string | null {
  if (!Number.isSafeInteger(n) || n < 1)
    return `${label} ${n} is not valid: use a whole number of 1 or more.`;
  return null;
}

export function checkNonEmpty(value: string | undefined, label: string, max?: number): string | null {
  if (value === undefined || value.trim() === '') return `${label} is empty: give a value.`;
  if (max !== undefined && value.length > max) {
    return `${label} is ${value.length} characters long; the limit is ${max}.`;
  }
  return null;
}

export function checkEmail(email: string): string | null {
  if (email.length > 254 || !EMAIL_RE.test(email)) {
    return `"${email.slice(0, 60)}" is not an e-mail address: use the form name@example.com.`;
  }
  return null;
}

/**
 * A URL as it may appear in a message: without its query string, fragment or user:password part,
 * which is where callback URLs carry tokens and keys.
 */
export function urlForMessage(url: string): string {
  const cut = url.split(/[?#]/, 1)[0] ?? '';
  const noUser = cut.replace(/^([^/]*\/\/)?[^/@]*@/, '$1');
  const shown = noUser.slice(0, 60);
  return shown.length < url.length ? `${shown}…` : shown;
}

export function checkUrl(url: string): string | null {
  // An empty string clears a callback URL.
  if (url === '') return null;
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return `"${urlForMessage(url)}" is not a URL: use a full address like https://example.com/callback.`;
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') {
    return `"${urlForMessage(url)}" must start with https:// or http://.`;
  }
  return null;
}

export function checkTokenDuration(seconds: number): string | null {
  if (!Number.isSafeInteger(seconds) || seconds < 1) {
    return `Token duration ${seconds} is not valid: give a whole number of seconds, 1 or more.`;
  }
  return null;
}

/** `.der`/`.cer` for the certificate, `.pem` for the private key. */
export function checkFileExtension(
  filename: string,
  allowed: readonly string[],
  label: string,
): string | null {
  const lower = filename.toLowerCase();
  if (!allowed.some((ext) => lower.endsWith(ext))) {
    return `${label} "${filename.slice(0, 60)}" must be a ${allowed.join(' or ')} file.`;
  }
  return null;
}

/**
 * Every rule of a recipient registration (endpoint 4.7): 1..150 recipients, each name and
 * description valid, names unique within the request (case-insensitive). Fields name the
 * recipient by position and name so the user can find the line.
 */
export function checkRecipientBatch(
  recipients: ReadonlyArray<{ name: string; description?: string }>,
): Array<[field: string, finding: string | null]> {
  const out: Array<[string, string | null]> = [];
  if (recipients.length === 0) {
    out.push(['recipients', 'No recipients were given: give at least one name.']);
    return out;
  }
  if (recipients.length > LIMITS.recipientsPerRegistration) {
    out.push([
      'recipients',
      `${recipients.length} recipients were given; at most ${LIMITS.recipientsPerRegistration} can be registered in one request. Split the list.`,
    ]);
  }
  const seen = new Map<string, number>();
  recipients.forEach((r, i) => {
    const where = `recipient ${i + 1}`;
    out.push([`${where} name`, checkRecipientName(r.name)]);
    if (r.description !== undefined)
      out.push([`${where} description`, checkRecipientDescription(r.description)]);
    const key = nameKey(r.name);
    const first = seen.get(key);
    if (first !== undefined) {
      out.push([
        `${where} name`,
        `"${r.name.slice(0, 40)}" repeats recipient ${first + 1} (names are compared ignoring case); remove one.`,
      ]);
    } else {
      seen.set(key, i);
    }
  });
  return out;
}

/** Modify recipient (4.8): at least one field, each valid. */
export function checkRecipientPatch(patch: {
  name?: string;
  description?: string;
}): Array<[field: string, finding: string | null]> {
  if (patch.name === undefined && patch.description === undefined) {
    return [['recipient', 'Nothing to change: give a new name, a new description, or both.']];
  }
  return [
    ['name', patch.name === undefined ? null : checkRecipientName(patch.name)],
    ['description', patch.description === undefined ? null : checkRecipientDescription(patch.description)],
  ];
}
