/**
 * The repositories of ./types.ts over a Backend. Encrypted repositories (installations,
 * credentials) only ever hand the backend a JWE string; plain repositories store JSON.
 */
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { scrubSecrets } from '../log.js';
import { type Backend, KEEP } from './backend.js';
import { StoreDataError, StoreNewerDocumentError } from './errors.js';
import { assertId, assertNamespace, assertWorkspaceKey, type KeySpace } from './keys.js';
import type {
  AtomicDocRepo,
  AuditEntry,
  AuditRepo,
  CredentialsRepo,
  DocSchema,
  InstallationRepo,
  LeaseRepo,
  SettingsRepo,
  StoredCredentials,
  WorkspaceKey,
  WorkspaceSettings,
} from './types.js';
import type { Vault } from './vault.js';
import {
  docVersion,
  type NewerDocument,
  type RecordKind,
  type SchemaVersions,
  stampedJson,
  unstamp,
  VERSION_FIELD,
} from './versions.js';

/** What every repository is told about versions: what this code knows, and whom to tell. */
export interface VersionContext {
  versions: SchemaVersions;
  onNewer: (d: NewerDocument) => void;
}

/** A parsed record of `kind`, without its version; a newer one is reported (and read as it is). */
function readRecord(ctx: VersionContext, kind: RecordKind, parsed: unknown, what: string): unknown {
  const { value, version } = unstamp(parsed);
  const known = ctx.versions.records[kind];
  if (version > known) ctx.onNewer({ what, version, known });
  return value;
}

function describeZodIssues(e: unknown): string {
  // Paths and codes only: a message must never echo a stored (possibly secret) value.
  if (e instanceof z.ZodError) {
    return e.issues
      .slice(0, 5)
      .map((i) => `${i.path.join('.') || '(root)'}: ${i.code}`)
      .join('; ');
  }
  return 'unreadable';
}

function parseWith<T>(schema: { parse(v: unknown): T }, value: unknown, what: string): T {
  try {
    return schema.parse(value);
  } catch (e) {
    throw new StoreDataError(`${what} does not have the expected shape (${describeZodIssues(e)})`, {
      cause: e,
    });
  }
}

function parseJson(raw: string, what: string): unknown {
  try {
    return JSON.parse(raw) as unknown;
  } catch (e) {
    throw new StoreDataError(`${what} is not valid JSON`, { cause: e });
  }
}

// ---------------------------------------------------------------------------------------------
// Encrypted records (installations, credentials)
// ---------------------------------------------------------------------------------------------

const watermarkingSchema = z.object({ accountId: z.string(), accessKey: z.string(), baseUrl: z.string() });
const serviceSchema = z.object({
  accountId: z.string(),
  accountSeq: z.string(),
  secretKey: z.string(),
  baseUrl: z.string(),
});
export const storedCredentialsSchema = z.object({
  credentials: z.object({
    siteIds: z.array(z.string()),
    defaultSiteId: z.string(),
    watermarking: watermarkingSchema.optional(),
    service: serviceSchema.optional(),
  }),
  verifiedAt: z.string(),
  savedBy: z.string(),
});

const installationSchema = z.custom<object>((v) => typeof v === 'object' && v !== null, {
  message: 'expected an object',
});

class EncryptedRecords<T> {
  constructor(
    private readonly backend: Backend,
    private readonly vault: Vault,
    private readonly repo: 'installations' | 'credentials',
    private readonly keyOf: (ws: WorkspaceKey) => string,
    private readonly indexKey: string,
    private readonly schema: { parse(v: unknown): T },
    private readonly vctx: VersionContext,
  ) {}

  private context(ws: WorkspaceKey): string {
    return `${this.repo}:${ws}`;
  }

  async put(ws: WorkspaceKey, value: T): Promise<void> {
    const checked = parseWith(this.schema, value, `${this.repo} for ${assertWorkspaceKey(ws)}`);
    const known = this.vctx.versions.records[this.repo];
    const jwe = await this.vault.encrypt(
      { [VERSION_FIELD]: known, ...(checked as object) },
      this.context(ws),
    );
    // Never over a record a newer release wrote (its version is inside the encrypted text). A
    // record no configured key opens is replaced, as before versions (setup enters it again).
    let newer = false;
    await this.backend.update(this.keyOf(ws), async (old) => {
      newer = false;
      if (old !== undefined) {
        const plain = await this.vault.decrypt(old, this.context(ws)).catch(() => undefined);
        if (plain !== undefined && unstamp(plain).version > known) {
          newer = true;
          return KEEP;
        }
      }
      return jwe;
    });
    if (newer) throw new StoreNewerDocumentError(`Stored ${this.repo} of ${ws}`);
    await this.backend.sAdd(this.indexKey, [ws]);
  }

  async get(ws: WorkspaceKey): Promise<T | undefined> {
    const jwe = await this.backend.get(this.keyOf(ws));
    if (jwe === undefined) return undefined;
    const what = `Stored ${this.repo} of ${ws}`;
    const plain = readRecord(this.vctx, this.repo, await this.vault.decrypt(jwe, this.context(ws)), what);
    return parseWith(this.schema, plain, what);
  }

  async delete(ws: WorkspaceKey): Promise<void> {
    await this.backend.delete([this.keyOf(ws)]);
    await this.backend.sRem(this.indexKey, [ws]);
  }

  async listKeys(): Promise<WorkspaceKey[]> {
    const members = await this.backend.sMembers(this.indexKey);
    const values = await this.backend.getMany(members.map((m) => this.keyOf(m)));
    const missing = members.filter((_, i) => values[i] === undefined);
    if (missing.length > 0) await this.backend.sPruneMissing(this.indexKey, missing, (m) => this.keyOf(m));
    return members.filter((_, i) => values[i] !== undefined).sort();
  }

  /**
   * Records no configured key can open, by their header's key id (no decryption: cheap enough to
   * run at start-up). At most `limit` records are looked at.
   */
  async unreadable(limit: number): Promise<Array<{ workspace: WorkspaceKey; kid: string | undefined }>> {
    const members = (await this.backend.sMembers(this.indexKey)).slice(0, limit);
    if (members.length === 0) return [];
    const values = await this.backend.getMany(members.map((m) => this.keyOf(m)));
    const out: Array<{ workspace: WorkspaceKey; kid: string | undefined }> = [];
    members.forEach((ws, i) => {
      const raw = values[i];
      if (raw === undefined) return;
      const kid = this.vault.kidOf(raw);
      if (kid === undefined || !this.vault.kids.includes(kid)) out.push({ workspace: ws, kid });
    });
    return out;
  }

  /** Rewrite records whose kid is not the current one; returns how many were rewritten. */
  async reencryptAll(): Promise<number> {
    let count = 0;
    for (const ws of await this.backend.sMembers(this.indexKey)) {
      let rewritten = false;
      await this.backend.update(this.keyOf(ws), async (old) => {
        rewritten = false;
        if (old === undefined) return undefined;
        if (this.vault.kidOf(old) === this.vault.currentKid) return old;
        const plain = await this.vault.decrypt(old, this.context(ws));
        rewritten = true;
        return this.vault.encrypt(plain, this.context(ws));
      });
      if (rewritten) count++;
    }
    return count;
  }
}

export function installationRepo(
  backend: Backend,
  vault: Vault,
  ks: KeySpace,
  vctx: VersionContext,
): InstallationRepo {
  const records = new EncryptedRecords<object>(
    backend,
    vault,
    'installations',
    (ws) => ks.installation(ws),
    ks.installationsIndex(),
    installationSchema,
    vctx,
  );
  return {
    save: (key, installation) => records.put(key, installation as object),
    get: (key) => records.get(key),
    delete: (key) => records.delete(key),
    listKeys: () => records.listKeys(),
    reencryptAll: () => records.reencryptAll(),
    unreadable: (limit = 1000) => records.unreadable(limit),
  };
}

export function credentialsRepo(
  backend: Backend,
  vault: Vault,
  ks: KeySpace,
  vctx: VersionContext,
): CredentialsRepo {
  const records = new EncryptedRecords<StoredCredentials>(
    backend,
    vault,
    'credentials',
    (ws) => ks.credentials(ws),
    ks.credentialsIndex(),
    storedCredentialsSchema,
    vctx,
  );
  return {
    put: (key, value) => records.put(key, value),
    get: (key) => records.get(key),
    delete: (key) => records.delete(key),
    reencryptAll: () => records.reencryptAll(),
    unreadable: (limit = 1000) => records.unreadable(limit),
  };
}

// ---------------------------------------------------------------------------------------------
// Settings
// ---------------------------------------------------------------------------------------------

export const workspaceSettingsSchema = z.object({
  adminUserIds: z.array(z.string()),
  adminUsergroupId: z.string().optional(),
  auditChannelId: z.string().optional(),
  pollingPausedReason: z.string().optional(),
  sharedChannels: z
    .array(z.object({ channelId: z.string(), by: z.string(), at: z.string() }))
    .max(1000)
    .optional(),
});

export function defaultSettings(): WorkspaceSettings {
  return { adminUserIds: [] };
}

export function settingsRepo(backend: Backend, ks: KeySpace, vctx: VersionContext): SettingsRepo {
  const known = vctx.versions.records.settings;
  return {
    async get(key) {
      const raw = await backend.get(ks.settings(key));
      if (raw === undefined) return defaultSettings();
      const what = `Settings of ${key}`;
      return parseWith(
        workspaceSettingsSchema,
        readRecord(vctx, 'settings', parseJson(raw, what), what),
        what,
      );
    },
    async put(key, value) {
      const checked = parseWith(workspaceSettingsSchema, value, `Settings for ${key}`);
      const written = await backend.setUnlessNewer(
        ks.settings(key),
        stampedJson(checked, known) as string,
        known,
      );
      if (!written) throw new StoreNewerDocumentError(`Settings of ${key}`);
    },
    async delete(key) {
      await backend.delete([ks.settings(key)]);
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Audit
// ---------------------------------------------------------------------------------------------

/** Entries kept per workspace (oldest dropped first). */
export const AUDIT_CAP = 5000;
export const AUDIT_DEFAULT_LIMIT = 50;
export const AUDIT_MAX_LIMIT = 500;
const AUDIT_DETAIL_MAX = 2000;
const AUDIT_SCAN_CHUNK = 250;

const auditInputSchema = z.object({
  userId: z.string().min(1).max(64),
  action: z.string().min(1).max(100),
  detail: z.string(),
  result: z.enum(['ok', 'error', 'refused']),
  siteId: z.string().max(100).optional(),
});

const auditEntrySchema = auditInputSchema.extend({ id: z.string(), at: z.string() });

let auditSeq = 0;
/** Time-ordered id: 9 base36 chars of ms, a per-process sequence, 4 random hex chars. */
export function newAuditId(now = Date.now()): string {
  auditSeq = (auditSeq + 1) % 36 ** 4;
  return (
    now.toString(36).padStart(9, '0') +
    auditSeq.toString(36).padStart(4, '0') +
    randomBytes(2).toString('hex')
  );
}

export function auditRepo(backend: Backend, ks: KeySpace, vctx: VersionContext, cap = AUDIT_CAP): AuditRepo {
  function parseEntry(raw: string, ws: WorkspaceKey): AuditEntry {
    const what = `Audit entry of ${ws}`;
    return parseWith(auditEntrySchema, readRecord(vctx, 'audit', parseJson(raw, what), what), what);
  }
  return {
    async append(key, entry) {
      const input = parseWith(auditInputSchema, entry, 'Audit entry');
      const now = Date.now();
      // Defence in depth: the detail is a plain-text summary, but scrub anything token-like.
      let detail = scrubSecrets(input.detail);
      if (detail.length > AUDIT_DETAIL_MAX) detail = `${detail.slice(0, AUDIT_DETAIL_MAX - 1)}…`;
      const full: AuditEntry = {
        id: newAuditId(now),
        at: new Date(now).toISOString(),
        userId: input.userId,
        action: input.action,
        detail,
        result: input.result,
        ...(input.siteId !== undefined ? { siteId: input.siteId } : {}),
      };
      await backend.lPushCapped(ks.audit(key), stampedJson(full, vctx.versions.records.audit) as string, cap);
      return full;
    },
    async list(key, opts = {}) {
      const limit = Math.min(Math.max(1, Math.floor(opts.limit ?? AUDIT_DEFAULT_LIMIT)), AUDIT_MAX_LIMIT);
      const listKey = ks.audit(key);
      const before = opts.before;
      const out: AuditEntry[] = [];
      // Pass 1: position-based paging (exact even if replicas' clocks differ slightly).
      let found = before === undefined;
      for (let start = 0; out.length < limit; start += AUDIT_SCAN_CHUNK) {
        const chunk = await backend.lRange(listKey, start, start + AUDIT_SCAN_CHUNK - 1);
        for (const raw of chunk) {
          const e = parseEntry(raw, key);
          if (!found) {
            if (e.id === before) found = true;
            continue;
          }
          out.push(e);
          if (out.length >= limit) break;
        }
        if (chunk.length < AUDIT_SCAN_CHUNK) break;
      }
      if (found || before === undefined) return out;
      // Pass 2: the `before` entry is gone (trimmed by the cap): ids are time-ordered, compare them.
      for (let start = 0; out.length < limit; start += AUDIT_SCAN_CHUNK) {
        const chunk = await backend.lRange(listKey, start, start + AUDIT_SCAN_CHUNK - 1);
        for (const raw of chunk) {
          const e = parseEntry(raw, key);
          if (e.id < before) out.push(e);
          if (out.length >= limit) break;
        }
        if (chunk.length < AUDIT_SCAN_CHUNK) break;
      }
      return out;
    },
    async deleteAll(key) {
      await backend.delete([ks.audit(key)]);
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Generic documents
// ---------------------------------------------------------------------------------------------

export class DocNamespaceRegistry {
  private readonly registered = new Set<string>();
  constructor(
    private readonly backend: Backend,
    private readonly ks: KeySpace,
  ) {}
  async ensure(ns: string): Promise<void> {
    if (this.registered.has(ns)) return;
    await this.backend.sAdd(this.ks.docNamespaces(), [ns]);
    this.registered.add(ns);
  }
  async all(): Promise<string[]> {
    const stored = await this.backend.sMembers(this.ks.docNamespaces());
    return [...new Set([...stored, ...this.registered])].sort();
  }
}

/** A document a newer release wrote (see ./versions.ts). */
const NEWER: unique symbol = Symbol('newer document');

export function docRepo<T>(
  backend: Backend,
  ks: KeySpace,
  registry: DocNamespaceRegistry,
  namespace: string,
  vctx: VersionContext,
  schema?: DocSchema<T>,
): AtomicDocRepo<T> {
  assertNamespace(namespace);
  const known = docVersion(vctx.versions, namespace);
  const what = (ws: WorkspaceKey, id: string) => `Document ${namespace}/${id} of ${ws}`;
  /** The document, or NEWER when a newer release wrote it (reported; the caller skips it). */
  function decode(raw: string, ws: WorkspaceKey, id: string): T | typeof NEWER {
    const { value, version } = unstamp(parseJson(raw, what(ws, id)));
    if (version > known) {
      vctx.onNewer({ what: what(ws, id), version, known });
      return NEWER;
    }
    return schema ? parseWith(schema, value, what(ws, id)) : (value as T);
  }
  function encode(value: T, ws: WorkspaceKey, id: string): string {
    const checked = schema ? parseWith(schema, value, what(ws, id)) : value;
    const s = stampedJson(checked, known);
    if (s === undefined) throw new StoreDataError(`${what(ws, id)}: value is not JSON-serialisable`);
    return s;
  }
  function checkTtl(ttlMs: number | undefined): void {
    if (ttlMs !== undefined && !(Number.isFinite(ttlMs) && ttlMs > 0)) {
      throw new RangeError(`ttlMs must be a positive number of milliseconds, got ${ttlMs}`);
    }
  }
  /** Ids of the index whose document exists, with its raw value, ordered by id. */
  async function present(key: WorkspaceKey): Promise<Array<[string, string]>> {
    const idx = ks.docIndex(namespace, key);
    const ids = await backend.sMembers(idx);
    if (ids.length === 0) return [];
    const values = await backend.getMany(ids.map((id) => ks.doc(namespace, key, id)));
    const missing = ids.filter((_, i) => values[i] === undefined);
    // Expired (TTL) documents leave their id behind: prune it, re-checking atomically.
    if (missing.length > 0) await backend.sPruneMissing(idx, missing, (id) => ks.doc(namespace, key, id));
    const out: Array<[string, string]> = [];
    ids.forEach((id, i) => {
      const raw = values[i];
      if (raw !== undefined) out.push([id, raw]);
    });
    return out.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  }
  return {
    async get(key, id) {
      const raw = await backend.get(ks.doc(namespace, key, id));
      if (raw === undefined) return undefined;
      const v = decode(raw, key, id);
      return v === NEWER ? undefined : v;
    },
    async put(key, id, value, ttlMs) {
      checkTtl(ttlMs);
      const docKey = ks.doc(namespace, key, id);
      await registry.ensure(namespace);
      // Value first, then the index: a reader never sees an id whose value was never written.
      // A newer release's document is left as it is (and stays indexed).
      await backend.setUnlessNewer(docKey, encode(value, key, id), known, ttlMs);
      await backend.sAdd(ks.docIndex(namespace, key), [id]);
    },
    async delete(key, id) {
      if (await backend.deleteUnlessNewer(ks.doc(namespace, key, id), known)) {
        await backend.sRem(ks.docIndex(namespace, key), [id]);
      }
    },
    async list(key) {
      return (await present(key)).map(([id]) => id);
    },
    async entries(key) {
      const out: Array<[string, T]> = [];
      for (const [id, raw] of await present(key)) {
        const v = decode(raw, key, id);
        if (v !== NEWER) out.push([id, v]);
      }
      return out;
    },
    async deleteAll(key) {
      // Uninstall: everything of the workspace goes, whatever release wrote it.
      const idx = ks.docIndex(namespace, key);
      const ids = await backend.sMembers(idx);
      if (ids.length === 0) return;
      for (let i = 0; i < ids.length; i += 500) {
        const batch = ids.slice(i, i + 500);
        await backend.delete(batch.map((id) => ks.doc(namespace, key, id)));
        // Remove only what we deleted: an id added concurrently stays indexed with its value.
        await backend.sRem(idx, batch);
      }
    },
    async update(key, id, fn, ttlMs) {
      checkTtl(ttlMs);
      const docKey = ks.doc(namespace, key, id);
      await registry.ensure(namespace);
      let result: T | undefined;
      let newer = false;
      await backend.update(
        docKey,
        (raw) => {
          newer = false;
          const old = raw === undefined ? undefined : decode(raw, key, id);
          if (old === NEWER) {
            // Left exactly as it is: fn never sees (nor reshapes) a newer release's document.
            newer = true;
            result = undefined;
            return KEEP;
          }
          result = fn(old);
          return result === undefined ? undefined : encode(result, key, id);
        },
        ttlMs,
      );
      if (newer) return undefined;
      if (result === undefined) await backend.sRem(ks.docIndex(namespace, key), [id]);
      else await backend.sAdd(ks.docIndex(namespace, key), [id]);
      return result;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Leases
// ---------------------------------------------------------------------------------------------

export function leaseRepo(backend: Backend, ks: KeySpace): LeaseRepo {
  function check(holder: string, ttlMs?: number): void {
    assertId(holder, 'lease holder');
    if (ttlMs !== undefined && !(Number.isFinite(ttlMs) && ttlMs >= 1)) {
      throw new RangeError(`Lease ttlMs must be at least 1 ms, got ${ttlMs}`);
    }
  }
  return {
    async acquire(name, holder, ttlMs) {
      check(holder, ttlMs);
      return backend.leaseAcquire(ks.lease(name), holder, ttlMs);
    },
    async renew(name, holder, ttlMs) {
      check(holder, ttlMs);
      return backend.leaseRenew(ks.lease(name), holder, ttlMs);
    },
    async release(name, holder) {
      check(holder);
      await backend.leaseRelease(ks.lease(name), holder);
    },
    async holder(name) {
      return backend.leaseHolder(ks.lease(name));
    },
  };
}
