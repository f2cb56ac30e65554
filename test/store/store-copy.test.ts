/**
 * The operator's store tool (src/store-tool.ts, src/store/dump.ts): copying SQLite to Redis and
 * back, backups to a file and restores from it, with every value copied as stored (encrypted ones
 * stay encrypted), counts verified, and a non-empty target refused without --force.
 */
import { randomBytes } from 'node:crypto';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStore, openStoreEndpoint, type Store } from '../../src/store/index.js';
import {
  describeResult,
  parseStoreToolArgs,
  runStoreTool,
  type StoreToolArgs,
} from '../../src/store-tool.js';
import { startTestRedis, type TestRedis } from '../support/redis.js';

const KEY = randomBytes(32).toString('base64');
const BOT_TOKEN = 'xoxb-COPYTOKENSECRET-5521';
const SVC_SECRET = 'SVCCOPYSECRET-77aa';

let redis: TestRedis;
const namespaces: string[] = [];
const dir = mkdtempSync(join(tmpdir(), 'drm-copy-'));

beforeAll(async () => {
  redis = await startTestRedis();
});
afterAll(async () => {
  await redis?.stop(namespaces);
  rmSync(dir, { recursive: true, force: true });
});

function ns(): string {
  const n = `copy-${randomBytes(4).toString('hex')}`;
  namespaces.push(n);
  return n;
}
const sqliteUrl = () => `sqlite://${join(dir, `${randomBytes(4).toString('hex')}.sqlite`)}`;
const redisUrl = () => redis.url;

async function open(url: string, namespace: string): Promise<Store> {
  return createStore({ url, encryptionKey: KEY, namespace });
}

/** Fills a store with one of everything: installation, credentials, settings, audit, documents. */
async function fill(url: string, namespace: string): Promise<void> {
  const s = await open(url, namespace);
  try {
    await s.installations.save('T1', {
      team: { id: 'T1' },
      bot: { token: BOT_TOKEN, userId: 'UB', id: 'B1' },
    });
    await s.credentials.put('T1', {
      credentials: {
        siteIds: ['SIT1'],
        defaultSiteId: 'SIT1',
        service: { accountId: 'a', accountSeq: '1', secretKey: SVC_SECRET, baseUrl: 'http://127.0.0.1:9/' },
      },
      verifiedAt: '2026-01-01T00:00:00.000Z',
      savedBy: 'U1',
    });
    await s.settings.put('T1', { ...(await s.settings.get('T1')), auditChannelId: 'C0AUDIT' });
    for (let i = 0; i < 5; i++)
      await s.audit.append('T1', { userId: 'U1', action: `act.${i}`, detail: 'd', result: 'ok' });
    await s.docs('watches').put('T1', 'w1', { site: 'SIT1', job: 'J1' });
    await s.docs('watches').put('T1', 'w2', { site: 'SIT1', job: 'J2' });
    await s.docs('outbox').put('T2', 'o1', { text: 'hello' }, 3_600_000);
  } finally {
    await s.close();
  }
}

/** What a store serves back, read through the repositories (decrypting with the key). */
async function readBack(url: string, namespace: string) {
  const s = await open(url, namespace);
  try {
    return {
      installation: await s.installations.get('T1'),
      installs: await s.installations.listKeys(),
      credentials: (await s.credentials.get('T1'))?.credentials,
      settings: (await s.settings.get('T1')).auditChannelId,
      audit: (await s.audit.list('T1')).map((e) => e.action),
      watches: (await s.docs('watches').list('T1')).sort(),
      w2: await s.docs('watches').get('T1', 'w2'),
      outbox: await s.docs('outbox').get('T2', 'o1'),
    };
  } finally {
    await s.close();
  }
}

/** Every record as stored (encrypted values as they are), sorted by key. */
async function rawRecords(url: string, namespace: string) {
  const ep = await openStoreEndpoint(url, { namespace });
  try {
    const out: unknown[] = [];
    for await (const r of ep.records()) out.push(r.t === 'set' ? { ...r, m: [...r.m].sort() } : r);
    return out;
  } finally {
    await ep.close();
  }
}

const args = (a: Partial<StoreToolArgs> & Pick<StoreToolArgs, 'command' | 'from' | 'to' | 'namespace'>) =>
  ({ force: false, ...a }) as StoreToolArgs;

describe('store copy', () => {
  it.each([
    ['SQLite to Redis', sqliteUrl, redisUrl],
    ['Redis to SQLite', redisUrl, sqliteUrl],
  ])('%s copies every key as stored and the bot reads the same data there', async (_n, fromUrl, toUrl) => {
    const namespace = ns();
    const from = fromUrl();
    const to = toUrl();
    await fill(from, namespace);
    const r = await runStoreTool(args({ command: 'copy', from, to, namespace }));
    expect(r.summary.installations).toEqual({ keys: 1, entries: 1 });
    expect(r.summary.credentials).toEqual({ keys: 1, entries: 1 });
    expect(r.summary.audit).toEqual({ keys: 1, entries: 5 });
    expect(r.summary['docs.watches']).toEqual({ keys: 2, entries: 2 });
    expect(await rawRecords(to, namespace)).toEqual(await rawRecords(from, namespace));
    const back = await readBack(to, namespace);
    expect(back).toEqual(await readBack(from, namespace));
    expect(back.installs).toEqual(['T1']);
    expect(back.credentials?.service?.secretKey).toBe(SVC_SECRET);
    expect(back.audit).toEqual(['act.4', 'act.3', 'act.2', 'act.1', 'act.0']);
    expect(back.outbox).toEqual({ text: 'hello' });
    expect(describeResult(args({ command: 'copy', from, to, namespace }), r)).toMatch(/counts verified/);
  });

  it('copies encrypted values without decrypting: the secrets are not in the target in clear', async () => {
    const namespace = ns();
    const from = sqliteUrl();
    const to = redisUrl();
    await fill(from, namespace);
    await runStoreTool(args({ command: 'copy', from, to, namespace }));
    const text = JSON.stringify(await rawRecords(to, namespace));
    expect(text).not.toContain(BOT_TOKEN);
    expect(text).not.toContain(SVC_SECRET);
  });

  it('refuses a target that holds data without --force, and replaces it with --force', async () => {
    const namespace = ns();
    const from = sqliteUrl();
    const to = redisUrl();
    await fill(from, namespace);
    const t = await open(to, namespace);
    await t.docs('watches').put('T9', 'stale', { old: true });
    await t.close();
    await expect(runStoreTool(args({ command: 'copy', from, to, namespace }))).rejects.toThrow(
      /not empty.*--force/s,
    );
    // Nothing was written by the refused copy.
    expect((await readBack(to, namespace)).installation).toBeUndefined();
    const r = await runStoreTool(args({ command: 'copy', from, to, namespace, force: true }));
    expect(r.replaced).toBeGreaterThan(0);
    const s = await open(to, namespace);
    expect(await s.docs('watches').list('T9')).toEqual([]);
    await s.close();
    expect(await rawRecords(to, namespace)).toEqual(await rawRecords(from, namespace));
  });
});

describe('backup and restore', () => {
  it.each([
    ['SQLite', sqliteUrl],
    ['Redis', redisUrl],
  ])('%s: back up, wipe, restore gives back the same store', async (_n, url) => {
    const namespace = ns();
    const storeUrl = url();
    await fill(storeUrl, namespace);
    const before = await readBack(storeUrl, namespace);
    const rawBefore = await rawRecords(storeUrl, namespace);
    const file = join(dir, `${namespace}.jsonl`);
    await runStoreTool(args({ command: 'backup', from: storeUrl, to: `file:${file}`, namespace }));
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8')).not.toContain(SVC_SECRET);

    // Wipe: every key of the store goes.
    const ep = await openStoreEndpoint(storeUrl, { namespace });
    await ep.clear();
    await ep.close();
    expect((await readBack(storeUrl, namespace)).installs).toEqual([]);

    await runStoreTool(args({ command: 'restore', from: `file:${file}`, to: storeUrl, namespace }));
    expect(await readBack(storeUrl, namespace)).toEqual(before);
    expect(await rawRecords(storeUrl, namespace)).toEqual(rawBefore);
  });

  it('refuses a backup file cut short, and one of another namespace', async () => {
    const namespace = ns();
    const storeUrl = sqliteUrl();
    await fill(storeUrl, namespace);
    const file = join(dir, `${namespace}.jsonl`);
    await runStoreTool(args({ command: 'backup', from: storeUrl, to: `file:${file}`, namespace }));
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    const cut = join(dir, `${namespace}-cut.jsonl`);
    writeFileSync(cut, `${lines.slice(0, -3).join('\n')}\n`);
    const target = sqliteUrl();
    await expect(
      runStoreTool(args({ command: 'restore', from: `file:${cut}`, to: target, namespace })),
    ).rejects.toThrow(/cut short/);
    await expect(
      runStoreTool(args({ command: 'restore', from: `file:${file}`, to: target, namespace: ns() })),
    ).rejects.toThrow(/namespace/);
    appendFileSync(file, '{"k":"x"}\n');
    await expect(
      runStoreTool(args({ command: 'restore', from: `file:${file}`, to: target, namespace })),
    ).rejects.toThrow(/after the end marker/);
  });

  it('will not overwrite an existing backup file without --force', async () => {
    const namespace = ns();
    const storeUrl = sqliteUrl();
    await fill(storeUrl, namespace);
    const file = join(dir, `${namespace}-exists.jsonl`);
    writeFileSync(file, 'keep me');
    await expect(
      runStoreTool(args({ command: 'backup', from: storeUrl, to: `file:${file}`, namespace })),
    ).rejects.toThrow(/not empty/);
    expect(readFileSync(file, 'utf8')).toBe('keep me');
  });
});

describe('store tool arguments', () => {
  it('backup reads STORE_URL (or STORE_URL_FILE) when --from is not given', () => {
    const f = join(dir, 'store-url');
    writeFileSync(f, 'redis://127.0.0.1:6399\n');
    expect(parseStoreToolArgs(['backup', '--to', 'file:b.jsonl'], { STORE_URL_FILE: f }).from).toBe(
      'redis://127.0.0.1:6399',
    );
    expect(
      parseStoreToolArgs(['restore', '--from=file:b.jsonl', '--force'], { STORE_URL: 'sqlite://x' }),
    ).toMatchObject({
      to: 'sqlite://x',
      force: true,
    });
    expect(() => parseStoreToolArgs(['copy', '--from', 'sqlite://a'], {})).toThrow(/--from and --to/);
    expect(() => parseStoreToolArgs(['backup', '--to', 'redis://h:1'], { STORE_URL: 'sqlite://a' })).toThrow(
      /file:/,
    );
    expect(() => parseStoreToolArgs(['wipe'], {})).toThrow(/Unknown/);
  });

  it('an argument echoed back in an error has its Redis password masked', () => {
    let message = '';
    try {
      parseStoreToolArgs(['copy', '--form=redis://:hunter2@127.0.0.1:6399', '--to', 'file:x'], {});
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toMatch(/Unknown argument/);
    expect(message).not.toContain('hunter2');
    expect(message).toContain('redis://:***@127.0.0.1:6399');
  });
});
