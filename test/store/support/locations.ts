/**
 * One fresh store location per test on each backend (memory, SQLite temp file, Redis: a private
 * redis-server or TEST_REDIS_URL), for tests that open several stores on the same data (replicas
 * of two releases, a store loaded from a fixture).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type CreateStoreOptions,
  createStore,
  openRawBackend,
  type Store,
} from '../../../src/store/index.js';
import { startTestRedis, type TestRedis } from '../../support/redis.js';

export const BACKENDS = ['memory', 'sqlite', 'redis'] as const;
export type BackendName = (typeof BACKENDS)[number];

export interface Location {
  url: string;
  namespace: string;
  memoryMap?: Map<string, unknown>;
}

export interface Locations {
  fresh(kind: BackendName): Location;
  open(loc: Location, more?: Partial<CreateStoreOptions>): Promise<Store>;
  raw(loc: Location): ReturnType<typeof openRawBackend>;
  /** Closes every store opened, removes temp files and stops Redis. */
  stop(): Promise<void>;
}

export const TEST_KEY = randomBytes(32).toString('base64');

export async function startLocations(): Promise<Locations> {
  const redis: TestRedis = await startTestRedis();
  const dir = mkdtempSync(join(tmpdir(), 'drm-store-loc-'));
  const roots: string[] = [];
  const opened: Array<{ close(): Promise<void> }> = [];
  let n = 0;
  return {
    fresh(kind) {
      const namespace = redis.uniqueNamespace();
      roots.push(namespace);
      if (kind === 'memory') return { url: 'memory://', namespace, memoryMap: new Map() };
      if (kind === 'sqlite') return { url: `sqlite://${join(dir, `s${++n}.sqlite`)}`, namespace };
      return { url: redis.url, namespace };
    },
    async open(loc, more = {}) {
      const s = await createStore({ encryptionKey: TEST_KEY, ...loc, ...more });
      opened.push(s);
      return s;
    },
    async raw(loc) {
      const r = await openRawBackend(loc);
      opened.push(r.backend);
      return r;
    },
    async stop() {
      for (const s of opened) await s.close().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
      await redis.stop(roots);
    },
  };
}
