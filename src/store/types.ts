/**
 * Store contract: small repositories over keyv. One backend per process, chosen by STORE_URL:
 * `sqlite://./data/drm-chatops.sqlite` (default), `redis://host:port`, `memory://` (tests).
 * Every repository is namespaced by workspace where data belongs to a workspace, so one
 * workspace can never read another's data by construction.
 *
 * "Workspace key" = the Slack team id, or the enterprise id for org-wide installs
 * (see workspaceKeyOf in ./keys.ts).
 */
import type { WorkspaceCredentials } from '../api/types.js';

export type WorkspaceKey = string;

// -- Installations (Bolt InstallationStore data, stored encrypted: it holds bot tokens) ----------
export interface InstallationRepo {
  /** Stores Bolt's Installation object (opaque here) encrypted under the workspace key. */
  save(key: WorkspaceKey, installation: unknown): Promise<void>;
  get(key: WorkspaceKey): Promise<unknown | undefined>;
  delete(key: WorkspaceKey): Promise<void>;
  listKeys(): Promise<WorkspaceKey[]>;
  /** Re-encrypt every installation still under a previous key (rotation); returns how many. */
  reencryptAll(): Promise<number>;
  /** Records that no configured key can open (wrong ENCRYPTION_KEY), by key id; at most `limit` looked at. */
  unreadable(limit?: number): Promise<Array<{ workspace: WorkspaceKey; kid: string | undefined }>>;
}

// -- Service credentials (vault: JWE-encrypted, key id recorded) -------------------------------
export interface StoredCredentials {
  credentials: WorkspaceCredentials;
  /** ISO time of the last successful live verification. */
  verifiedAt: string;
  /** Slack user id who saved them. */
  savedBy: string;
}

export interface CredentialsRepo {
  put(key: WorkspaceKey, value: StoredCredentials): Promise<void>;
  get(key: WorkspaceKey): Promise<StoredCredentials | undefined>;
  delete(key: WorkspaceKey): Promise<void>;
  /** Re-encrypt every record with the current key (rotation); returns how many were rewritten. */
  reencryptAll(): Promise<number>;
  /** Records that no configured key can open (wrong ENCRYPTION_KEY), by key id; at most `limit` looked at. */
  unreadable(limit?: number): Promise<Array<{ workspace: WorkspaceKey; kid: string | undefined }>>;
}

// -- Workspace settings (roles, audit channel, watch pause state) -------------------------------
export interface WorkspaceSettings {
  /** Extra admin user ids besides Slack workspace admins/owners. */
  adminUserIds: string[];
  /** A user group id whose members are admins. */
  adminUsergroupId?: string;
  /** Channel id where the audit log is mirrored. */
  auditChannelId?: string;
  /** Set when polling is paused for an auth failure; cleared when setup is fixed. */
  pollingPausedReason?: string;
  /**
   * Channels shared with another organisation (Slack Connect) that an admin allowed the bot to
   * post in and share replies to, one by one (`/dwm setup shared-channel allow`); by default such
   * channels are refused.
   */
  sharedChannels?: Array<{ channelId: string; by: string; at: string }>;
}

export interface SettingsRepo {
  get(key: WorkspaceKey): Promise<WorkspaceSettings>;
  put(key: WorkspaceKey, value: WorkspaceSettings): Promise<void>;
  delete(key: WorkspaceKey): Promise<void>;
}

// -- Audit --------------------------------------------------------------------------------------
export interface AuditEntry {
  id: string;
  at: string;
  userId: string;
  /** Operation name, e.g. "recipient.register", "plan.request", "setup.save". */
  action: string;
  /** Plain-text summary, never a secret. */
  detail: string;
  result: 'ok' | 'error' | 'refused';
  siteId?: string;
}

export interface AuditRepo {
  append(key: WorkspaceKey, entry: Omit<AuditEntry, 'id' | 'at'>): Promise<AuditEntry>;
  /** Newest first. */
  list(key: WorkspaceKey, opts?: { limit?: number; before?: string }): Promise<AuditEntry[]>;
  deleteAll(key: WorkspaceKey): Promise<void>;
}

// -- Generic namespaced documents (reports, poll state, outbox, subscriptions build on it) --------
export interface DocRepo<T> {
  get(key: WorkspaceKey, id: string): Promise<T | undefined>;
  put(key: WorkspaceKey, id: string, value: T, ttlMs?: number): Promise<void>;
  delete(key: WorkspaceKey, id: string): Promise<void>;
  /** Ids present for the workspace (kept in an index document). */
  list(key: WorkspaceKey): Promise<string[]>;
  deleteAll(key: WorkspaceKey): Promise<void>;
}

/** What Store.docs() returns: a DocRepo plus an atomic update (separate so simple fakes of
 * DocRepo stay valid). */
export interface AtomicDocRepo<T> extends DocRepo<T> {
  /**
   * Atomic read-modify-write of one document, safe across replicas on Redis (optimistic
   * compare-and-set with retries) and within the process elsewhere (per-key mutex). `fn` gets the
   * current value (undefined when absent) and returns the new one, or undefined to delete it.
   * `fn` may run more than once: keep it pure (no I/O, no side effects). Without ttlMs an
   * existing expiry is kept. Returns what was written.
   */
  update(
    key: WorkspaceKey,
    id: string,
    fn: (old: T | undefined) => T | undefined,
    ttlMs?: number,
  ): Promise<T | undefined>;
  /**
   * Every document of the workspace with its id, ordered by id: what `list` then `get` of each id
   * give, with each document read once (list already reads them to skip expired ids). Optional so
   * that simple fakes stay valid; Store.docs() always has it.
   */
  entries?(key: WorkspaceKey): Promise<Array<[string, T]>>;
}

/** Anything with a zod-like parse (a zod schema fits): validates documents read back. */
export interface DocSchema<T> {
  parse(value: unknown): T;
}

// -- Leases (one poller per site across replicas) --------------------------------------------------
export interface LeaseRepo {
  /** Take the lease if free or expired or already ours; true when held afterwards. */
  acquire(name: string, holder: string, ttlMs: number): Promise<boolean>;
  /** Extend a lease we hold; false when lost. */
  renew(name: string, holder: string, ttlMs: number): Promise<boolean>;
  release(name: string, holder: string): Promise<void>;
  holder(name: string): Promise<string | undefined>;
}

export interface Store {
  backend: 'sqlite' | 'redis' | 'memory';
  installations: InstallationRepo;
  credentials: CredentialsRepo;
  settings: SettingsRepo;
  audit: AuditRepo;
  leases: LeaseRepo;
  /**
   * A namespaced document repository for feature modules (reports, watches, poll state...).
   * namespace: lower-case letters, digits, '-', '_' (max 48). With a schema, documents read back
   * are validated (a mismatch throws StoreDataError naming the namespace and id). Each document
   * carries the namespace's schema version (./versions.ts); one of a newer release than this code
   * is skipped (get: undefined; entries: left out) and never rewritten or deleted (put, update and
   * delete leave it as it is).
   */
  docs<T>(namespace: string, schema?: DocSchema<T>): AtomicDocRepo<T>;
  /** Remove everything stored for a workspace (uninstall): installation, credentials, settings,
   * audit and the workspace's documents in every namespace ever written. */
  purgeWorkspace(key: WorkspaceKey, opts?: { keepAudit?: boolean }): Promise<void>;
  /** Key rotation: re-encrypt installations and credentials under ENCRYPTION_KEY. */
  reencryptAll(): Promise<{ installations: number; credentials: number }>;
  /** Store reachable (readyz). */
  ping(): Promise<boolean>;
  close(): Promise<void>;
  /**
   * The same store (same data, same connection) whose every operation fails with
   * StoreUnavailableError after `timeoutMs` instead of waiting for a store that is down: what a
   * Slack request uses, so that a Redis outage is answered "storage is unavailable" within
   * seconds. Background work (watcher, outbox) uses the unbounded store and resumes afterwards.
   */
  bounded(timeoutMs: number): Store;
}
