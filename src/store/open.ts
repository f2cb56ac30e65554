/**
 * Opening the backend a STORE_URL names: memory (a Map), SQLite (the file's folder created, its
 * journal mode set, SQLITE_JOURNAL) or Redis (a client whose errors never go unhandled, which
 * gives up at start-up after the connect timeout and reconnects for ever once connected, and
 * closes even when Redis is gone). Also the raw backend and the copy tool's endpoint, opened
 * without a vault.
 */
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { Keyv, type KeyvOptions } from 'keyv';
import { type Backend, LocalBackend } from './backend.js';
import { type Dumpable, type DumpEndpoint, storeEndpoint } from './dump.js';
import { StoreConfigError } from './errors.js';
import { DEFAULT_ROOT, KeySpace } from './keys.js';
import { deserializeEntry, serializeEntry } from './keyv-format.js';
import { RedisBackend, type RedisCommander } from './redis-backend.js';
import { parseStoreUrl, redactUrl } from './store-url.js';

/** Which store to open, and how (a part of CreateStoreOptions). */
export interface OpenBackendOptions {
  /** STORE_URL. */
  url: string;
  /** Key root instead of "drm-chatops" (tests use a unique one per run). */
  namespace?: string;
  /** memory:// only: the Map to keep data in (tests inspect the raw contents). */
  memoryMap?: Map<string, unknown>;
  /** Redis connect timeout in ms (default 5000). */
  connectTimeoutMs?: number;
  /** sqlite:// only: SQLITE_JOURNAL (default 'wal'). */
  sqliteJournal?: SqliteJournal;
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

/** `p`'s value, or `fallback` when it fails or takes longer than `ms`. */
export async function withTimeout<T>(p: Promise<T>, ms: number, fallback: T): Promise<T> {
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
  opts: OpenBackendOptions,
): Promise<{ backend: Backend & Dumpable; keys: KeySpace }> {
  const keys = new KeySpace(opts.namespace ?? DEFAULT_ROOT);
  return { backend: await openBackend(opts, keys), keys };
}

/** The backend STORE_URL names, its keys laid out by `ks`; StoreConfigError when it cannot open. */
export async function openBackend(
  opts: Omit<OpenBackendOptions, 'namespace'>,
  ks: KeySpace,
): Promise<Backend & Dumpable> {
  const loc = parseStoreUrl(opts.url);
  if (loc.backend === 'memory') return openMemory(opts.memoryMap, ks);
  if (loc.backend === 'sqlite') return openSqlite(loc.path, opts.sqliteJournal, ks);
  return openRedis(loc.url, opts.connectTimeoutMs);
}

/** memory://: entries kept as objects in a Map (the one given, for tests). */
function openMemory(memoryMap: Map<string, unknown> | undefined, ks: KeySpace): Backend & Dumpable {
  const map = memoryMap ?? new Map<string, unknown>();
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

/** sqlite://: the file (its folder created), reachable and in the journal mode asked for. */
async function openSqlite(
  path: string,
  journal: SqliteJournal | undefined,
  ks: KeySpace,
): Promise<Backend & Dumpable> {
  const file = resolve(path);
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
    await setJournal(sqlite.query, journal ?? 'wal');
  } catch (e) {
    await backend.close().catch(() => undefined);
    throw new StoreConfigError(
      'STORE_URL',
      `STORE_URL: cannot open the SQLite file ${file} (${(e as Error).message})`,
    );
  }
  return backend;
}

/** redis:// and rediss://: connected (PING answered) within the connect timeout. */
async function openRedis(url: string, connectTimeoutMs: number | undefined): Promise<Backend & Dumpable> {
  const { default: KeyvRedis, createClient } = await import('@keyv/redis');
  const client = openRedisClient(createClient, url, connectTimeoutMs ?? 5000);
  try {
    await client.connect();
    await client.sendCommand(['PING']);
  } catch (e) {
    forceClose(client);
    throw new StoreConfigError(
      'STORE_URL',
      `STORE_URL: cannot reach Redis at ${redactUrl(url)} (${redactUrl((e as Error).message ?? String(e))})`,
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
