/**
 * A memory store whose documents (`store.docs(...)`, everything the watcher writes: outbox,
 * tombstones, parents, poll state, subscriptions) go through a backend that can "die" right
 * before one chosen raw write: the write and everything after it fail, like kill -9 at that
 * instant. `revive()` is the restart: the same data, a working backend again.
 *
 * The raw writes are the backend's own operations (set, delete, update, sAdd, sRem), so a crash
 * can land between a document's value write and its index add (docRepo.put is two writes).
 */
import { Keyv } from 'keyv';
import { LocalBackend } from '../../../src/store/backend.js';
import { createStore } from '../../../src/store/index.js';
import { KeySpace } from '../../../src/store/keys.js';
import { DocNamespaceRegistry, docRepo } from '../../../src/store/repos/docs.js';
import type { AtomicDocRepo, Store } from '../../../src/store/types.js';
import { CURRENT_VERSIONS } from '../../../src/store/versions.js';
import { ENCRYPTION_KEY } from './harness.js';

export const WRITE_OPS = ['set', 'delete', 'update', 'sAdd', 'sRem'] as const;
export type WriteOp = (typeof WRITE_OPS)[number];
/** The version-guarded writes of documents (put, delete) count as the plain ones. */
const GUARDED: Record<string, WriteOp> = { setUnlessNewer: 'set', deleteUnlessNewer: 'delete' };

export class SimulatedKill extends Error {
  constructor(op: string, key: string) {
    super(`simulated kill -9 before ${op} ${key}`);
    this.name = 'SimulatedKill';
  }
}

export interface CrashStore {
  store: Store;
  /** Die before the first raw write for which `pred` is true (once). */
  crashBefore(pred: (op: WriteOp, key: string, n: number) => boolean): void;
  /** Raw writes seen since the last reset (for crash-point sweeps). */
  writes: Array<{ op: WriteOp; key: string }>;
  resetWrites(): void;
  /** True once the armed crash fired (and until revive). */
  dead(): boolean;
  revive(): void;
  close(): Promise<void>;
}

export async function crashStore(): Promise<CrashStore> {
  const map = new Map<string, unknown>();
  const root = `crash-${Math.random().toString(36).slice(2)}`;
  const base = await createStore({
    url: 'memory://',
    encryptionKey: ENCRYPTION_KEY,
    namespace: root,
    memoryMap: map,
  });
  const inner = new LocalBackend(
    'memory',
    new Keyv<string>({ store: map, useKeyPrefix: false, namespace: undefined }),
    `${root}:ping`,
  );
  const writes: Array<{ op: WriteOp; key: string }> = [];
  let armed: ((op: WriteOp, key: string, n: number) => boolean) | undefined;
  let isDead = false;
  const backend = new Proxy(inner, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver) as unknown;
      if (typeof v !== 'function') return v;
      return (...args: unknown[]) => {
        if (isDead) throw new SimulatedKill(String(prop), String(args[0]));
        const name = GUARDED[String(prop)] ?? String(prop);
        if ((WRITE_OPS as readonly string[]).includes(name)) {
          const op = name as WriteOp;
          const key = String(args[0]);
          if (armed?.(op, key, writes.length)) {
            armed = undefined;
            isDead = true;
            throw new SimulatedKill(op, key);
          }
          writes.push({ op, key });
        }
        return (v as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  const ks = new KeySpace(root);
  const registry = new DocNamespaceRegistry(backend, ks);
  const cache = new Map<string, AtomicDocRepo<unknown>>();
  const store: Store = Object.create(base) as Store;
  store.docs = <T>(ns: string) => {
    let r = cache.get(ns);
    if (!r) {
      r = docRepo<unknown>(backend, ks, registry, ns, {
        versions: CURRENT_VERSIONS,
        onNewer: () => undefined,
      });
      cache.set(ns, r);
    }
    return r as AtomicDocRepo<T>;
  };
  return {
    store,
    writes,
    crashBefore(pred) {
      armed = pred;
    },
    resetWrites() {
      writes.length = 0;
    },
    dead: () => isDead,
    revive() {
      isDead = false;
      armed = undefined;
    },
    async close() {
      await base.close();
    },
  };
}
