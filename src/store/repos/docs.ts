/**
 * Generic documents: per namespace and workspace, JSON values by id with an index of ids (and the
 * registry of namespaces, for dumps and uninstall), optional TTLs, atomic updates, an optional zod
 * schema. A document a newer release wrote is skipped when read and left as it is when written.
 */
import { type Backend, KEEP } from '../backend.js';
import { StoreDataError } from '../errors.js';
import { assertNamespace, type KeySpace } from '../keys.js';
import type { AtomicDocRepo, DocSchema, WorkspaceKey } from '../types.js';
import { docVersion, stampedJson, unstamp } from '../versions.js';
import { parseJson, parseWith, type VersionContext } from './records.js';

export class DocNamespaceRegistry {
  private readonly registered = new Set<string>();
  constructor(
    private readonly backend: Backend,
    private readonly ks: KeySpace,
  ) {}
  async ensure(ns: string): Promise<void> {
    if (this.registered.has(ns)) return;
    await this.backend.sAdd(this.ks.docNamespaces(), [ns]);
    this.registered.add(ns);
  }
  async all(): Promise<string[]> {
    const stored = await this.backend.sMembers(this.ks.docNamespaces());
    return [...new Set([...stored, ...this.registered])].sort();
  }
}

/** A document a newer release wrote (see ../versions.ts). */
const NEWER: unique symbol = Symbol('newer document');

export function docRepo<T>(
  backend: Backend,
  ks: KeySpace,
  registry: DocNamespaceRegistry,
  namespace: string,
  vctx: VersionContext,
  schema?: DocSchema<T>,
): AtomicDocRepo<T> {
  assertNamespace(namespace);
  const known = docVersion(vctx.versions, namespace);
  const what = (ws: WorkspaceKey, id: string) => `Document ${namespace}/${id} of ${ws}`;
  /** The document, or NEWER when a newer release wrote it (reported; the caller skips it). */
  function decode(raw: string, ws: WorkspaceKey, id: string): T | typeof NEWER {
    const { value, version } = unstamp(parseJson(raw, what(ws, id)));
    if (version > known) {
      vctx.onNewer({ what: what(ws, id), version, known });
      return NEWER;
    }
    return schema ? parseWith(schema, value, what(ws, id)) : (value as T);
  }
  function encode(value: T, ws: WorkspaceKey, id: string): string {
    const checked = schema ? parseWith(schema, value, what(ws, id)) : value;
    const s = stampedJson(checked, known);
    if (s === undefined) throw new StoreDataError(`${what(ws, id)}: value is not JSON-serialisable`);
    return s;
  }
  function checkTtl(ttlMs: number | undefined): void {
    if (ttlMs !== undefined && !(Number.isFinite(ttlMs) && ttlMs > 0)) {
      throw new RangeError(`ttlMs must be a positive number of milliseconds, got ${ttlMs}`);
    }
  }
  /** Ids of the index whose document exists, with its raw value, ordered by id. */
  async function present(key: WorkspaceKey): Promise<Array<[string, string]>> {
    const idx = ks.docIndex(namespace, key);
    const ids = await backend.sMembers(idx);
    if (ids.length === 0) return [];
    const values = await backend.getMany(ids.map((id) => ks.doc(namespace, key, id)));
    const missing = ids.filter((_, i) => values[i] === undefined);
    // Expired (TTL) documents leave their id behind: prune it, re-checking atomically.
    if (missing.length > 0) await backend.sPruneMissing(idx, missing, (id) => ks.doc(namespace, key, id));
    const out: Array<[string, string]> = [];
    ids.forEach((id, i) => {
      const raw = values[i];
      if (raw !== undefined) out.push([id, raw]);
    });
    return out.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  }
  return {
    async get(key, id) {
      const raw = await backend.get(ks.doc(namespace, key, id));
      if (raw === undefined) return undefined;
      const v = decode(raw, key, id);
      return v === NEWER ? undefined : v;
    },
    async put(key, id, value, ttlMs) {
      checkTtl(ttlMs);
      const docKey = ks.doc(namespace, key, id);
      await registry.ensure(namespace);
      // Value first, then the index: a reader never sees an id whose value was never written.
      // A newer release's document is left as it is (and stays indexed).
      await backend.setUnlessNewer(docKey, encode(value, key, id), known, ttlMs);
      await backend.sAdd(ks.docIndex(namespace, key), [id]);
    },
    async delete(key, id) {
      if (await backend.deleteUnlessNewer(ks.doc(namespace, key, id), known)) {
        await backend.sRem(ks.docIndex(namespace, key), [id]);
      }
    },
    async list(key) {
      return (await present(key)).map(([id]) => id);
    },
    async entries(key) {
      const out: Array<[string, T]> = [];
      for (const [id, raw] of await present(key)) {
        const v = decode(raw, key, id);
        if (v !== NEWER) out.push([id, v]);
      }
      return out;
    },
    async deleteAll(key) {
      // Uninstall: everything of the workspace goes, whatever release wrote it.
      const idx = ks.docIndex(namespace, key);
      const ids = await backend.sMembers(idx);
      if (ids.length === 0) return;
      for (let i = 0; i < ids.length; i += 500) {
        const batch = ids.slice(i, i + 500);
        await backend.delete(batch.map((id) => ks.doc(namespace, key, id)));
        // Remove only what we deleted: an id added concurrently stays indexed with its value.
        await backend.sRem(idx, batch);
      }
    },
    async update(key, id, fn, ttlMs) {
      checkTtl(ttlMs);
      const docKey = ks.doc(namespace, key, id);
      await registry.ensure(namespace);
      let result: T | undefined;
      let newer = false;
      await backend.update(
        docKey,
        (raw) => {
          newer = false;
          const old = raw === undefined ? undefined : decode(raw, key, id);
          if (old === NEWER) {
            // Left exactly as it is: fn never sees (nor reshapes) a newer release's document.
            newer = true;
            result = undefined;
            return KEEP;
          }
          result = fn(old);
          return result === undefined ? undefined : encode(result, key, id);
        },
        ttlMs,
      );
      if (newer) return undefined;
      if (result === undefined) await backend.sRem(ks.docIndex(namespace, key), [id]);
      else await backend.sAdd(ks.docIndex(namespace, key), [id]);
      return result;
    },
  };
}
