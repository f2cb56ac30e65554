/**
 * Is ENCRYPTION_KEY the key the stored secrets were encrypted with? A wrong key (a typo, a key
 * rotated without ENCRYPTION_KEYS_PREVIOUS, a restored backup) would otherwise leave the bot
 * "ready" while every command fails. Checked at start-up and by /readyz (cached), from the key ids
 * in the records' headers: nothing is decrypted and no secret is logged, only key ids (non-secret
 * fingerprints) and counts. Admins can still run setup and enter the credentials again, which
 * replaces the unreadable record (see loadCredentials' `unreadable: 'absent'`).
 */
import type { Store } from '../store/types.js';

export interface KeyCheck {
  ok: boolean;
  /** Records no configured key opens. */
  unreadable: number;
  /** Their key ids (distinct). */
  kids: string[];
  /** One line for /readyz and the log. */
  detail?: string;
}

export async function checkEncryptionKeys(
  store: Pick<Store, 'credentials' | 'installations'>,
): Promise<KeyCheck> {
  const bad = [...(await store.credentials.unreadable()), ...(await store.installations.unreadable())];
  if (bad.length === 0) return { ok: true, unreadable: 0, kids: [] };
  const kids = [...new Set(bad.map((b) => b.kid ?? 'unknown'))];
  return {
    ok: false,
    unreadable: bad.length,
    kids,
    detail: `${bad.length} stored record(s) were encrypted with key id ${kids.join(', ')}, which ENCRYPTION_KEY / ENCRYPTION_KEYS_PREVIOUS do not contain: restore that key (or add it to ENCRYPTION_KEYS_PREVIOUS), or have each workspace's admin run setup to enter the credentials again`,
  };
}

/** A readiness check that re-reads the key ids at most every `ttlMs`. */
export function keyReadinessCheck(
  store: Pick<Store, 'credentials' | 'installations'>,
  now: () => number,
  ttlMs = 30_000,
): () => Promise<{ name: string; ok: boolean; detail?: string }> {
  let cached: { at: number; result: KeyCheck } | undefined;
  return async () => {
    if (!cached || now() - cached.at > ttlMs)
      cached = { at: now(), result: await checkEncryptionKeys(store) };
    const r = cached.result;
    return r.detail
      ? { name: 'encryption-key', ok: r.ok, detail: r.detail }
      : { name: 'encryption-key', ok: r.ok };
  };
}
