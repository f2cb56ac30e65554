/**
 * Redis backend: several replicas share one Redis. Plain values go through keyv (@keyv/redis);
 * everything that must not lose a write between replicas uses the native node-redis client, which
 * the store creates and connects itself (index.ts `openRedisClient`) and shares with @keyv/redis:
 *  - indexes are Redis sets (SADD / SREM / SMEMBERS): two replicas adding ids at once both win;
 *  - the audit log is a Redis list, LPUSH + LTRIM in one Lua script;
 *  - leases: `SET key holder NX PX ttl`; renew/release are Lua compare-and-set on the holder;
 *  - update(): optimistic compare-and-set. We read the raw value, compute the new one in JS, and a
 *    Lua script writes it only if the raw value is still the one we read; otherwise we re-read and
 *    retry (bounded, with jitter). Chosen over WATCH/MULTI (needs a dedicated connection per
 *    transaction with node-redis 5) and over a lock lease (a stalled holder would block writers
 *    until the TTL). Consequence: the update function may run more than once and must be pure.
 * During a Redis outage the client reconnects forever (backoff up to 2 s) and queued calls resume
 * when Redis is back; Store.ping() reports false meanwhile (readiness), close() forces a disconnect.
 * Redis Cluster is not supported (scripts touch keys of different hash slots); a single primary
 * (optionally with replicas/Sentinel-managed failover behind one URL) is.
 */
import type { Keyv } from 'keyv';
import { type Backend, KEEP, type UpdateFn } from './backend.js';
import { type Dumpable, type DumpRecord, kindOfKey } from './dump.js';
import { StoreDataError } from './errors.js';

/** The slice of the node-redis client we use; sendCommand keeps us off its heavy generic types. */
export interface RedisCommander {
  sendCommand(args: string[]): Promise<unknown>;
}

const CAS_SCRIPT = `
local cur = redis.call('GET', KEYS[1])
if ARGV[1] == '0' then
  if cur then return 0 end
else
  if cur ~= ARGV[2] then return 0 end
end
if ARGV[3] == '0' then
  redis.call('DEL', KEYS[1])
  return 1
end
if ARGV[5] == 'keep' then
  redis.call('SET', KEYS[1], ARGV[4], 'KEEPTTL')
elseif ARGV[5] == 'none' then
  redis.call('SET', KEYS[1], ARGV[4])
else
  redis.call('SET', KEYS[1], ARGV[4], 'PX', ARGV[5])
end
return 1
`;

// Writes (ARGV[2] = 'set') or deletes KEYS[1] unless it holds a document newer than ARGV[1]: the
// stored keyv entry of a versioned document starts {"value":"{\"_v\":N (see ./versions.ts).
const UNLESS_NEWER_SCRIPT = `
local cur = redis.call('GET', KEYS[1])
if cur then
  local v = string.match(cur, '^{"value":"{\\\\"_v\\\\":(%d+)')
  if v and tonumber(v) > tonumber(ARGV[1]) then return 0 end
end
if ARGV[2] == 'del' then
  redis.call('DEL', KEYS[1])
elseif ARGV[4] == 'none' then
  redis.call('SET', KEYS[1], ARGV[3])
else
  redis.call('SET', KEYS[1], ARGV[3], 'PX', ARGV[4])
end
return 1
`;

const LPUSH_CAPPED_SCRIPT = `
redis.call('LPUSH', KEYS[1], ARGV[1])
redis.call('LTRIM', KEYS[1], 0, tonumber(ARGV[2]) - 1)
return 1
`;

const LEASE_RENEW_SCRIPT = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
`;

const LEASE_RELEASE_SCRIPT = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
`;

// KEYS[1] = set, KEYS[2..] = value keys, ARGV[i] = member for KEYS[i+1].
const PRUNE_SCRIPT = `
local removed = 0
for i = 2, #KEYS do
  if redis.call('EXISTS', KEYS[i]) == 0 then
    removed = removed + redis.call('SREM', KEYS[1], ARGV[i - 1])
  end
end
return removed
`;

const MAX_CAS_ATTEMPTS = 50;

interface RawEntry {
  value: string;
  expires?: number;
}

export class RedisBackend implements Backend, Dumpable {
  readonly kind = 'redis' as const;
  private closed = false;

  constructor(
    private readonly keyv: Keyv<string>,
    private readonly client: RedisCommander,
    private readonly disconnect: () => Promise<void>,
  ) {}

  private async eval(script: string, keys: string[], args: Array<string | number>): Promise<unknown> {
    return this.client.sendCommand(['EVAL', script, String(keys.length), ...keys, ...args.map(String)]);
  }

  async get(key: string): Promise<string | undefined> {
    const v = await this.keyv.get(key);
    return typeof v === 'string' ? v : undefined;
  }

  async getMany(keys: string[]): Promise<Array<string | undefined>> {
    if (keys.length === 0) return [];
    const vs = await this.keyv.getMany<string>(keys);
    return vs.map((v) => (typeof v === 'string' ? v : undefined));
  }

  async set(key: string, value: string, ttlMs?: number): Promise<void> {
    await this.keyv.set(key, value, ttlMs);
  }

  async delete(keys: string[]): Promise<void> {
    if (keys.length === 0) return;
    await this.client.sendCommand(['DEL', ...keys]);
  }

  private async serialize(entry: RawEntry): Promise<string> {
    const s = this.keyv.serialize;
    const out = s ? await s(entry) : JSON.stringify(entry);
    return typeof out === 'string' ? out : JSON.stringify(out);
  }

  private async deserialize(raw: string): Promise<RawEntry | undefined> {
    const d = this.keyv.deserialize;
    const data = d ? await d<string>(raw) : (JSON.parse(raw) as { value?: unknown; expires?: unknown });
    if (!data || typeof data.value !== 'string') return undefined;
    if (typeof data.expires !== 'number') return { value: data.value };
    if (data.expires <= Date.now()) return undefined;
    return { value: data.value, expires: data.expires };
  }

  async update(key: string, fn: UpdateFn, ttlMs?: number): Promise<string | undefined> {
    for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt++) {
      const raw = (await this.client.sendCommand(['GET', key])) as string | null;
      const old = raw === null ? undefined : await this.deserialize(raw);
      const next = await fn(old?.value);
      if (next === KEEP) return old?.value;
      let newRaw = '';
      let ttlArg = 'none';
      if (next !== undefined) {
        let expires: number | undefined;
        if (ttlMs !== undefined) {
          expires = Date.now() + ttlMs;
          ttlArg = String(Math.max(1, Math.round(ttlMs)));
        } else if (old && typeof old.expires === 'number') {
          expires = old.expires;
          ttlArg = 'keep';
        }
        newRaw = await this.serialize(expires === undefined ? { value: next } : { value: next, expires });
      }
      const ok = await this.eval(
        CAS_SCRIPT,
        [key],
        [raw === null ? '0' : '1', raw ?? '', next === undefined ? '0' : '1', newRaw, ttlArg],
      );
      if (Number(ok) === 1) return next;
      // Lost the race: back off a little (jittered) and re-read.
      await new Promise((r) => setTimeout(r, Math.floor(Math.random() * Math.min(50, 2 + attempt * 5))));
    }
    throw new StoreDataError(`Update of ${key} kept conflicting with other writers; try again`);
  }

  async setUnlessNewer(key: string, value: string, known: number, ttlMs?: number): Promise<boolean> {
    let raw: string;
    let ttlArg = 'none';
    if (ttlMs !== undefined) {
      ttlArg = String(Math.max(1, Math.round(ttlMs)));
      raw = await this.serialize({ value, expires: Date.now() + ttlMs });
    } else raw = await this.serialize({ value });
    const r = await this.eval(UNLESS_NEWER_SCRIPT, [key], [known, 'set', raw, ttlArg]);
    return Number(r) === 1;
  }

  async deleteUnlessNewer(key: string, known: number): Promise<boolean> {
    const r = await this.eval(UNLESS_NEWER_SCRIPT, [key], [known, 'del', '', 'none']);
    return Number(r) === 1;
  }

  async sAdd(key: string, members: string[]): Promise<void> {
    if (members.length === 0) return;
    await this.client.sendCommand(['SADD', key, ...members]);
  }

  async sRem(key: string, members: string[]): Promise<void> {
    if (members.length === 0) return;
    await this.client.sendCommand(['SREM', key, ...members]);
  }

  async sMembers(key: string): Promise<string[]> {
    const r = await this.client.sendCommand(['SMEMBERS', key]);
    return Array.isArray(r) ? r.map(String) : [];
  }

  async sPruneMissing(key: string, members: string[], valueKeyOf: (m: string) => string): Promise<void> {
    if (members.length === 0) return;
    await this.eval(PRUNE_SCRIPT, [key, ...members.map(valueKeyOf)], members);
  }

  async lPushCapped(key: string, value: string, cap: number): Promise<void> {
    await this.eval(LPUSH_CAPPED_SCRIPT, [key], [value, cap]);
  }

  async lRange(key: string, start: number, stop: number): Promise<string[]> {
    const r = await this.client.sendCommand(['LRANGE', key, String(start), String(stop)]);
    return Array.isArray(r) ? r.map(String) : [];
  }

  async leaseAcquire(key: string, holder: string, ttlMs: number): Promise<boolean> {
    const ttl = String(Math.max(1, Math.round(ttlMs)));
    const r = await this.client.sendCommand(['SET', key, holder, 'NX', 'PX', ttl]);
    if (r === 'OK') return true;
    // Already held: fine if it is ours (extend it).
    return this.leaseRenew(key, holder, ttlMs);
  }

  async leaseRenew(key: string, holder: string, ttlMs: number): Promise<boolean> {
    const r = await this.eval(LEASE_RENEW_SCRIPT, [key], [holder, Math.max(1, Math.round(ttlMs))]);
    return Number(r) === 1;
  }

  async leaseRelease(key: string, holder: string): Promise<void> {
    await this.eval(LEASE_RELEASE_SCRIPT, [key], [holder]);
  }

  async leaseHolder(key: string): Promise<string | undefined> {
    const r = await this.client.sendCommand(['GET', key]);
    return typeof r === 'string' ? r : undefined;
  }

  async listKeys(prefix: string): Promise<string[]> {
    const match = `${prefix.replace(/[*?[\]\\]/g, (c) => `\\${c}`)}*`;
    const keys = new Set<string>();
    let cursor = '0';
    // SCAN ends when the cursor comes back to 0; bounded in case a server misbehaves.
    for (let i = 0; i < 1_000_000; i++) {
      const r = (await this.client.sendCommand(['SCAN', cursor, 'MATCH', match, 'COUNT', '500'])) as [
        string,
        string[],
      ];
      for (const k of r[1]) keys.add(String(k));
      cursor = String(r[0]);
      if (cursor === '0') break;
    }
    return [...keys];
  }

  async exportKey(key: string): Promise<DumpRecord | undefined> {
    if (kindOfKey(key) === 'skip') return undefined;
    const type = String(await this.client.sendCommand(['TYPE', key]));
    if (type === 'set') return { k: key, t: 'set', m: await this.sMembers(key) };
    if (type === 'list') return { k: key, t: 'list', m: await this.lRange(key, 0, -1) };
    if (type !== 'string') return undefined;
    const raw = (await this.client.sendCommand(['GET', key])) as string | null;
    const entry = raw === null ? undefined : await this.deserialize(raw);
    if (!entry) return undefined;
    return entry.expires === undefined
      ? { k: key, t: 'str', v: entry.value }
      : { k: key, t: 'str', v: entry.value, x: entry.expires };
  }

  async importRecord(rec: DumpRecord): Promise<void> {
    await this.client.sendCommand(['DEL', rec.k]);
    if (rec.t === 'str') {
      const ttl = rec.x === undefined ? undefined : rec.x - Date.now();
      if (ttl === undefined || ttl > 0) await this.keyv.set(rec.k, rec.v, ttl);
      return;
    }
    for (let i = 0; i < rec.m.length; i += 500) {
      const chunk = rec.m.slice(i, i + 500);
      await this.client.sendCommand([rec.t === 'set' ? 'SADD' : 'RPUSH', rec.k, ...chunk]);
    }
  }

  async ping(): Promise<boolean> {
    if (this.closed) return false;
    try {
      return (await this.client.sendCommand(['PING'])) === 'PONG';
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.disconnect();
  }
}
