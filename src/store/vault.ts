/**
 * Encryption at rest: compact JWE, `alg: dir` + `enc: A256GCM` (jose). Each record's protected
 * header carries:
 *   - `kid`: first 8 hex chars of SHA-256(key), a non-secret fingerprint, so decryption picks the
 *     right key and previous keys (ENCRYPTION_KEYS_PREVIOUS) keep working during a rotation;
 *   - `ctx`: the record it belongs to (e.g. "credentials:T123"). The header is authenticated by
 *     GCM, so a ciphertext copied onto another workspace's record fails to open.
 *
 * ENCRYPTION_KEY format: exactly 32 random bytes, written as base64 (44 chars with padding, or
 * 43 without; url-safe alphabet accepted) or as 64 hex characters. Generate one with
 * `openssl rand -base64 32`. Anything else is refused at start-up.
 *
 * Rotation: set the new key as ENCRYPTION_KEY and put the old one in ENCRYPTION_KEYS_PREVIOUS
 * (comma-separated), restart, run `store.reencryptAll()`, then the old key can be removed.
 */
import { createHash } from 'node:crypto';
import { CompactEncrypt, compactDecrypt, decodeProtectedHeader } from 'jose';
import { StoreConfigError, VaultError } from './errors.js';

const GENERATE_HINT = 'Generate one with: openssl rand -base64 32';

export interface VaultOptions {
  encryptionKey: string;
  previousEncryptionKeys?: string[];
}

export interface Vault {
  /** Key id of ENCRYPTION_KEY (what new records are written with). */
  readonly currentKid: string;
  /** Every key id that can decrypt (current first). */
  readonly kids: readonly string[];
  /** Encrypt a JSON-serialisable value for one record (`context`, e.g. "credentials:T123"). */
  encrypt(value: unknown, context: string): Promise<string>;
  /** Decrypt a record written by encrypt() with the same context; returns the parsed JSON. */
  decrypt(jwe: string, context: string): Promise<unknown>;
  /** The kid in a record's header (undefined when the header is unreadable). */
  kidOf(jwe: string): string | undefined;
}

/** Non-secret fingerprint of a key: first 8 hex characters of its SHA-256. */
export function keyFingerprint(key: Uint8Array): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 8);
}

/**
 * Parse a 32-byte key given as 64 hex characters or base64 / base64url. `setting` names the
 * variable in the error message; the value itself is never echoed.
 */
export function parseEncryptionKey(raw: string, setting = 'ENCRYPTION_KEY'): Uint8Array {
  const text = raw.trim();
  let bytes: Buffer | undefined;
  if (/^[0-9a-fA-F]{64}$/.test(text)) {
    bytes = Buffer.from(text, 'hex');
  } else if (/^[A-Za-z0-9+/_-]{43}={0,1}$/.test(text)) {
    const decoded = Buffer.from(text, 'base64');
    // Node's decoder is lenient; insist the text is the canonical encoding of 32 bytes.
    const canonical = decoded.toString('base64').replace(/=+$/, '');
    const given = text.replace(/=+$/, '').replace(/-/g, '+').replace(/_/g, '/');
    if (decoded.length === 32 && canonical === given) bytes = decoded;
  }
  if (!bytes) {
    throw new StoreConfigError(
      setting,
      `${setting} must be 32 random bytes written as base64 (44 characters) or hex (64 characters); ` +
        `the value given is ${text.length} characters and is neither. ${GENERATE_HINT}`,
    );
  }
  if (bytes.every((b) => b === bytes[0])) {
    throw new StoreConfigError(
      setting,
      `${setting} is a placeholder (all bytes equal), not a random key. ${GENERATE_HINT}`,
    );
  }
  return new Uint8Array(bytes);
}

/** Split ENCRYPTION_KEYS_PREVIOUS ("k1,k2" or newline-separated) into entries. */
export function splitKeyList(raw: string | undefined): string[] {
  if (!raw) return [];
  return raw
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

export function createVault(opts: VaultOptions): Vault {
  if (!opts.encryptionKey || opts.encryptionKey.trim() === '') {
    throw new StoreConfigError(
      'ENCRYPTION_KEY',
      `ENCRYPTION_KEY is not set: it encrypts stored secrets. ${GENERATE_HINT}`,
    );
  }
  const current = parseEncryptionKey(opts.encryptionKey, 'ENCRYPTION_KEY');
  const currentKid = keyFingerprint(current);
  const keys = new Map<string, Uint8Array>([[currentKid, current]]);
  (opts.previousEncryptionKeys ?? []).forEach((raw, i) => {
    const k = parseEncryptionKey(raw, `ENCRYPTION_KEYS_PREVIOUS entry #${i + 1}`);
    const kid = keyFingerprint(k);
    if (!keys.has(kid)) keys.set(kid, k);
  });
  const kids = [...keys.keys()];
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();

  function kidOf(jwe: string): string | undefined {
    try {
      const h = decodeProtectedHeader(jwe);
      return typeof h.kid === 'string' ? h.kid : undefined;
    } catch {
      return undefined;
    }
  }

  return {
    currentKid,
    kids,
    kidOf,
    async encrypt(value, context) {
      const plaintext = encoder.encode(JSON.stringify(value));
      return new CompactEncrypt(plaintext)
        .setProtectedHeader({ alg: 'dir', enc: 'A256GCM', kid: currentKid, ctx: context })
        .encrypt(current);
    },
    async decrypt(jwe, context) {
      let header: ReturnType<typeof decodeProtectedHeader>;
      try {
        header = decodeProtectedHeader(jwe);
      } catch (e) {
        throw new VaultError(
          'corrupt',
          `Stored record ${context} is not an encrypted record of this app`,
          undefined,
          {
            cause: e,
          },
        );
      }
      const kid = typeof header.kid === 'string' ? header.kid : undefined;
      if (header.alg !== 'dir' || header.enc !== 'A256GCM' || kid === undefined) {
        throw new VaultError('corrupt', `Stored record ${context} has an unexpected encryption header`, kid);
      }
      const key = keys.get(kid);
      if (!key) {
        throw new VaultError(
          'missing-key',
          `Cannot decrypt stored record ${context}: it was encrypted with key id "${kid}", which is neither ` +
            `ENCRYPTION_KEY (key id "${currentKid}") nor in ENCRYPTION_KEYS_PREVIOUS` +
            (kids.length > 1
              ? ` (key ids ${kids
                  .slice(1)
                  .map((k) => `"${k}"`)
                  .join(', ')})`
              : '') +
            '. Add the key that was in use when it was written to ENCRYPTION_KEYS_PREVIOUS.',
          kid,
        );
      }
      let result: Awaited<ReturnType<typeof compactDecrypt>>;
      try {
        result = await compactDecrypt(jwe, key, {
          keyManagementAlgorithms: ['dir'],
          contentEncryptionAlgorithms: ['A256GCM'],
        });
      } catch (e) {
        throw new VaultError(
          'corrupt',
          `Stored record ${context} failed its integrity check (key id "${kid}")`,
          kid,
          {
            cause: e,
          },
        );
      }
      if (result.protectedHeader.ctx !== context) {
        throw new VaultError(
          'context',
          `Stored record ${context} holds data encrypted for another record`,
          kid,
        );
      }
      try {
        return JSON.parse(decoder.decode(result.plaintext)) as unknown;
      } catch (e) {
        throw new VaultError('corrupt', `Stored record ${context} decrypted to invalid JSON`, kid, {
          cause: e,
        });
      }
    },
  };
}
