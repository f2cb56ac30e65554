/**
 * Which upstream origins (scheme, host, port) the bot may talk to: an operator-controlled
 * allow-list, checked by the HTTP layer before any connection (http.ts) and by setup before it
 * accepts a URL (src/ops/setup.ts).
 *
 * - The configured base URLs (DWM_BASE_URL, SERVICE_API_BASE_URL) are allowed, with the scheme
 *   the operator wrote (an http:// base URL set by the operator is an explicit choice).
 * - Any other origin only when listed in UPSTREAM_ALLOWED_ORIGINS (comma-separated origins, like
 *   `https://wm.example.com, https://api.example.com:8443, http://127.0.0.1:4010`).
 * - https is required: plain http only for an origin listed (or configured) with http://, port
 *   included (`http://host:port`), so allowing http is always a deliberate, per-origin choice.
 * - Cloud metadata addresses (169.254.169.254 and friends) are refused even when listed.
 * Origins are compared exactly after normalisation (lower-case host, default port made explicit,
 * IPv6 in brackets); no wildcards: a pattern would let an admin reach hosts the operator never
 * thought of.
 */
import { classifyAddress, describeAddressClass } from './addresses.js';
import { urlForMessage } from './validate.js';

export const ALLOW_LIST_VARIABLE = 'UPSTREAM_ALLOWED_ORIGINS';

export interface OriginRefusal {
  reason: 'invalid' | 'metadata' | 'http-not-allowed' | 'not-listed';
  /** The normalised origin refused ("https://host:443"), or the URL as shown for 'invalid'. */
  origin: string;
  /** What was refused, why, and how the operator allows it. Never the URL's path or query. */
  message: string;
}

/** "https://Host.example.com/x?y" -> "https://host.example.com:443"; null when not http(s). */
export function canonicalOrigin(url: string): string | null {
  let u: URL;
  try {
    u = new URL(url.trim());
  } catch {
    return null;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
  const port = u.port || (u.protocol === 'https:' ? '443' : '80');
  return `${u.protocol}//${u.hostname.toLowerCase()}:${port}`;
}

/**
 * Parse one allow-list entry: an origin and nothing else (no path, query, user or password).
 * Returns the canonical origin or a problem sentence.
 */
export function parseAllowedOrigin(entry: string): { origin: string } | { problem: string } {
  const e = entry.trim();
  let u: URL;
  try {
    u = new URL(e);
  } catch {
    return { problem: `"${e.slice(0, 60)}" is not an origin; write it like https://wm.example.com` };
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    return { problem: `"${e.slice(0, 60)}" must start with https:// (or http:// to allow plain http)` };
  }
  if (u.username || u.password || (u.pathname !== '/' && u.pathname !== '') || u.search || u.hash) {
    return {
      problem: `"${urlForMessage(e)}" must be an origin only (scheme, host and optional port), without a path, query or user`,
    };
  }
  if (u.protocol === 'http:' && !u.port && !/:80\/?$/.test(e)) {
    return {
      problem: `"${e.slice(0, 60)}" allows plain http: give its port explicitly, like http://host:8080`,
    };
  }
  return { origin: canonicalOrigin(e) as string };
}

/** The origin as an operator writes it in the allow-list: https without its default :443. */
export function shownOrigin(origin: string): string {
  return origin.startsWith('https:') ? origin.replace(/:443$/, '') : origin;
}

export interface OriginPolicyOptions {
  /** Base URLs the operator configured (allowed with their own scheme); undefined entries skipped. */
  configured?: ReadonlyArray<string | undefined>;
  /** Extra origins from UPSTREAM_ALLOWED_ORIGINS (already validated by the config). */
  allowed?: readonly string[];
}

export class OriginPolicy {
  private readonly origins = new Set<string>();

  constructor(opts: OriginPolicyOptions) {
    for (const url of opts.configured ?? []) {
      const o = url ? canonicalOrigin(url) : null;
      if (o) this.origins.add(o);
    }
    for (const entry of opts.allowed ?? []) {
      const r = parseAllowedOrigin(entry);
      if ('origin' in r) this.origins.add(r.origin);
    }
  }

  /** The allowed origins, normalised (diagnostics, docs). */
  list(): string[] {
    return [...this.origins].sort();
  }

  /** null when the URL's origin may be contacted, else why not. Pure: no DNS, no connection. */
  check(url: string): OriginRefusal | null {
    const origin = canonicalOrigin(url);
    if (!origin) {
      return {
        reason: 'invalid',
        origin: urlForMessage(url),
        message: `"${urlForMessage(url)}" is not an http(s) URL.`,
      };
    }
    const host = new URL(origin).hostname;
    const cls = classifyAddress(host);
    if (cls === 'metadata') {
      return {
        reason: 'metadata',
        origin,
        message: `${origin} is ${describeAddressClass(cls)}; the bot never connects there, whatever the configuration.`,
      };
    }
    if (this.origins.has(origin)) return null;
    const kind = cls === 'name' ? '' : ` (${describeAddressClass(cls)})`;
    // The fix comes first, so that it survives any cut (Slack cuts inline errors and messages).
    const shown = shownOrigin(origin);
    if (origin.startsWith('http:')) {
      const secure = origin.replace(/^http:/, 'https:').replace(/:80$/, ':443');
      const httpsOk = this.origins.has(secure);
      return {
        reason: 'http-not-allowed',
        origin,
        message:
          `Not allowed: use https://${httpsOk ? ' (that origin is allowed)' : ''}, or add ${shown} to ${ALLOW_LIST_VARIABLE}, then restart. ` +
          `Plain http to ${origin}${kind} is refused unless the operator lists it.`,
      };
    }
    return {
      reason: 'not-listed',
      origin,
      message: `Not allowed: add ${shown} to ${ALLOW_LIST_VARIABLE}, then restart. ${origin}${kind} is not an allowed upstream (the configured base URLs are allowed by default).`,
    };
  }
}
