/**
 * Store errors. Messages name the setting to fix (STORE_URL, ENCRYPTION_KEY,
 * ENCRYPTION_KEYS_PREVIOUS) and key ids (non-secret fingerprints), never a key, token or URL password.
 */

/** STORE_URL / ENCRYPTION_KEY / ENCRYPTION_KEYS_PREVIOUS unusable: refused at start-up. */
export class StoreConfigError extends Error {
  readonly kind = 'config' as const;
  /** The environment variable (or option) to fix. */
  readonly setting: string;
  constructor(setting: string, message: string) {
    super(message);
    this.name = 'StoreConfigError';
    this.setting = setting;
  }
}

/**
 * A stored encrypted record cannot be opened: its key id is not configured (`missing-key`), it is
 * not a JWE of ours or was tampered with (`corrupt`), or it belongs to another record (`context`).
 */
export class VaultError extends Error {
  readonly kind = 'vault' as const;
  readonly reason: 'missing-key' | 'corrupt' | 'context';
  /** Key id found in the record header, when readable. */
  readonly kid?: string;
  constructor(reason: VaultError['reason'], message: string, kid?: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'VaultError';
    this.reason = reason;
    if (kid !== undefined) this.kid = kid;
  }
}

/** A stored document did not match its schema, or an optimistic update kept conflicting. */
export class StoreDataError extends Error {
  readonly kind = 'data' as const;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreDataError';
  }
}

/**
 * A write refused because the stored document was written by a newer release (a rolling upgrade
 * in progress): this code does not rewrite it into its older shape. Retry once the upgrade is done.
 */
export class StoreNewerDocumentError extends Error {
  readonly kind = 'newer' as const;
  constructor(readonly what: string) {
    super(
      `${what} was written by a newer release of the bot; this replica leaves it as it is (finish the upgrade)`,
    );
    this.name = 'StoreNewerDocumentError';
  }
}

/**
 * The store did not answer within the bound a Slack request may wait (Redis down or reconnecting,
 * SQLite locked). Nothing is known about a write in flight: it may still land once the store is
 * back (every write of the bot is an idempotent upsert or guarded by a claim).
 */
export class StoreUnavailableError extends Error {
  readonly kind = 'unavailable' as const;
  constructor(
    readonly operation: string,
    readonly timeoutMs: number,
    cause?: unknown,
  ) {
    super(
      cause === undefined
        ? `the store did not answer ${operation} within ${timeoutMs} ms`
        : `the store failed ${operation}: ${cause instanceof Error ? cause.message : String(cause)}`,
      cause === undefined ? undefined : { cause },
    );
    this.name = 'StoreUnavailableError';
  }
}
