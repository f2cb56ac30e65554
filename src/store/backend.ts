/**
 * The raw layer under the repositories: string values over keyv, plus sets, capped lists,
 * atomic updates and leases. Two implementations:
 *  - LocalBackend (memory://, sqlite://): one process owns the data, so read-modify-write
 *    sequences are serialised with an in-process per-key mutex and leases live in memory.
 *  - RedisBackend (./redis-backend.ts): several replicas share the data; sets, lists, leases and
 *    updates use native Redis commands and Lua so no write is lost between replicas.
 */
import type { Keyv } from 'keyv';
import type { Dumpable, DumpRecord } from './dump.js';
import { kindOfKey } from './dump.js';
import { deserializeEntry } from './keyv-format.js';
import { KeyedMutex } from './mutex.js';
import { rawVersion } from './versions.js';

export type BackendKind = 'sqlite' | 'redis' | 'memory';

/** What an update function returns to leave the key exactly as it is (nothing written, TTL kept). */
export const KEEP: unique symbol = Symbol('keep the stored value');
/**
 * Return the new value, undefined to delete the key, or KEEP to write nothing. May run more than
 * once (Redis retries).
 */
export type UpdateFn = (
  old: string | undefined,
) => string | undefined | typeof KEEP | Promise<string | undefined | typeof KEEP>;

export interface Backend {
  readonly kind: BackendKind;
  get(key: string): Promise<string | undefined>;
  getMany(keys: string[]): Promise<Array<string | undefined>>;
  set(key: string, value: string, ttlMs?: number): Promise<void>;
  delete(keys: string[]): Promise<void>;
  /**
   * Atomic read-modify-write of one key. Without ttlMs an existing expiry is kept (a new key gets
   * none). Returns the value written (undefined when deleted).
   */
  update(key: string, fn: UpdateFn, ttlMs?: number): Promise<string | undefined>;
  /**
   * set(), unless the stored value is a document of a newer version than `known` (its text starts
   * `{"_v":N` with N > known, see ./versions.ts): then nothing is written and false is returned.
   */
  setUnlessNewer(key: string, value: string, known: number, ttlMs?: number): Promise<boolean>;
  /** delete() of one key, unless it holds a document newer than `known` (false then). */
  deleteUnlessNewer(key: string, known: number): Promise<boolean>;
  sAdd(key: string, members: string[]): Promise<void>;
  sRem(key: string, members: string[]): Promise<void>;
  sMembers(key: string): Promise<string[]>;
  /** Remove each member whose value key (valueKeyOf(member)) does not exist, atomically per member. */
  sPruneMissing(key: string, members: string[], valueKeyOf: (member: string) => string): Promise<void>;
  /** Push at the head and keep at most `cap` entries. */
  lPushCapped(key: string, value: string, cap: number): Promise<void>;
  /** Entries start..stop inclusive (0 = newest), like LRANGE. */
  lRange(key: string, start: number, stop: number): Promise<string[]>;
  leaseAcquire(key: string, holder: string, ttlMs: number): Promise<boolean>;
  leaseRenew(key: string, holder: string, ttlMs: number): Promise<boolean>;
  leaseRelease(key: string, holder: string): Promise<void>;
  leaseHolder(key: string): Promise<string | undefined>;
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

function parseArray(raw: string | undefined): string[] {
  if (raw === undefined) return [];
  const v: unknown = JSON.parse(raw);
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

/**
 * memory:// and sqlite://: keyv for values, in-process mutex for read-modify-write, leases in memory.
 * Sets and lists are JSON arrays stored under their key (the audit list, capped at 5,000 entries,
 * is rewritten on each append: fine for chat-ops volumes; use Redis for heavy multi-replica use).
 */
export class LocalBackend implements Backend, Dumpable {
  private readonly mutex = new KeyedMutex();
  private readonly leases = new Map<string, { holder: string; expiresAt: number }>();
  private closed = false;

  constructor(
    readonly kind: 'memory' | 'sqlite',
    private readonly keyv: Keyv<string>,
    private readonly pingKey: string,
    /**
     * SQLite: the stored entries of many keys in one query per chunk (keyv's own getMany reads
     * them one at a time, or matches rows to keys in quadratic time): what the entries of a
     * workspace's documents are read with.
     */
    private readonly readMany?: (keys: string[]) => Promise<Array<string | undefined>>,
    /** Every stored key starting with a prefix (the copy tool's scan; see ./dump.ts). */
    private readonly keysWithPrefix: (prefix: string) => Promise<string[]> = async () => [],
  ) {
    // keyv swallows store errors by default in set/delete/get: a failed SQLite write (SQLITE_BUSY,
    // SQLITE_FULL, a read-only file) resolved as if it succeeded, and ping() (keyv.get) answered
    // healthy. Callers rely on a resolved write being stored (the watch outbox writes intents
    // BEFORE advancing the poll state): errors must reach them. (getRaw, our reads, always threw.)
    keyv.throwOnErrors = true;
  }

  private async read(key: string): Promise<{ value: string; expires?: number } | undefined> {
    // getRaw applies keyv's expiry check (expired entries read as undefined).
    const raw = await this.keyv.getRaw<string>(key);
    if (!raw || typeof raw.value !== 'string') return undefined;
    return typeof raw.expires === 'number'
      ? { value: raw.value, expires: raw.expires }
      : { value: raw.value };
  }

  async get(key: string): Promise<string | undefined> {
    return (await this.read(key))?.value;
  }

  async getMany(keys: string[]): Promise<Array<string | undefined>> {
    if (keys.length === 0) return [];
    if (!this.readMany) return Promise.all(keys.map((k) => this.get(k)));
    const now = Date.now();
    return (await this.readMany(keys)).map((raw) => {
      if (raw === undefined) return undefined;
      const e = deserializeEntry(raw);
      if (!e || typeof e.value !== 'string') return undefined;
      // Expired entries read as undefined, as getRaw reads them.
      if (typeof e.expires === 'number' && e.expires <= now) return undefined;
      return e.value;
    });
  }

  async set(key: string, value: string, ttlMs?: number): Promise<void> {
    await this.mutex.run(key, async () => {
      await this.keyv.set(key, value, ttlMs);
    });
  }

  async delete(keys: string[]): Promise<void> {
    await Promise.all(keys.map((k) => this.mutex.run(k, () => this.keyv.delete(k))));
  }

  async update(key: string, fn: UpdateFn, ttlMs?: number): Promise<string | undefined> {
    return this.mutex.run(key, async () => {
      const old = await this.read(key);
      const next = await fn(old?.value);
      if (next === KEEP) return old?.value;
      if (next === undefined) {
        if (old) await this.keyv.delete(key);
        return undefined;
      }
      // The same value and no new TTL: writing it again would change nothing (an index that
      // already holds the id, for one: every document put adds its id to its index).
      if (ttlMs === undefined && old !== undefined && next === old.value) return next;
      let ttl = ttlMs;
      if (ttl === undefined && old?.expires !== undefined) ttl = Math.max(1, old.expires - Date.now());
      await this.keyv.set(key, next, ttl);
      return next;
    });
  }

  async setUnlessNewer(key: string, value: string, known: number, ttlMs?: number): Promise<boolean> {
    return this.mutex.run(key, async () => {
      const old = await this.read(key);
      if (old && rawVersion(old.value) > known) return false;
      await this.keyv.set(key, value, ttlMs);
      return true;
    });
  }

  async deleteUnlessNewer(key: string, known: number): Promise<boolean> {
    return this.mutex.run(key, async () => {
      const old = await this.read(key);
      if (old && rawVersion(old.value) > known) return false;
      if (old) await this.keyv.delete(key);
      return true;
    });
  }

  private async mutateArray(key: string, fn: (arr: string[]) => string[]): Promise<void> {
    await this.update(key, (old) => {
      const next = fn(parseArray(old));
      return next.length === 0 ? undefined : JSON.stringify(next);
    });
  }

  async sAdd(key: string, members: string[]): Promise<void> {
    if (members.length === 0) return;
    await this.mutateArray(key, (arr) => {
      const set = new Set(arr);
      for (const m of members) set.add(m);
      return [...set];
    });
  }

  async sRem(key: string, members: string[]): Promise<void> {
    if (members.length === 0) return;
    const drop = new Set(members);
    await this.mutateArray(key, (arr) => arr.filter((m) => !drop.has(m)));
  }

  async sMembers(key: string): Promise<string[]> {
    return parseArray(await this.get(key));
  }

  async sPruneMissing(key: string, members: string[], valueKeyOf: (m: string) => string): Promise<void> {
    if (members.length === 0) return;
    // Under the index lock: a concurrent put writes its value before adding to the index, so a
    // value missing now means the member is stale (a later put re-adds it after this).
    await this.mutex.run(key, async () => {
      const arr = parseArray((await this.read(key))?.value);
      const candidates = new Set(members);
      const keep: string[] = [];
      for (const m of arr) {
        if (candidates.has(m) && (await this.get(valueKeyOf(m))) === undefined) continue;
        keep.push(m);
      }
      if (keep.length === arr.length) return;
      if (keep.length === 0) await this.keyv.delete(key);
      else await this.keyv.set(key, JSON.stringify(keep));
    });
  }

  async lPushCapped(key: string, value: string, cap: number): Promise<void> {
    await this.mutateArray(key, (arr) => [value, ...arr].slice(0, cap));
  }

  async lRange(key: string, start: number, stop: number): Promise<string[]> {
    const arr = parseArray(await this.get(key));
    return arr.slice(start, stop < 0 ? undefined : stop + 1);
  }

  private liveLease(key: string): { holder: string; expiresAt: number } | undefined {
    const l = this.leases.get(key);
    if (l && l.expiresAt <= Date.now()) {
      this.leases.delete(key);
      return undefined;
    }
    return l;
  }

  async leaseAcquire(key: string, holder: string, ttlMs: number): Promise<boolean> {
    // Expired leases are otherwise dropped only when their own key is read again; one-off claims
    // (replay protection) never are, so sweep them once the map grows.
    if (this.leases.size > 10_000) {
      const now = Date.now();
      for (const [k, v] of this.leases) if (v.expiresAt <= now) this.leases.delete(k);
    }
    const l = this.liveLease(key);
    if (l && l.holder !== holder) return false;
    this.leases.set(key, { holder, expiresAt: Date.now() + ttlMs });
    return true;
  }

  async leaseRenew(key: string, holder: string, ttlMs: number): Promise<boolean> {
    const l = this.liveLease(key);
    if (!l || l.holder !== holder) return false;
    l.expiresAt = Date.now() + ttlMs;
    return true;
  }

  async leaseRelease(key: string, holder: string): Promise<void> {
    const l = this.liveLease(key);
    if (l && l.holder === holder) this.leases.delete(key);
  }

  async leaseHolder(key: string): Promise<string | undefined> {
    return this.liveLease(key)?.holder;
  }

  listKeys(prefix: string): Promise<string[]> {
    return this.keysWithPrefix(prefix);
  }

  async exportKey(key: string): Promise<DumpRecord | undefined> {
    const kind = kindOfKey(key);
    if (kind === 'skip') return undefined;
    const raw = await this.read(key);
    if (!raw) return undefined;
    if (kind === 'str')
      return raw.expires === undefined
        ? { k: key, t: 'str', v: raw.value }
        : { k: key, t: 'str', v: raw.value, x: raw.expires };
    return { k: key, t: kind, m: parseArray(raw.value) };
  }

  async importRecord(rec: DumpRecord): Promise<void> {
    await this.mutex.run(rec.k, async () => {
      if (rec.t === 'str') {
        const ttl = rec.x === undefined ? undefined : rec.x - Date.now();
        if (ttl !== undefined && ttl <= 0) await this.keyv.delete(rec.k);
        else await this.keyv.set(rec.k, rec.v, ttl);
      } else if (rec.m.length === 0) {
        await this.keyv.delete(rec.k);
      } else {
        await this.keyv.set(rec.k, JSON.stringify(rec.m));
      }
    });
  }

  async ping(): Promise<boolean> {
    if (this.closed) return false;
    try {
      await this.keyv.get(this.pingKey);
      return true;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.leases.clear();
    await this.keyv.disconnect();
  }
}
