import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  createStore,
  DEFAULT_STORE_URL,
  parseStoreUrl,
  redactUrl,
  StoreConfigError,
  workspaceKeyOf,
} from '../../src/store/index.js';
import { KeyedMutex } from '../../src/store/mutex.js';
import { startTestRedis } from '../support/redis.js';

const KEY = randomBytes(32).toString('base64');

describe('parseStoreUrl', () => {
  it('reads the three schemes', () => {
    expect(parseStoreUrl(DEFAULT_STORE_URL)).toEqual({
      backend: 'sqlite',
      path: './data/drm-chatops.sqlite',
    });
    expect(parseStoreUrl('sqlite:///var/lib/bot/db.sqlite')).toEqual({
      backend: 'sqlite',
      path: '/var/lib/bot/db.sqlite',
    });
    expect(parseStoreUrl('memory://')).toEqual({ backend: 'memory' });
    expect(parseStoreUrl('redis://127.0.0.1:6379/2')).toEqual({
      backend: 'redis',
      url: 'redis://127.0.0.1:6379/2',
    });
    expect(parseStoreUrl('rediss://user:pw@redis.internal:6380')).toMatchObject({ backend: 'redis' });
  });

  it.each([
    ['postgres://db/x', /STORE_URL scheme "postgres:" is not supported/],
    ['./data/file.sqlite', /STORE_URL .* is not supported/],
    ['sqlite://', /needs a file path/],
    ['redis://127.0.0.1:6379/abc', /database must be a number/],
  ])('refuses %s naming STORE_URL', (url, re) => {
    let err: unknown;
    try {
      parseStoreUrl(url);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(StoreConfigError);
    expect((err as StoreConfigError).setting).toBe('STORE_URL');
    expect((err as Error).message).toMatch(re);
    expect((err as Error).message).toContain('memory://');
  });

  it('never shows a Redis password', () => {
    expect(redactUrl('redis://user:hunter2@h:1/0')).toBe('redis://user:***@h:1/0');
    expect(redactUrl('redis://:hunter2@h:1')).toBe('redis://:***@h:1');
    expect(redactUrl('connect failed for redis://u:hunter2@h:1 and rediss://:s3cret@h:2')).toBe(
      'connect failed for redis://u:***@h:1 and rediss://:***@h:2',
    );
    let msg = '';
    try {
      parseStoreUrl('redis://user:hunter2@/x');
    } catch (e) {
      msg = (e as Error).message;
    }
    expect(msg).not.toContain('hunter2');
  });
});

describe('createStore', () => {
  it('refuses a bad ENCRYPTION_KEY before opening anything', async () => {
    await expect(createStore({ url: 'memory://', encryptionKey: 'short' })).rejects.toThrow(
      /ENCRYPTION_KEY .*openssl rand -base64 32/,
    );
  });

  it('fails with a clear STORE_URL error when Redis is unreachable (password hidden)', async () => {
    const err = await createStore({
      url: 'redis://user:hunter2@127.0.0.1:1',
      encryptionKey: KEY,
      connectTimeoutMs: 1000,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreConfigError);
    expect((err as Error).message).toMatch(
      /STORE_URL: cannot reach Redis at redis:\/\/user:\*\*\*@127\.0\.0\.1:1/,
    );
    expect((err as Error).message).not.toContain('hunter2');
  });

  it('ping() answers false (and quickly) once Redis is gone', async () => {
    const saved = process.env.TEST_REDIS_URL;
    delete process.env.TEST_REDIS_URL; // a private server we may stop
    const redis = await startTestRedis().finally(() => {
      if (saved !== undefined) process.env.TEST_REDIS_URL = saved;
    });
    const store = await createStore({ url: redis.url, encryptionKey: KEY, pingTimeoutMs: 500 });
    try {
      expect(await store.ping()).toBe(true);
      await redis.stop();
      expect(await store.ping()).toBe(false);
    } finally {
      await redis.stop();
      await store.close().catch(() => undefined);
    }
  });

  it('refuses an unknown backend', async () => {
    await expect(createStore({ url: 'mongodb://x', encryptionKey: KEY })).rejects.toBeInstanceOf(
      StoreConfigError,
    );
  });
});

describe('workspaceKeyOf', () => {
  it('uses the enterprise id for org-wide installs, the team id otherwise', () => {
    expect(workspaceKeyOf({ isEnterpriseInstall: true, enterpriseId: 'E1', teamId: 'T1' })).toBe('E1');
    expect(workspaceKeyOf({ isEnterpriseInstall: false, enterpriseId: 'E1', teamId: 'T1' })).toBe('T1');
    expect(workspaceKeyOf({ team: { id: 'T2' }, enterprise: { id: 'E2' } })).toBe('T2');
    expect(workspaceKeyOf({ isEnterpriseInstall: true, enterprise: { id: 'E3' } })).toBe('E3');
    expect(() => workspaceKeyOf({})).toThrow(/workspace/);
  });
});

describe('KeyedMutex', () => {
  it('serialises work on one key and frees the entry afterwards', async () => {
    const m = new KeyedMutex();
    const order: string[] = [];
    const slow = (tag: string) =>
      m.run('k', async () => {
        order.push(`${tag}:start`);
        await new Promise((r) => setTimeout(r, 10));
        order.push(`${tag}:end`);
      });
    await Promise.all([slow('a'), slow('b'), m.run('other', async () => order.push('other'))]);
    expect(order.indexOf('a:end')).toBeLessThan(order.indexOf('b:start'));
    expect(m.size).toBe(0);
  });

  it('releases the key when the work throws', async () => {
    const m = new KeyedMutex();
    await expect(m.run('k', async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await m.run('k', async () => 7)).toBe(7);
  });
});

describe('test Redis helper', () => {
  it('fails (does not skip) with a clear message when redis-server cannot start', async () => {
    const saved = { url: process.env.TEST_REDIS_URL, path: process.env.PATH };
    delete process.env.TEST_REDIS_URL;
    process.env.PATH = '/nonexistent';
    try {
      await expect(startTestRedis()).rejects.toThrow(/redis-server.*TEST_REDIS_URL/s);
    } finally {
      process.env.PATH = saved.path;
      if (saved.url !== undefined) process.env.TEST_REDIS_URL = saved.url;
    }
  });
});
