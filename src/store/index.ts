/**
 * createStore: one Store per process, backend chosen by STORE_URL (./store-url.ts, opened by
 * ./open.ts), the repositories of ./repos/ over it, audit entries also logged.
 *   sqlite://<path>          one process (default sqlite://./data/drm-chatops.sqlite; folder created)
 *   redis://host:port[/db]   several replicas (rediss:// for TLS; user:password@ allowed)
 *   memory://                tests and demos; nothing persists
 */
import { logger as processLogger, scrubSecrets } from '../log.js';
import type { Backend } from './backend.js';
import { boundedBackend } from './bounded.js';
import { DEFAULT_ROOT, KeySpace } from './keys.js';
import { type OpenBackendOptions, openBackend, withTimeout } from './open.js';
import { auditRepo } from './repos/audit.js';
import { DocNamespaceRegistry, docRepo } from './repos/docs.js';
import { credentialsRepo, installationRepo } from './repos/encrypted.js';
import { leaseRepo } from './repos/leases.js';
import { settingsRepo } from './repos/settings.js';
import type { AtomicDocRepo, AuditEntry, AuditRepo, DocSchema, Store, WorkspaceKey } from './types.js';
import { createVault } from './vault.js';
import { CURRENT_VERSIONS, type NewerDocument, onceReporter, type SchemaVersions } from './versions.js';

export type { Backend } from './backend.js';
export {
  BackupFileError,
  CopyRefusedError,
  type CopyResult,
  copyStore,
  type DumpEndpoint,
  type DumpSummary,
  fileEndpoint,
} from './dump.js';
export {
  StoreConfigError,
  StoreDataError,
  StoreNewerDocumentError,
  StoreUnavailableError,
  VaultError,
} from './errors.js';
export { assertWorkspaceKey, DEFAULT_ROOT, KeySpace, workspaceKeyOf } from './keys.js';
export { type Migration, type MigrationReport, runMigrations } from './migrations.js';
export { type OpenBackendOptions, openRawBackend, openStoreEndpoint, type SqliteJournal } from './open.js';
export { AUDIT_CAP } from './repos/audit.js';
export { DEFAULT_STORE_URL, parseStoreUrl, redactUrl, type StoreLocation } from './store-url.js';
export type * from './types.js';
export { createVault, keyFingerprint, parseEncryptionKey, splitKeyList, type Vault } from './vault.js';
export {
  CURRENT_VERSIONS,
  DOC_VERSIONS,
  type NewerDocument,
  RECORD_VERSIONS,
  type SchemaVersions,
} from './versions.js';

export interface CreateStoreOptions extends OpenBackendOptions {
  /** ENCRYPTION_KEY: 32 bytes as base64 or 64 hex chars. */
  encryptionKey: string;
  /** ENCRYPTION_KEYS_PREVIOUS (already split; see splitKeyList). */
  previousEncryptionKeys?: string[];
  /** Audit entries kept per workspace (AUDIT_CAP, default 5000). */
  auditCap?: number;
  /**
   * Also write every audit entry as a log line with the key `audit` (default true): a security
   * team's log pipeline collects them whatever happens to the store.
   */
  auditLog?: boolean;
  /** ping() answers false after this many ms (default 2000). */
  pingTimeoutMs?: number;
  /**
   * Called once per document written by a newer release than this code (a rolling upgrade):
   * such a document is skipped or read with this code's schema, never rewritten (./versions.ts).
   */
  onNewerDocument?: (d: NewerDocument) => void;
  /** The versions this code knows (default CURRENT_VERSIONS; tests play an older release). */
  schemaVersions?: SchemaVersions;
}

/**
 * The audit log line: `{"audit":{workspace,id,at,userId,action,detail,result,siteId?,stored},"msg":"audit"}`
 * at level info, written even when LOG_LEVEL is above info (only `silent` silences it). `stored`
 * false: the store refused the entry (an outage); the line is then the only record.
 */
function logAudit(workspace: WorkspaceKey, entry: Partial<AuditEntry>, stored: boolean): void {
  const base = processLogger;
  const log =
    base.isLevelEnabled('info') || base.level === 'silent' ? base : base.child({}, { level: 'info' });
  log.info({ audit: { workspace, ...entry, stored } }, 'audit');
}

function loggedAudit(inner: AuditRepo): AuditRepo {
  return {
    ...inner,
    async append(key, entry) {
      let saved: AuditEntry;
      try {
        saved = await inner.append(key, entry);
      } catch (e) {
        // Not stored: the line is the only record, with the detail scrubbed as append does.
        const detail = typeof entry.detail === 'string' ? scrubSecrets(entry.detail) : entry.detail;
        logAudit(key, { ...entry, detail, at: new Date().toISOString() }, false);
        throw e;
      }
      logAudit(key, saved, true);
      return saved;
    },
  };
}

export async function createStore(opts: CreateStoreOptions): Promise<Store> {
  // Keys first: a bad ENCRYPTION_KEY is refused before any connection is opened.
  const vault = createVault({
    encryptionKey: opts.encryptionKey,
    previousEncryptionKeys: opts.previousEncryptionKeys ?? [],
  });
  const ks = new KeySpace(opts.namespace ?? DEFAULT_ROOT);
  const backend = await openBackend(opts, ks);
  const registry = new DocNamespaceRegistry(backend, ks);
  const ping = () => withTimeout(backend.ping(), opts.pingTimeoutMs ?? 2000, false);
  const close = () => backend.close();
  const vctx = {
    versions: opts.schemaVersions ?? CURRENT_VERSIONS,
    onNewer: onceReporter(opts.onNewerDocument),
  };
  const assemble = (b: Backend): Store => {
    const installations = installationRepo(b, vault, ks, vctx);
    const credentials = credentialsRepo(b, vault, ks, vctx);
    const settings = settingsRepo(b, ks, vctx);
    const auditStore = auditRepo(b, ks, vctx, opts.auditCap);
    const audit = opts.auditLog === false ? auditStore : loggedAudit(auditStore);
    const leases = leaseRepo(b, ks);
    const docCache = new Map<string, AtomicDocRepo<unknown>>();
    const nsRegistry = b === backend ? registry : new DocNamespaceRegistry(b, ks);

    function docs<T>(namespace: string, schema?: DocSchema<T>): AtomicDocRepo<T> {
      if (schema) return docRepo<T>(b, ks, nsRegistry, namespace, vctx, schema);
      let repo = docCache.get(namespace);
      if (!repo) {
        repo = docRepo<unknown>(b, ks, nsRegistry, namespace, vctx);
        docCache.set(namespace, repo);
      }
      return repo as AtomicDocRepo<T>;
    }

    const store: Store = {
      backend: b.kind,
      installations,
      credentials,
      settings,
      audit,
      leases,
      docs,
      async purgeWorkspace(key, purgeOpts = {}) {
        await installations.delete(key);
        await credentials.delete(key);
        await settings.delete(key);
        if (!purgeOpts.keepAudit) await audit.deleteAll(key);
        for (const ns of await nsRegistry.all()) await docs(ns).deleteAll(key);
      },
      async reencryptAll() {
        return {
          installations: await installations.reencryptAll(),
          credentials: await credentials.reencryptAll(),
        };
      },
      // Readiness must answer quickly: a Redis that went away queues commands while reconnecting.
      ping,
      close,
      bounded: (timeoutMs: number) => assemble(boundedBackend(backend, timeoutMs)),
    };
    return store;
  };
  return assemble(backend);
}
