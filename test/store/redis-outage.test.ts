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
});
