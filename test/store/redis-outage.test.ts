/**
 * Killing Redis (SIGKILL) under load, or pointing at a Redis that is not there, leaves no
 * unhandled rejection behind ("Socket closed unexpectedly" from @redis/client), and the store
 * works again once Redis is back. Private redis-server on loopback (skipped when not installed).
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { freeLoopbackPort } from '../../dev/testing/ports.js';
import { StoreConfigError } from '../../src/store/errors.js';
import { createStore } from '../../src/store/index.js';
import { type RestartableRedis, startRestartableRedis } from '../faults/support/redis-proc.js';
import { freezeRedis, until } from './redis-freeze.js';

const hasRedis = (() => {
  try {
    execFileSync('redis-server', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const key = () => randomBytes(32).toString('base64');

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);
beforeAll(() => {
  process.on('unhandledRejection', onUnhandled);
});
afterAll(() => {
  process.off('unhandledRejection', onUnhandled);
});

describe.skipIf(!hasRedis)('Redis outage', () => {
  let redis: RestartableRedis | undefined;
  afterEach(async () => {
    await redis?.stop();
    redis = undefined;
  });

  it('an unreachable Redis fails start-up with StoreConfigError and leaves nothing behind', async () => {
    const port = await freeLoopbackPort();
    const err = await createStore({
      url: `redis://127.0.0.1:${port}`,
      encryptionKey: key(),
      connectTimeoutMs: 300,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreConfigError);
    expect((err as Error).message).toContain('cannot reach Redis');
    // Past any connect timer that could have been left racing.
    await sleep(700);
    expect(unhandled).toEqual([]);
  });

  it('SIGKILL under load: calls in flight fail, none unhandled, and the store works after the restart', async () => {
    redis = await startRestartableRedis();
    const store = await createStore({
      url: redis.url,
      encryptionKey: key(),
      namespace: `outage-${randomBytes(3).toString('hex')}`,
    });
    const docs = store.docs<{ n: number }>('outage');
    let writing = true;
    const load = (async () => {
      for (let n = 0; writing; n++) {
        const r = await Promise.allSettled([
          docs.put('T1', `w${n}`, { n }),
          store.audit.append('T1', { userId: 'U1', action: 'x', detail: 'y', result: 'ok' }),
          docs.get('T1', `w${Math.max(0, n - 1)}`),
        ]);
        if (r.some((x) => x.status === 'rejected')) await sleep(20);
      }
    })();
    await sleep(150);
    await redis.kill9();
    await sleep(1_000);
    expect(await store.ping()).toBe(false);
    await redis.start();
    // Reconnect backoff is at most about 2 s.
    for (let i = 0; i < 60 && !(await store.ping()); i++) await sleep(100);
    writing = false;
    await load;
    expect(await store.ping()).toBe(true);
    await docs.put('T1', 'after', { n: -1 });
    expect(await docs.get('T1', 'after')).toEqual({ n: -1 });
    await store.close();
    await sleep(200);
    expect(unhandled).toEqual([]);
  }, 30_000);

  it('every kind of store call in flight at a SIGKILL settles for its caller; none is left unhandled', async () => {
    redis = await startRestartableRedis();
    const r = redis;
    const store = await createStore({
      url: r.url,
      encryptionKey: key(),
      namespace: `inflight-${randomBytes(3).toString('hex')}`,
    });
    const bounded = store.bounded(60_000);
    // Every kind of call, plain and bounded (each kind's first command is what is in flight).
    const calls = (s: typeof store, tag: string): Array<Promise<unknown>> => {
      const docs = s.docs<{ n: number }>(`inflight-${tag}`);
      return [
        docs.get('T1', 'a'),
        docs.put('T1', 'b', { n: 1 }),
        docs.update('T1', 'c', (old) => ({ n: (old?.n ?? 0) + 1 })),
        docs.list('T1'),
        docs.delete('T1', 'd'),
        s.audit.append('T1', { userId: 'U1', action: 'x', detail: 'y', result: 'ok' }),
        s.audit.list('T1'),
        s.settings.get('T1'),
        s.installations.get('T1'),
        s.credentials.get('T1'),
        s.leases.acquire(`l-${tag}`, 'h1', 5000),
        s.leases.renew(`l-${tag}`, 'h1', 5000),
        s.leases.holder(`l-${tag}`),
        s.leases.release(`l-${tag}`, 'h1'),
        s.ping(),
      ];
    };
    const settle = (ps: Array<Promise<unknown>>) =>
      Promise.allSettled(ps).then((rs) => rs.filter((x) => x.status === 'rejected').length);
    const flushed = () => new Promise((res) => setImmediate(res));

    // 1. Redis frozen, the calls sent and waiting for their replies, then killed and restarted.
    const frozen = await freezeRedis(r.url, r.port);
    const first = settle([...calls(store, 'plain'), ...calls(bounded, 'bounded')]);
    await frozen.untilMoreUnread('the calls have reached the frozen Redis');
    await r.kill9();
    await r.start();
    const failed = await first;
    // The calls in flight failed (to their callers); the ones queued resumed after the restart.
    expect(failed).toBeGreaterThan(0);
    for (let i = 0; i < 100 && !(await store.ping()); i++) await sleep(50);
    expect(await store.ping()).toBe(true);

    // 2. Redis killed with calls in flight (once they failed, the client is reconnecting), then
    //    the store closed during the outage with calls queued: every queued call rejects to its
    //    caller (they hung forever before: the graceful close marked the client closed, so the
    //    forced close after it skipped destroying it).
    const frozen2 = await freezeRedis(r.url, r.port);
    const inFlight = settle(calls(store, 'close'));
    await frozen2.untilMoreUnread('the calls have reached the frozen Redis');
    await r.kill9();
    expect(await inFlight).toBeGreaterThan(0);
    const queuedCalls = calls(store, 'queued');
    let settled = 0;
    for (const p of queuedCalls)
      p.then(
        () => settled++,
        () => settled++,
      );
    await store.close();
    await until('every call queued at close() has settled', () => settled === queuedCalls.length);
    // ping() answers false; everything else rejects.
    expect(await settle(queuedCalls)).toBe(queuedCalls.length - 1);
    await flushed();
    await flushed();
    expect(unhandled).toEqual([]);
  }, 30_000);
});
