/**
 * Service API authentication: an HS256 JWT signed locally with the account's secret (jose).
 * Payload: sub / aud / iss (defaults "ServiceAPI" / "AUDIENCE" / "Service", configurable because a
 * deployment may use other fixed values), account_id, account_seq, and a short exp (default 5 min;
 * the spec makes exp optional, a short one limits the damage of a leaked header). A signed token
 * is cached until 30 s before it expires. The secret and the token are never logged.
 */
import { createHash } from 'node:crypto';
import { SignJWT } from 'jose';
import type { ServiceApiCredentials } from './types.js';

export interface JwtClaimsOptions {
  subject?: string;
  audience?: string;
  issuer?: string;
}

export interface JwtOptions {
  claims?: JwtClaimsOptions;
  /** Lifetime of a signed token, seconds. Default 300. */
  ttlSeconds?: number;
  /** Re-sign this long before expiry, seconds. Default 30. */
  renewBeforeSeconds?: number;
  now?: () => number;
}

export const DEFAULT_JWT_CLAIMS: Required<JwtClaimsOptions> = {
  subject: 'ServiceAPI',
  audience: 'AUDIENCE',
  issuer: 'Service',
};

export class JwtSigner {
  private readonly cache = new Map<string, { jwt: string; expSec: number }>();
  private readonly claims: Required<JwtClaimsOptions>;
  private readonly ttl: number;
  private readonly renewBefore: number;
  private readonly now: () => number;
  /** Number of signatures made (tests). */
  signCount = 0;

  constructor(opts: JwtOptions = {}) {
    this.claims = {
      subject: opts.claims?.subject ?? DEFAULT_JWT_CLAIMS.subject,
      audience: opts.claims?.audience ?? DEFAULT_JWT_CLAIMS.audience,
      issuer: opts.claims?.issuer ?? DEFAULT_JWT_CLAIMS.issuer,
    };
    this.ttl = opts.ttlSeconds ?? 300;
    this.renewBefore = opts.renewBeforeSeconds ?? 30;
    this.now = opts.now ?? Date.now;
  }

  private key(c: ServiceApiCredentials): string {
    const h = createHash('sha256').update(c.secretKey).digest('base64url').slice(0, 16);
    return `${c.accountId}|${c.accountSeq}|${h}`;
  }

  /** "Bearer <jwt>" for the account. */
  async header(creds: ServiceApiCredentials): Promise<string> {
    const key = this.key(creds);
    const nowSec = Math.floor(this.now() / 1000);
    const c = this.cache.get(key);
    if (c && c.expSec - this.renewBefore > nowSec) return `Bearer ${c.jwt}`;
    const expSec = nowSec + this.ttl;
    const jwt = await new SignJWT({ account_id: creds.accountId, account_seq: creds.accountSeq })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(this.claims.subject)
      .setAudience(this.claims.audience)
      .setIssuer(this.claims.issuer)
      .setExpirationTime(expSec)
      .sign(new TextEncoder().encode(creds.secretKey));
    this.signCount++;
    this.cache.set(key, { jwt, expSec });
    return `Bearer ${jwt}`;
  }

  invalidate(creds: ServiceApiCredentials): void {
    this.cache.delete(this.key(creds));
  }
}
