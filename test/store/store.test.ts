/**
 * The same repository suite against every backend: memory, SQLite (temp file) and Redis (private
 * redis-server or TEST_REDIS_URL). Redis also runs the cross-replica cases with two Store instances.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createStore,
  type Store,
  StoreDataError,
  type StoredCredentials,
  VaultError,
} from '../../src/store/index.js';
import { keyFingerprint, parseEncryptionKey } from '../../src/store/vault.js';
import { startTestRedis, type TestRedis } from '../support/redis.js';

const KEY1 = randomBytes(32).toString('base64');
const KEY2 = randomBytes(32).toString('hex');

const WM_SECRET = 'WMSECRETaccesskey-7f3a9c';
const SVC_SECRET = 'SVCSECRETsigningkey-51be02';
const BOT_TOKEN = 'xoxb-BOTTOKENSECRET-9931';

function creds(n = 1): StoredCredentials {
  return {
    credentials: {
      siteIds: ['SITE1', 'SITE2'],
      defaultSiteId: 'SITE1',
      watermarking: { accountId: `acct${n}`, accessKey: WM_SECRET, baseUrl: 'http://127.0.0.1:4010/wm' },
      service: {
        accountId: `acct${n}`,
        accountSeq: '42',
        secretKey: SVC_SECRET,
        baseUrl: 'http://127.0.0.1:4010',
      },
    },
    verifiedAt: '2025-01-01T00:00:00.000Z',
    savedBy: 'U123',
  };
}

function installation(team: string) {
  return {
    team: { id: team },
    bot: { token: BOT_TOKEN, userId: 'UBOT', id: 'B1' },
    isEnterpriseInstall: false,
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Polls `cond` until it holds (then returns) or `ms` pass (then returns: the caller's expect fails). */
async function waitUntil(cond: () => Promise<boolean>, ms = 10_000): Promise<void> {
  for (const until = Date.now() + ms; Date.now() < until; await sleep(25)) if (await cond()) return;
}

interface Harness {
  name: 'memory' | 'sqlite' | 'redis';
  /** Called in beforeEach: a fresh empty location. */
  fresh(): void;
  open(keys?: { key?: string; previous?: string[]; auditCap?: number }): Promise<Store>;
  /** Everything the backend holds, as text (values as the backend stores them). */
  rawDump(): Promise<string>;
  /** Raw key names (for namespace checks). */
  rawKeys(): Promise<string[]>;
}

let redis: TestRedis | undefined;
const redisNamespaces: string[] = [];
const tmpDir = mkdtempSync(join(tmpdir(), 'drm-store-'));
const opened: Store[] = [];

beforeAll(async () => {
  redis = await startTestRedis();
});
afterAll(async () => {
  await redis?.stop(redisNamespaces);
  rmSync(tmpDir, { recursive: true, force: true });
});
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close()));
});

function memoryHarness(): Harness {
  let map = new Map<string, unknown>();
  return {
    name: 'memory',
    fresh() {
      map = new Map();
    },
    async open(o = {}) {
      const s = await createStore({
        url: 'memory://',
        encryptionKey: o.key ?? KEY1,
        previousEncryptionKeys: o.previous ?? [],
        memoryMap: map,
        ...(o.auditCap ? { auditCap: o.auditCap } : {}),
      });
      opened.push(s);
      return s;
    },
    async rawDump() {
      return JSON.stringify([...map.entries()]);
    },
    async rawKeys() {
      return [...map.keys()];
    },
  };
}

function sqliteHarness(): Harness {
  let file = '';
  return {
    name: 'sqlite',
    fresh() {
      file = join(tmpDir, `s-${randomBytes(4).toString('hex')}`, 'nested', 'store.sqlite');
    },
    async open(o = {}) {
      const s = await createStore({
        url: `sqlite://${file}`,
        encryptionKey: o.key ?? KEY1,
        previousEncryptionKeys: o.previous ?? [],
        ...(o.auditCap ? { auditCap: o.auditCap } : {}),
      });
      opened.push(s);
      return s;
    },
    async rawDump() {
      // The bytes on disk, as written (latin1 keeps every byte): the database file and its
      // write-ahead log, where commits live until a checkpoint copies them into the file.
      return onDisk(file);
    },
    async rawKeys() {
      const text = onDisk(file);
      return [...text.matchAll(/drm-chatops:[A-Za-z0-9:._-]+/g)].map((m) => m[0]);
    },
  };
}

function onDisk(file: string): string {
  return [file, `${file}-wal`]
    .filter((f) => existsSync(f))
    .map((f) => readFileSync(f).toString('latin1'))
    .join('\n');
}

function redisHarness(): Harness {
  let ns = '';
  async function keys(): Promise<string[]> {
    const out: string[] = [];
    let cursor = '0';
    do {
      const r = (await redis!.command(['SCAN', cursor, 'MATCH', `${ns}:*`, 'COUNT', '1000'])) as [
        string,
        string[],
      ];
      cursor = r[0];
      out.push(...r[1]);
    } while (cursor !== '0');
    return out;
  }
  return {
    name: 'redis',
    fresh() {
      ns = redis!.uniqueNamespace();
      redisNamespaces.push(ns);
    },
    async open(o = {}) {
      const s = await createStore({
        url: redis!.url,
        encryptionKey: o.key ?? KEY1,
        previousEncryptionKeys: o.previous ?? [],
        namespace: ns,
        ...(o.auditCap ? { auditCap: o.auditCap } : {}),
      });
      opened.push(s);
      return s;
    },
    async rawDump() {
      const parts: string[] = [];
      for (const k of await keys()) {
        const type = await redis!.command(['TYPE', k]);
        let v: unknown;
        if (type === 'string') v = await redis!.command(['GET', k]);
        else if (type === 'set') v = await redis!.command(['SMEMBERS', k]);
        else if (type === 'list') v = await redis!.command(['LRANGE', k, '0', '-1']);
        parts.push(`${k}=${JSON.stringify(v)}`);
      }
      return parts.join('\n');
    },
    async rawKeys() {
      return keys();
    },
  };
}

describe.each([memoryHarness(), sqliteHarness(), redisHarness()])('store on $name', (h) => {
  let store: Store;
  beforeEach(async () => {
    h.fresh();
    store = await h.open();
  });

  it('reports its backend and answers ping', async () => {
    expect(store.backend).toBe(h.name);
    expect(await store.ping()).toBe(true);
  });

  describe('installations', () => {
    it('saves, reads, lists and deletes', async () => {
      expect(await store.installations.get('T1')).toBeUndefined();
      await store.installations.save('T1', installation('T1'));
      await store.installations.save('E9', installation('E9'));
      expect(await store.installations.get('T1')).toEqual(installation('T1'));
      expect(await store.installations.listKeys()).toEqual(['E9', 'T1']);
      await store.installations.delete('T1');
      expect(await store.installations.get('T1')).toBeUndefined();
      expect(await store.installations.listKeys()).toEqual(['E9']);
    });

    it('refuses a malformed workspace key', async () => {
      await expect(store.installations.save('T1:x', installation('T1'))).rejects.toThrow(/workspace key/);
    });
  });

  describe('credentials', () => {
    it('puts, gets, overwrites and deletes', async () => {
      expect(await store.credentials.get('T1')).toBeUndefined();
      await store.credentials.put('T1', creds(1));
      expect(await store.credentials.get('T1')).toEqual(creds(1));
      await store.credentials.put('T1', creds(2));
      expect((await store.credentials.get('T1'))?.credentials.service?.accountId).toBe('acct2');
      expect(await store.credentials.get('T2')).toBeUndefined();
      await store.credentials.delete('T1');
      expect(await store.credentials.get('T1')).toBeUndefined();
    });

    it('refuses credentials of the wrong shape without echoing them', async () => {
      const bad = {
        ...creds(),
        credentials: { siteIds: 'SITE1', defaultSiteId: 'SITE1' },
      } as unknown as StoredCredentials;
      const err = await store.credentials.put('T1', bad).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(StoreDataError);
      expect((err as Error).message).toContain('credentials.siteIds');
      expect((err as Error).message).not.toContain(SVC_SECRET);
    });

    it('never writes secrets in clear text to the backend', async () => {
      await store.credentials.put('T1', creds());
      await store.installations.save('T1', installation('T1'));
      await store.settings.put('T1', { adminUserIds: ['UADMINVISIBLE'], auditChannelId: 'CAUDITVISIBLE' });
      await store.docs('probe').put('T1', 'doc1', { note: 'PLAINDOCVISIBLE' });
      const dump = await h.rawDump();
      // The dump really holds the data (plain settings/docs are readable)...
      expect(dump).toContain('CAUDITVISIBLE');
      expect(dump).toContain('PLAINDOCVISIBLE');
      // ...but none of the secrets.
      for (const secret of [WM_SECRET, SVC_SECRET, BOT_TOKEN, 'BOTTOKENSECRET', 'acct1']) {
        expect(dump).not.toContain(secret);
      }
      // And the encrypted values are JWEs with our kid.
      const kid = keyFingerprint(parseEncryptionKey(KEY1));
      expect(dump).toMatch(/eyJ[A-Za-z0-9_-]+\.\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+/);
      const header = JSON.stringify({ alg: 'dir', enc: 'A256GCM', kid, ctx: 'credentials:T1' });
      expect(dump).toContain(Buffer.from(header).toString('base64url'));
    });
  });

  describe('key rotation', () => {
    it('old key still decrypts; after reencryptAll the old key can be dropped', async () => {
      await store.credentials.put('T1', creds(1));
      await store.credentials.put('T2', creds(2));
      await store.installations.save('T1', installation('T1'));
      await store.close();

      // Only the new key: the records name the missing key id.
      const withoutOld = await h.open({ key: KEY2 });
      const err = await withoutOld.credentials.get('T1').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(VaultError);
      const kid1 = keyFingerprint(parseEncryptionKey(KEY1));
      expect((err as VaultError).message).toContain(`key id "${kid1}"`);
      expect((err as VaultError).message).not.toContain(KEY1);
      expect((err as VaultError).message).not.toContain(KEY2);
      await withoutOld.close();

      const rotating = await h.open({ key: KEY2, previous: [KEY1] });
      expect(await rotating.credentials.get('T1')).toEqual(creds(1));
      // New writes use the new key; reencryptAll rewrites the rest.
      await rotating.credentials.put('T3', creds(3));
      expect(await rotating.credentials.reencryptAll()).toBe(2);
      expect(await rotating.reencryptAll()).toEqual({ installations: 1, credentials: 0 });
      await rotating.close();

      const after = await h.open({ key: KEY2 });
      expect(await after.credentials.get('T1')).toEqual(creds(1));
      expect(await after.credentials.get('T2')).toEqual(creds(2));
      expect(await after.credentials.get('T3')).toEqual(creds(3));
      expect(await after.installations.get('T1')).toEqual(installation('T1'));
    });
  });

  describe('settings', () => {
    it('defaults, puts, reads and deletes', async () => {
      expect(await store.settings.get('T1')).toEqual({ adminUserIds: [] });
      const s = {
        adminUserIds: ['U1', 'U2'],
        adminUsergroupId: 'S1',
        auditChannelId: 'C1',
        pollingPausedReason: 'auth',
      };
      await store.settings.put('T1', s);
      expect(await store.settings.get('T1')).toEqual(s);
      expect(await store.settings.get('T2')).toEqual({ adminUserIds: [] });
      await store.settings.delete('T1');
      expect(await store.settings.get('T1')).toEqual({ adminUserIds: [] });
    });
  });

  describe('audit', () => {
    const entry = (i: number) => ({
      userId: 'U1',
      action: 'recipient.register',
      detail: `n=${i}`,
      result: 'ok' as const,
    });

    it('appends with id and time and lists newest first, per workspace', async () => {
      const a = await store.audit.append('T1', { ...entry(1), siteId: 'SITE1' });
      expect(a.id).toMatch(/^[0-9a-z]+$/);
      expect(Number.isNaN(Date.parse(a.at))).toBe(false);
      await store.audit.append('T1', entry(2));
      await store.audit.append('T2', entry(3));
      const list = await store.audit.list('T1');
      expect(list.map((e) => e.detail)).toEqual(['n=2', 'n=1']);
      expect(list[1]).toEqual(a);
      expect((await store.audit.list('T2')).map((e) => e.detail)).toEqual(['n=3']);
    });

    it('scrubs token-like text from details', async () => {
      const e = await store.audit.append('T1', { ...entry(0), detail: `saved token ${BOT_TOKEN}` });
      expect(e.detail).not.toContain('BOTTOKENSECRET');
      expect(JSON.stringify(await store.audit.list('T1'))).not.toContain('BOTTOKENSECRET');
    });

    it('pages with before, and caps the list (oldest dropped)', async () => {
      const capped = await h.open({ auditCap: 20 });
      for (let i = 1; i <= 30; i++) await capped.audit.append('T1', entry(i));
      const all = await capped.audit.list('T1', { limit: 100 });
      expect(all.map((e) => e.detail)).toEqual(Array.from({ length: 20 }, (_, i) => `n=${30 - i}`));
      const p1 = await capped.audit.list('T1', { limit: 8 });
      const p2 = await capped.audit.list('T1', { limit: 8, before: p1.at(-1)!.id });
      const p3 = await capped.audit.list('T1', { limit: 8, before: p2.at(-1)!.id });
      expect([...p1, ...p2, ...p3].map((e) => e.detail)).toEqual(all.map((e) => e.detail));
      expect(p3).toHaveLength(4);
      expect(await capped.audit.list('T1', { before: p3.at(-1)!.id })).toEqual([]);
      await capped.audit.deleteAll('T1');
      expect(await capped.audit.list('T1')).toEqual([]);
    });

    it('pages from an entry that was trimmed away by time order', async () => {
      const capped = await h.open({ auditCap: 5 });
      const first = await capped.audit.append('T1', entry(1));
      await sleep(5);
      for (let i = 2; i <= 8; i++) await capped.audit.append('T1', entry(i));
      // `first` was trimmed; everything left is newer than it.
      expect(await capped.audit.list('T1', { before: first.id })).toEqual([]);
      const newest = await capped.audit.list('T1', { limit: 1 });
      expect((await capped.audit.list('T1', { before: newest[0]!.id })).map((e) => e.detail)).toEqual([
        'n=7',
        'n=6',
        'n=5',
        'n=4',
      ]);
    });

    it('refuses an entry of the wrong shape', async () => {
      await expect(
        store.audit.append('T1', { userId: '', action: 'x', detail: 'd', result: 'ok' }),
      ).rejects.toBeInstanceOf(StoreDataError);
    });
  });

  describe('docs', () => {
    interface Sub {
      channel: string;
      n: number;
    }

    it('CRUD and per-workspace index', async () => {
      const subs = store.docs<Sub>('subscriptions');
      expect(await subs.list('T1')).toEqual([]);
      await subs.put('T1', 'b', { channel: 'C2', n: 2 });
      await subs.put('T1', 'a', { channel: 'C1', n: 1 });
      await subs.put('T2', 'a', { channel: 'C9', n: 9 });
      expect(await subs.get('T1', 'a')).toEqual({ channel: 'C1', n: 1 });
      expect(await subs.get('T2', 'a')).toEqual({ channel: 'C9', n: 9 });
      expect(await subs.list('T1')).toEqual(['a', 'b']);
      await subs.put('T1', 'a', { channel: 'C1', n: 10 });
      expect(await subs.list('T1')).toEqual(['a', 'b']);
      await subs.delete('T1', 'a');
      expect(await subs.get('T1', 'a')).toBeUndefined();
      expect(await subs.list('T1')).toEqual(['b']);
      // Namespaces are separate.
      expect(await store.docs<Sub>('outbox').list('T1')).toEqual([]);
      await subs.deleteAll('T1');
      expect(await subs.list('T1')).toEqual([]);
      expect(await subs.get('T1', 'b')).toBeUndefined();
      expect(await subs.list('T2')).toEqual(['a']);
    });

    it('keys are namespaced <root>:<repo>:<workspace>:<id>', async () => {
      await store.docs('reports').put('T1', 'r-1', { x: 1 });
      const keys = await h.rawKeys();
      expect(keys.some((k) => /:docs\.reports:T1:r-1$/.test(k))).toBe(true);
    });

    it('validates with a schema when given', async () => {
      const schema = z.object({ channel: z.string(), n: z.number() });
      const typed = store.docs('typed', schema);
      await expect(typed.put('T1', 'x', { channel: 'C1', n: 'no' } as unknown as Sub)).rejects.toBeInstanceOf(
        StoreDataError,
      );
      await store.docs('typed').put('T1', 'y', { other: true });
      await expect(typed.get('T1', 'y')).rejects.toThrow(/typed\/y/);
    });

    it('expires documents with a TTL and drops them from the index', async () => {
      const d = store.docs<{ v: number }>('poll');
      // A TTL long enough for the checks before it ends on a busy machine; its end is waited for.
      await d.put('T1', 'short', { v: 1 }, 1000);
      await d.put('T1', 'long', { v: 2 });
      expect(await d.list('T1')).toEqual(['long', 'short']);
      await waitUntil(async () => (await d.get('T1', 'short')) === undefined);
      expect(await d.get('T1', 'short')).toBeUndefined();
      expect(await d.list('T1')).toEqual(['long']);
      expect(await d.entries?.('T1')).toEqual([['long', { v: 2 }]]);
      // Putting it again brings it back.
      await d.put('T1', 'short', { v: 3 });
      expect(await d.list('T1')).toEqual(['long', 'short']);
    });

    it('entries() gives every document with its id, in id order, as list() then get() would', async () => {
      const d = store.docs<{ v: number }>('entries');
      expect(await d.entries?.('T1')).toEqual([]);
      for (const id of ['b', 'a', 'c10', 'c2']) await d.put('T1', id, { v: id.length });
      await d.put('T2', 'z', { v: 0 });
      const viaGet = await Promise.all((await d.list('T1')).map(async (id) => [id, await d.get('T1', id)]));
      expect(await d.entries?.('T1')).toEqual(viaGet);
      expect((await d.entries?.('T1'))?.map(([id]) => id)).toEqual(['a', 'b', 'c10', 'c2']);
      await d.delete('T1', 'b');
      expect((await d.entries?.('T1'))?.map(([id]) => id)).toEqual(['a', 'c10', 'c2']);
    });

    it('keeps every id when 50 adds run at once', async () => {
      const d = store.docs<{ i: number }>('outbox');
      await Promise.all(Array.from({ length: 50 }, (_, i) => d.put('T1', `m${i}`, { i })));
      const ids = await d.list('T1');
      expect(ids).toHaveLength(50);
      expect(new Set(ids)).toEqual(new Set(Array.from({ length: 50 }, (_, i) => `m${i}`)));
    });

    it('update() is atomic under 50 concurrent increments', async () => {
      const d = store.docs<{ n: number }>('counters');
      await Promise.all(
        Array.from({ length: 50 }, () => d.update('T1', 'c', (old) => ({ n: (old?.n ?? 0) + 1 }))),
      );
      expect(await d.get('T1', 'c')).toEqual({ n: 50 });
      expect(await d.list('T1')).toEqual(['c']);
    });

    it('update() creates, deletes when fn returns undefined, and keeps an existing TTL', async () => {
      const d = store.docs<{ n: number }>('state');
      expect(await d.update('T1', 'x', (old) => (old ? undefined : { n: 1 }))).toEqual({ n: 1 });
      expect(await d.list('T1')).toEqual(['x']);
      expect(await d.update('T1', 'x', () => undefined)).toBeUndefined();
      expect(await d.get('T1', 'x')).toBeUndefined();
      expect(await d.list('T1')).toEqual([]);
      await d.put('T1', 'ttl', { n: 1 }, 1000);
      await d.update('T1', 'ttl', (old) => ({ n: (old?.n ?? 0) + 1 }));
      expect(await d.get('T1', 'ttl')).toEqual({ n: 2 });
      await waitUntil(async () => (await d.get('T1', 'ttl')) === undefined);
      expect(await d.get('T1', 'ttl')).toBeUndefined();
    });

    it('refuses bad namespaces and ids', () => {
      expect(() => store.docs('Bad:NS')).toThrow(/namespace/);
      return expect(store.docs('ok').put('T1', 'has space', {})).rejects.toThrow(/document id/);
    });
  });

  describe('leases', () => {
    it('acquire, re-acquire by holder, refuse others, release', async () => {
      expect(await store.leases.holder('site:S1')).toBeUndefined();
      expect(await store.leases.acquire('site:S1', 'a', 5000)).toBe(true);
      expect(await store.leases.acquire('site:S1', 'a', 5000)).toBe(true);
      expect(await store.leases.acquire('site:S1', 'b', 5000)).toBe(false);
      expect(await store.leases.holder('site:S1')).toBe('a');
      expect(await store.leases.renew('site:S1', 'b', 5000)).toBe(false);
      await store.leases.release('site:S1', 'b'); // not b's: no effect
      expect(await store.leases.holder('site:S1')).toBe('a');
      await store.leases.release('site:S1', 'a');
      expect(await store.leases.holder('site:S1')).toBeUndefined();
      expect(await store.leases.acquire('site:S1', 'b', 5000)).toBe(true);
    });

    it('renew keeps it alive; expiry lets another holder take over', async () => {
      // No margins to miss on a busy machine: renewed for a minute, the lease outlives its first
      // 300 ms (a sleep never ends early); renewed short, its expiry is waited for.
      expect(await store.leases.acquire('site:S2', 'a', 300)).toBe(true);
      expect(await store.leases.renew('site:S2', 'a', 60_000)).toBe(true);
      await sleep(400);
      expect(await store.leases.acquire('site:S2', 'b', 300)).toBe(false);
      expect(await store.leases.holder('site:S2')).toBe('a');
      expect(await store.leases.renew('site:S2', 'a', 300)).toBe(true);
      await waitUntil(async () => (await store.leases.holder('site:S2')) === undefined);
      expect(await store.leases.holder('site:S2')).toBeUndefined();
      expect(await store.leases.acquire('site:S2', 'b', 60_000)).toBe(true);
      // a lost it: renew fails and its release does not free b's lease.
      expect(await store.leases.renew('site:S2', 'a', 60_000)).toBe(false);
      await store.leases.release('site:S2', 'a');
      expect(await store.leases.holder('site:S2')).toBe('b');
    });

    it('exactly one of many concurrent acquirers wins', async () => {
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) => store.leases.acquire('site:S3', `h${i}`, 5000)),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
    });
  });

  describe('purgeWorkspace', () => {
    it('removes only that workspace, including docs of namespaces this instance never opened', async () => {
      for (const ws of ['T1', 'T2']) {
        await store.installations.save(ws, installation(ws));
        await store.credentials.put(ws, creds());
        await store.settings.put(ws, { adminUserIds: ['U1'] });
        await store.audit.append(ws, { userId: 'U1', action: 'a', detail: 'd', result: 'ok' });
        await store.docs('subscriptions').put(ws, 's1', { x: 1 });
        await store.docs('reports').put(ws, 'r1', { x: 2 });
      }
      await store.close();
      const other = await h.open();
      await other.purgeWorkspace('T1');

      expect(await other.installations.get('T1')).toBeUndefined();
      expect(await other.installations.listKeys()).toEqual(['T2']);
      expect(await other.credentials.get('T1')).toBeUndefined();
      expect(await other.settings.get('T1')).toEqual({ adminUserIds: [] });
      expect(await other.audit.list('T1')).toEqual([]);
      expect(await other.docs('subscriptions').list('T1')).toEqual([]);
      expect(await other.docs('reports').get('T1', 'r1')).toBeUndefined();

      expect(await other.installations.get('T2')).toEqual(installation('T2'));
      expect(await other.credentials.get('T2')).toEqual(creds());
      expect(await other.settings.get('T2')).toEqual({ adminUserIds: ['U1'] });
      expect(await other.audit.list('T2')).toHaveLength(1);
      expect(await other.docs('subscriptions').list('T2')).toEqual(['s1']);
      expect(await other.docs('reports').get('T2', 'r1')).toEqual({ x: 2 });

      if (h.name !== 'sqlite') {
        // No key of T1 is left (sqlite keeps freed pages in the file, so check the others only).
        expect((await h.rawKeys()).filter((k) => /:T1(:|$)/.test(k))).toEqual([]);
      }
    });
  });

  it('close() makes ping false', async () => {
    await store.close();
    expect(await store.ping()).toBe(false);
  });
});

describe('redis: two replicas sharing one Redis', () => {
  let a: Store;
  let b: Store;
  beforeEach(async () => {
    const ns = redis!.uniqueNamespace();
    redisNamespaces.push(ns);
    a = await createStore({ url: redis!.url, encryptionKey: KEY1, namespace: ns });
    b = await createStore({ url: redis!.url, encryptionKey: KEY1, namespace: ns });
    opened.push(a, b);
  });

  it('index keeps all 50 ids added at once from both replicas', async () => {
    await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        (i % 2 ? a : b).docs<{ i: number }>('outbox').put('T1', `m${i}`, { i }),
      ),
    );
    expect(await a.docs('outbox').list('T1')).toHaveLength(50);
    expect(await b.docs('outbox').list('T1')).toEqual(await a.docs('outbox').list('T1'));
  });

  it('update() does not lose increments across replicas', async () => {
    await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        (i % 2 ? a : b)
          .docs<{ n: number }>('counters')
          .update('T1', 'c', (old) => ({ n: (old?.n ?? 0) + 1 })),
      ),
    );
    expect(await a.docs('counters').get('T1', 'c')).toEqual({ n: 50 });
  });

  it('a lease held by one replica is refused to the other until it expires', async () => {
    expect(await a.leases.acquire('site:S1', 'replica-a', 1000)).toBe(true);
    expect(await b.leases.acquire('site:S1', 'replica-b', 300)).toBe(false);
    expect(await b.leases.holder('site:S1')).toBe('replica-a');
    await waitUntil(async () => (await b.leases.holder('site:S1')) === undefined);
    expect(await b.leases.acquire('site:S1', 'replica-b', 60_000)).toBe(true);
    expect(await a.leases.renew('site:S1', 'replica-a', 60_000)).toBe(false);
  });

  it('audit appends from both replicas are all kept', async () => {
    await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        (i % 2 ? a : b).audit.append('T1', { userId: 'U1', action: 'x', detail: `n=${i}`, result: 'ok' }),
      ),
    );
    expect(await a.audit.list('T1', { limit: 100 })).toHaveLength(40);
  });
});
