/**
 * Service API authentication: an HS256 JWT signed locally with the account's secret (jose).
 * Payload: sub / aud / iss (defaults "ServiceAPI" / "AUDIENCE" / "Service", configurable because a
 * deployment may use other fixed values), account_id, account_seq, and a short exp (default 5 min;
 * the spec makes exp optional, a short one limits the damage of a leaked header). The lifetime is
 * configurable (SERVICE_JWT_TTL_SECONDS): a server whose clock runs ahead of the bot's by more than
 * the lifetime sees every token as expired, so such a deployment lengthens it, or sets 0 to leave
 * `exp` out (the token is then still re-signed every 5 minutes). A signed token is cached until
 * 30 s before it expires. The secret and the token are never logged.
 *
 * Two details the spec does not show, both configurable because a real deployment may differ:
 * - `account_seq` claim type. The spec calls it "SEQ of the account" without a type; the other
 *   sequence numbers of the spec (seq, member_seq, group_seq) are ints. Default 'string' (the
 *   value exactly as the provider's support gave it, leading zeros kept); 'number' sends a JSON
 *   number (refused at signing time when the value is not a safe integer).
 * - Secret encoding. Default 'utf8': the HMAC key is the UTF-8 bytes of `<SERVICE_API_KEY>`.
 *   'base64' decodes it first, for servers built on libraries that read a string key as base64
 *   (e.g. jjwt 0.9 `setSigningKey(String)`).
 */
import { createHash } from 'node:crypto';
import { SignJWT } from 'jose';
import { ValidationError } from './errors.js';
import type { ServiceApiCredentials } from './types.js';

export interface JwtClaimsOptions {
  subject?: string;
  audience?: string;
  issuer?: string;
}

export interface JwtOptions {
  claims?: JwtClaimsOptions;
  /** Lifetime of a signed token, seconds. Default 300. 0: no `exp` claim (re-signed every 300 s). */
  ttlSeconds?: number;
  /** Re-sign this long before expiry, seconds. Default 30. */
  renewBeforeSeconds?: number;
  /** JSON type of the `account_seq` claim. Default 'string'. */
  accountSeqType?: 'string' | 'number';
  /** How the secret string becomes the HMAC key. Default 'utf8'. */
  secretEncoding?: 'utf8' | 'base64';
  now?: () => number;
}

const DEFAULT_TTL_SECONDS = 300;

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
  private readonly accountSeqType: 'string' | 'number';
  private readonly secretEncoding: 'utf8' | 'base64';
  /** Number of signatures made (tests). */
  signCount = 0;

  constructor(opts: JwtOptions = {}) {
    this.claims = {
      subject: opts.claims?.subject ?? DEFAULT_JWT_CLAIMS.subject,
      audience: opts.claims?.audience ?? DEFAULT_JWT_CLAIMS.audience,
      issuer: opts.claims?.issuer ?? DEFAULT_JWT_CLAIMS.issuer,
    };
    this.ttl = opts.ttlSeconds ?? DEFAULT_TTL_SECONDS;
    this.renewBefore = opts.renewBeforeSeconds ?? 30;
    this.now = opts.now ?? Date.now;
    this.accountSeqType = opts.accountSeqType ?? 'string';
    this.secretEncoding = opts.secretEncoding ?? 'utf8';
  }

  private accountSeqClaim(seq: string): string | number {
    if (this.accountSeqType === 'string') return seq;
    const t = seq.trim();
    const n = Number(t);
    if (!/^\d+$/.test(t) || !Number.isSafeInteger(n)) {
      throw new ValidationError('svc.jwt', [
        {
          field: 'account sequence',
          message: 'The account sequence must be a whole number (the JWT sends it as a number).',
        },
      ]);
    }
    return n;
  }

  private keyBytes(secret: string): Uint8Array {
    if (this.secretEncoding === 'base64') {
      const bytes = Buffer.from(secret.trim(), 'base64');
      // Never echo the secret: only say what is wrong with it.
      if (bytes.length === 0) {
        throw new ValidationError('svc.jwt', [
          { field: 'Service API key', message: 'The Service API key is not valid base64: paste it again.' },
        ]);
      }
      return new Uint8Array(bytes);
    }
    return new TextEncoder().encode(secret);
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
    const withExp = this.ttl > 0;
    // Without exp the cached token is still replaced after the default lifetime.
    const expSec = nowSec + (withExp ? this.ttl : DEFAULT_TTL_SECONDS);
    const signer = new SignJWT({
      account_id: creds.accountId,
      account_seq: this.accountSeqClaim(creds.accountSeq),
    })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(this.claims.subject)
      .setAudience(this.claims.audience)
      .setIssuer(this.claims.issuer);
    if (withExp) signer.setExpirationTime(expSec);
    const jwt = await signer.sign(this.keyBytes(creds.secretKey));
    this.signCount++;
    this.cache.set(key, { jwt, expSec });
    return `Bearer ${jwt}`;
  }

  invalidate(creds: ServiceApiCredentials): void {
    this.cache.delete(this.key(creds));
  }
}
