/** A Redis for tests: the starter lives in dev/testing/redis.ts (the stack builder uses it too). */
import { afterAll, beforeAll } from 'vitest';
import { startTestRedis, type TestRedis } from '../../dev/testing/redis.js';
import { createStore } from '../../src/store/index.js';
import type { Store } from '../../src/store/types.js';

export * from '../../dev/testing/redis.js';

/**
 * Called in a describe block: one Redis for its tests (started before them, stopped after them
 * with the keys of every namespace handed out). `namespace()` is a fresh key root and `open(ns)`
 * one store connection on it, as each replica has its own.
 */
export function redisForSuite(encryptionKey: string): {
  namespace(): string;
  open(namespace: string): Promise<Store>;
} {
  let redis: TestRedis | undefined;
  const namespaces: string[] = [];
  beforeAll(async () => {
    redis = await startTestRedis();
  }, 20_000);
  afterAll(async () => {
    await redis?.stop(namespaces);
  });
  return {
    namespace() {
      const ns = redis!.uniqueNamespace();
      namespaces.push(ns);
      return ns;
    },
    open: (namespace) => createStore({ url: redis!.url, encryptionKey, namespace }),
  };
}
