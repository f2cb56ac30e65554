/**
 * createStore: one Store per process, backend chosen by STORE_URL.
 *   sqlite://<path>          one process (default sqlite://./data/drm-chatops.sqlite; folder created)
 *   redis://host:port[/db]   several replicas (rediss:// for TLS; user:password@ allowed)
 *   memory://                tests and demos; nothing persists
 */
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { Keyv, type KeyvOptions } from 'keyv';
import { logger as processLogger, scrubSecrets } from '../log.js';
import { type Backend, LocalBackend } from './backend.js';
import { boundedBackend } from './bounded.js';
import { type Dumpable, type DumpEndpoint, storeEndpoint } from './dump.js';
import { StoreConfigError } from './errors.js';
import { DEFAULT_ROOT, KeySpace } from './keys.js';
import { deserializeEntry, serializeEntry } from './keyv-format.js';
import { RedisBackend, type RedisCommander } from './redis-backend.js';
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
export { AUDIT_CAP } from './repos/audit.js';
export type * from './types.js';
export { createVault, keyFingerprint, parseEncryptionKey, splitKeyList, type Vault } from './vault.js';
export {
  CURRENT_VERSIONS,
  DOC_VERSIONS,
  type NewerDocument,
  RECORD_VERSIONS,
  type SchemaVersions,
} from './versions.js';

export const DEFAULT_STORE_URL = 'sqlite://./data/drm-chatops.sqlite';

export type StoreLocation =
  | { backend: 'memory' }
  | { backend: 'sqlite'; path: string }
  | { backend: 'redis'; url: string };

/**
 * A Redis URL with any password replaced, for logs and messages; also every URL inside a longer
 * text (an error message, an argument echoed back).
 */
export function redactUrl(url: string): string {
  return url.replace(/\b([a-z][a-z0-9+.-]*:\/\/)([^@/\s]*)@/gi, (_m, scheme: string, auth: string) =>
    auth.includes(':') ? `${scheme}${auth.split(':')[0]}:***@` : `${scheme}***@`,
  );
}

export function parseStoreUrl(url: string): StoreLocation {
  const text = url.trim();
  const hint = `Use sqlite://<path> (e.g. ${DEFAULT_STORE_URL}), redis://host:port[/db] or memory://.`;
  if (text === 'memory://' || text === 'memory:') return { backend: 'memory' };
  if (text.startsWith('sqlite://')) {
    const path = text.slice('sqlite://'.length);
    if (path === '' || path === ':memory:') {
      throw new StoreConfigError('STORE_URL', `STORE_URL sqlite:// needs a file path. ${hint}`);
    }
    return { backend: 'sqlite', path };
  }
  if (/^rediss?:\/\//.test(text)) {
    let parsed: URL;
    try {
      parsed = new URL(text);
    } catch {
      throw new StoreConfigError(
        'STORE_URL',
        `STORE_URL ${redactUrl(text)} is not a valid Redis URL. ${hint}`,
      );
    }
    if (!parsed.hostname) {
      throw new StoreConfigError('STORE_URL', `STORE_URL ${redactUrl(text)} has no host. ${hint}`);
    }
    const db = parsed.pathname.replace(/^\//, '');
    if (db !== '' && !/^\d{1,2}$/.test(db)) {
      throw new StoreConfigError(
        'STORE_URL',
        `STORE_URL ${redactUrl(text)}: the database must be a number (/0../15). ${hint}`,
      );
    }
    return { backend: 'redis', url: text };
  }
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(text)?.[1];
  throw new StoreConfigError(
    'STORE_URL',
    `STORE_URL ${scheme ? `scheme "${scheme}:"` : `"${redactUrl(text).slice(0, 60)}"`} is not supported. ${hint}`,
  );
}

export interface CreateStoreOptions {
  /** STORE_URL. */
  url: string;
  /** ENCRYPTION_KEY: 32 bytes as base64 or 64 hex chars. */
  encryptionKey: string;
  /** ENCRYPTION_KEYS_PREVIOUS (already split; see splitKeyList). */
  previousEncryptionKeys?: string[];
  /** Key root instead of "drm-chatops" (tests use a unique one per run). */
  namespace?: string;
  /** memory:// only: the Map to keep data in (tests inspect the raw contents). */
  memoryMap?: Map<string, unknown>;
  /** Audit entries kept per workspace (AUDIT_CAP, default 5000). */
  auditCap?: number;
  /**
   * Also write every audit entry as a log line with the key `audit` (default true): a security
   * team's log pipeline collects them whatever happens to the store.
   */
  auditLog?: boolean;
  /** Redis connect timeout in ms (default 5000). */
  connectTimeoutMs?: number;
  /** ping() answers false after this many ms (default 2000). */
  pingTimeoutMs?: number;
  /** sqlite:// only: SQLITE_JOURNAL (default 'wal'). */
  sqliteJournal?: SqliteJournal;
  /**
   * Called once per document written by a newer release than this code (a rolling upgrade):
   * such a document is skipped or read with this code's schema, never rewritten (./versions.ts).
   */
  onNewerDocument?: (d: NewerDocument) => void;
  /** The versions this code knows (default CURRENT_VERSIONS; tests play an older release). */
  schemaVersions?: SchemaVersions;
}

/**
 * How the SQLite store commits (SQLITE_JOURNAL).
 * - `wal` (default): write-ahead log with synchronous=NORMAL. A commit appends to the -wal file
 *   without an fsync; the log is synced at checkpoints. A killed or crashed PROCESS loses nothing
 *   committed (the exactly-once records of the watcher and the outbox rely on that); a power cut
 *   or kernel crash may lose the last commits. Needs a local filesystem (shared memory -shm file).
 * - `delete`: SQLite's rollback journal with synchronous=FULL: every commit is fsynced (several
 *   times) before it returns. For network filesystems where WAL is not available, or when the
 *   last second of state must survive a power cut. Measured in `npm run bench` (figure 3, the
 *   SQLite row): most of the store's CPU in this mode is system time spent on those syncs.
 */
export type SqliteJournal = 'wal' | 'delete';

async function withTimeout<T>(p: Promise<T>, ms: number, fallback: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(fallback), ms);
  });
  try {
    return await Promise.race([p.catch(() => fallback), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** The slice of the node-redis client used here (its full generic type is heavy). */
interface NodeRedisClient {
  readonly isOpen: boolean;
  connect(): Promise<unknown>;
  destroy(): void;
  sendCommand(args: string[]): Promise<unknown>;
  on(event: string, listener: (...args: unknown[]) => void): unknown;
}

/**
 * The Redis client, made here rather than by @keyv/redis so that ("Socket closed
 * unexpectedly" surfacing as an unhandled rejection when Redis is killed):
 * - an `error` listener is attached before anything can fail (node-redis emits socket errors as
 *   events; each failing call also rejects on its own, which its caller handles);
 * - the connect timeout is the socket's own (`socket.connectTimeout`), not a timer raced against
 *   `connect()` whose loser is left behind;
 * - until the first connection succeeds, the reconnect strategy gives up once the connect timeout
 *   has passed (so a wrong STORE_URL fails start-up with a clear message instead of retrying
 *   forever); once connected it reconnects forever (backoff up to 2 s, jittered) and queued calls
 *   resume when Redis is back.
 */
function openRedisClient(
  createRedisClient: typeof import('@keyv/redis').createClient,
  url: string,
  connectTimeoutMs: number,
): NodeRedisClient {
  const startedAt = Date.now();
  let connected = false;
  const client = createRedisClient({
    url,
    socket: {
      connectTimeout: connectTimeoutMs,
      reconnectStrategy: (retries: number, cause: Error) => {
        if (!connected && Date.now() - startedAt >= connectTimeoutMs) return cause;
        return Math.min(2 ** retries * 100, 2000) + Math.floor(Math.random() * 100);
      },
    },
  });
  client.on('error', () => {
    /* socket errors: the failing calls reject on their own; ping() reports readiness */
  });
  client.on('ready', () => {
    connected = true;
  });
  return client as unknown as NodeRedisClient;
}

/**
 * Close at once, never throwing (already closed, or never opened), and reject every call still
 * queued or waiting for a reply. Called whatever `isOpen` says: after a graceful close that timed
 * out (Redis gone), node-redis already reports the client closed while the calls queued during
 * the outage still wait (for ever: the closed client stops reconnecting). `destroy()` rejects
 * them first (DisconnectsClientError) and only then throws ClientClosedError for the socket.
 */
function forceClose(client: NodeRedisClient): void {
  try {
    client.destroy();
  } catch {
    /* already closed */
  }
}

/**
 * Put the SQLite file in the journal mode asked for. WAL is kept in the file; a filesystem that
 * cannot hold it (no shared memory) leaves the rollback journal, which then also gets FULL syncs.
 */
async function setJournal(query: (sql: string) => Promise<unknown>, journal: SqliteJournal): Promise<void> {
  const rows = (await query(`PRAGMA journal_mode=${journal === 'wal' ? 'WAL' : 'DELETE'}`)) as
    | Array<{ journal_mode?: string }>
    | undefined;
  const mode = String(rows?.[0]?.journal_mode ?? '').toLowerCase();
  await query(`PRAGMA synchronous=${mode === 'wal' ? 'NORMAL' : 'FULL'}`);
}

/**
 * The stored format of the SQLite and Redis backends: keyv's own, without its generic serializer
 * (./keyv-format.ts). The memory backend keeps entries as objects (no encoding at all).
 */
const KEYV_FORMAT = {
  serialize: serializeEntry,
  deserialize: deserializeEntry,
} as unknown as Pick<KeyvOptions, 'serialize' | 'deserialize'>;

/**
 * The raw backend under a store (keys as ./keys.ts lays them out), for tools and tests that copy
 * or load stored data as it is. The product uses createStore.
 */
export async function openRawBackend(
  opts: Pick<CreateStoreOptions, 'url' | 'namespace' | 'memoryMap' | 'connectTimeoutMs' | 'sqliteJournal'>,
): Promise<{ backend: Backend & Dumpable; keys: KeySpace }> {
  const keys = new KeySpace(opts.namespace ?? DEFAULT_ROOT);
  return { backend: await openBackend(opts, keys), keys };
}

async function openBackend(
  opts: Pick<CreateStoreOptions, 'url' | 'memoryMap' | 'connectTimeoutMs' | 'sqliteJournal'>,
  ks: KeySpace,
): Promise<Backend & Dumpable> {
  const loc = parseStoreUrl(opts.url);
  if (loc.backend === 'memory') {
    const map = opts.memoryMap ?? new Map<string, unknown>();
    const keyv = new Keyv<string>({
      store: map,
      useKeyPrefix: false,
      namespace: undefined,
      // Entries stay objects in the Map: nothing to encode or parse on every read and write.
      serialize: undefined,
      deserialize: undefined,
    });
    return new LocalBackend('memory', keyv, ks.ping(), undefined, async (prefix) =>
      [...map.keys()].filter((k) => k.startsWith(prefix)),
    );
  }
  if (loc.backend === 'sqlite') {
    const file = resolve(loc.path);
    try {
      mkdirSync(dirname(file), { recursive: true });
    } catch (e) {
      throw new StoreConfigError(
        'STORE_URL',
        `STORE_URL: cannot create the folder ${dirname(file)} (${(e as Error).message})`,
      );
    }
    // Loaded only for this backend (as @keyv/redis below): a process on another store does not
    // carry the other drivers' code (about 9 MB of RSS for @keyv/redis and node-redis).
    const { default: KeyvSqlite } = await import('@keyv/sqlite');
    const sqlite = new KeyvSqlite({ uri: `sqlite://${file}`, busyTimeout: 5000 });
    const keyv = new Keyv<string>({
      store: sqlite,
      useKeyPrefix: false,
      namespace: undefined,
      ...KEYV_FORMAT,
    });
    keyv.on('error', () => {
      /* surfaced by the failing call itself */
    });
    const table = (sqlite as unknown as { opts: { table?: string } }).opts.table ?? 'keyv';
    const readMany = async (keys: string[]): Promise<Array<string | undefined>> => {
      const found = new Map<string, string>();
      for (let i = 0; i < keys.length; i += 500) {
        const rows = (await sqlite.query(
          `SELECT key, value FROM ${table} WHERE key IN (SELECT value FROM json_each(?))`,
          JSON.stringify(keys.slice(i, i + 500)),
        )) as Array<{ key: string; value: unknown }>;
        for (const r of rows) if (typeof r.value === 'string') found.set(r.key, r.value);
      }
      return keys.map((k) => found.get(k));
    };
    const keysWithPrefix = async (prefix: string): Promise<string[]> => {
      const rows = (await sqlite.query(
        `SELECT key FROM ${table} WHERE substr(key, 1, ?) = ?`,
        prefix.length,
        prefix,
      )) as Array<{ key: string }>;
      return rows.map((r) => r.key);
    };
    const backend = new LocalBackend('sqlite', keyv, ks.ping(), readMany, keysWithPrefix);
    try {
      await keyv.get(ks.ping());
      await setJournal(sqlite.query, opts.sqliteJournal ?? 'wal');
    } catch (e) {
      await backend.close().catch(() => undefined);
      throw new StoreConfigError(
        'STORE_URL',
        `STORE_URL: cannot open the SQLite file ${file} (${(e as Error).message})`,
      );
    }
    return backend;
  }
  const { default: KeyvRedis, createClient } = await import('@keyv/redis');
  const client = openRedisClient(createClient, loc.url, opts.connectTimeoutMs ?? 5000);
  try {
    await client.connect();
    await client.sendCommand(['PING']);
  } catch (e) {
    forceClose(client);
    throw new StoreConfigError(
      'STORE_URL',
      `STORE_URL: cannot reach Redis at ${redactUrl(loc.url)} (${redactUrl((e as Error).message ?? String(e))})`,
    );
  }
  // The adapter gets the connected client and no `connectionTimeout`: its getClient() then never
  // races connect() against a timer of its own.
  const adapter = new KeyvRedis<string>(client as never, { throwOnConnectError: true, throwOnErrors: true });
  adapter.on('error', () => {
    /* surfaced by the failing call itself */
  });
  const keyv = new Keyv<string>({
    store: adapter,
    useKeyPrefix: false,
    namespace: undefined,
    throwOnErrors: true,
    ...KEYV_FORMAT,
  });
  keyv.on('error', () => {
    /* surfaced by the failing call itself */
  });
  // Graceful close waits for pending replies, which never come when Redis is gone: fall back to a
  // forced disconnect.
  const disconnect = async () => {
    const graceful = await withTimeout(
      adapter.disconnect().then(() => true),
      1000,
      false,
    );
    if (!graceful) forceClose(client);
  };
  return new RedisBackend(keyv, client as unknown as RedisCommander, disconnect);
}

/**
 * A store opened for the copy tool (./dump.ts): raw keys only, no vault (values are copied as
 * they are stored; no ENCRYPTION_KEY is needed).
 */
export async function openStoreEndpoint(
  url: string,
  opts: { namespace?: string; connectTimeoutMs?: number } = {},
): Promise<DumpEndpoint> {
  const ks = new KeySpace(opts.namespace ?? DEFAULT_ROOT);
  const backend = await openBackend(
    { url, ...(opts.connectTimeoutMs ? { connectTimeoutMs: opts.connectTimeoutMs } : {}) },
    ks,
  );
  return storeEndpoint(`store ${redactUrl(url)}`, backend, ks.root);
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
