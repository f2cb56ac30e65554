/**
 * Where a request goes, and where it may not: a base URL (with its optional path prefix) and an
 * endpoint path turned into the origin and request path (`buildTarget`, the query string encoded
 * the one way both kinds of server decoder read), a base URL refused with words that never echo
 * its secrets (`BaseUrlError`), a request the upstream allow-list refuses before any connection
 * (`OriginRefusedError`), and a redirect, which is never followed (`redirectError`: it names the
 * origin the service moved to, so an admin sets the base URL).
 */

import { LruMap } from '../../lru.js';
import { TransportError, ValidationError } from '../errors.js';
import type { OriginRefusal } from '../origins.js';
import { urlForMessage } from '../validate.js';

export type QueryValue = string | number | boolean | undefined | null | ReadonlyArray<string | number>;
export type QueryParams = Record<string, QueryValue>;

/** A request refused by the upstream allow-list before any connection. */
export class OriginRefusedError extends ValidationError {
  readonly refusal: OriginRefusal;
  constructor(endpoint: string, refusal: OriginRefusal) {
    super(endpoint, [{ field: 'base URL', message: refusal.message }]);
    this.refusal = refusal;
  }
}

/** A base URL that cannot be used (never echoes the URL's secrets). */
export class BaseUrlError extends Error {
  override readonly name = 'BaseUrlError';
}

/** Turns a base URL (with optional path prefix) + path + query into origin and request path. */
export function buildTarget(
  baseUrl: string,
  path: string,
  query?: QueryParams,
): { origin: string; path: string } {
  const base = BASES.get(baseUrl) ?? parseBase(baseUrl);
  let q = '';
  if (query) {
    const qs = new URLSearchParams();
    for (const k of Object.keys(query)) {
      const v = query[k];
      if (v === undefined || v === null) continue;
      if (Array.isArray(v)) for (const item of v) qs.append(k, String(item));
      else qs.append(k, String(v));
    }
    // URLSearchParams writes a space as "+", which a server decoding the query as a URI (RFC
    // 3986) reads as a plus sign: spaces go as %20, read as a space by both kinds of decoder.
    q = qs.toString().replace(/\+/g, '%20');
  }
  return { origin: base.origin, path: `${base.prefix}${path}${q ? `?${q}` : ''}` };
}

/**
 * Base URLs already parsed (origin and path prefix): a handful per process (one or two origins,
 * each workspace's configured base URL), parsed once instead of at every request. Bounded.
 */
const BASES = new LruMap<string, { origin: string; prefix: string }>(256);

function parseBase(baseUrl: string): { origin: string; prefix: string } {
  // Messages never carry the URL's query, fragment or user:password (see urlForMessage), and no
  // `cause` is kept: Node's "Invalid URL" TypeError holds the whole input in its `input` field,
  // which a log serialiser would print.
  let u: URL;
  try {
    u = new URL(baseUrl);
  } catch {
    throw new BaseUrlError(`The base URL "${urlForMessage(baseUrl)}" is not a valid URL.`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    throw new BaseUrlError(`The base URL must start with http:// or https://, not ${u.protocol}//.`);
  }
  if (u.username || u.password) {
    // The pool connects to the origin only, so these would be dropped silently; and a password in
    // a URL ends up in logs and error reports. Refused instead.
    throw new BaseUrlError('The base URL must not contain a user name or password.');
  }
  const parsed = { origin: u.origin, prefix: u.pathname.replace(/\/+$/, '') };
  BASES.set(baseUrl, parsed);
  return parsed;
}

/** The answer to a request that was redirected (3xx): never followed, the new origin named. */
export function redirectError(
  endpoint: string,
  status: number,
  location: string | string[] | undefined,
  target: { origin: string; path: string },
  attempt: number,
): TransportError {
  const loc = Array.isArray(location) ? location[0] : location;
  let where: string | undefined;
  try {
    if (loc) where = new URL(loc, `${target.origin}${target.path}`).origin;
  } catch {
    where = undefined;
  }
  const said =
    where && where !== 'null'
      ? where === target.origin
        ? `the service moved to another path on ${urlForMessage(where)} (HTTP ${status}, not followed): set the base URL, with its path, to where the service is now`
        : `the service moved to ${urlForMessage(where)} (HTTP ${status}, not followed): set the base URL to it (and allow it in UPSTREAM_ALLOWED_ORIGINS if that is set)`
      : `the service answered with a redirect (HTTP ${status}, not followed): check the base URL`;
  // A redirect is an answer of "not here": nothing was processed.
  return new TransportError(endpoint, `${endpoint}: ${said}`, status, attempt, undefined, false);
}
