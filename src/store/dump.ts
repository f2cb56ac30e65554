/**
 * Store copy, backup and restore (the operator's `store:copy`, `store:backup`, `store:restore`;
 * CLI in src/store-tool.ts). Works on raw keys, below the repositories: every value is copied as
 * it is stored (installations and credentials stay encrypted JWEs; no ENCRYPTION_KEY is needed
 * and none is read), so a copy is exactly what the source holds, whatever the document versions.
 *
 * What is copied: every key under `<root>:` except leases (held by running processes, they
 * expire) and the readiness probe key. A key's kind (plain value, set, list) is read from Redis
 * itself (TYPE); the SQLite and memory backends keep sets and lists as JSON arrays, so there the
 * kind comes from the key layout (./keys.ts): `<root>:idx:*` and `<root>:meta:docns` are sets,
 * `<root>:audit:*` lists. A new set or list key outside those names must be added to `kindOfKey`.
 *
 * Backup file (JSON lines, mode 0600): a header line, one line per key, and a trailer with the
 * counts; a file without its trailer (a copy cut short) is refused at restore.
 */
import { createReadStream, createWriteStream, existsSync, renameSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';

/** One key as it is stored. `x`: expiry time (ms since the epoch) of a plain value, when it has one. */
export type DumpRecord =
  | { k: string; t: 'str'; v: string; x?: number }
  | { k: string; t: 'set'; m: string[] }
  | { k: string; t: 'list'; m: string[] };

/** What a backend gives the copy tool (LocalBackend and RedisBackend implement it). */
export interface Dumpable {
  /** Every key starting with `prefix` (leases and the probe key included; the tool filters). */
  listKeys(prefix: string): Promise<string[]>;
  /** The key as stored, or undefined when it is gone (or expired). */
  exportKey(key: string): Promise<DumpRecord | undefined>;
  /** Write the key as given, replacing what is there. */
  importRecord(rec: DumpRecord): Promise<void>;
}

/** The kind of a key by the layout (sets and lists are JSON arrays on SQLite and memory). */
export function kindOfKey(key: string): 'str' | 'set' | 'list' | 'skip' {
  const parts = key.split(':');
  const seg = parts[1];
  if (seg === 'lease') return 'skip';
  if (seg === 'meta' && parts[2] === 'ping') return 'skip';
  if (seg === 'idx') return 'set';
  if (seg === 'meta' && parts[2] === 'docns') return 'set';
  if (seg === 'audit') return 'list';
  return 'str';
}

/** Count per key family (`installations`, `credentials`, `docs.watches`, `idx`…): keys and entries. */
export type DumpSummary = Record<string, { keys: number; entries: number }>;

export function familyOf(key: string): string {
  return key.split(':')[1] ?? '?';
}

export function addToSummary(summary: DumpSummary, rec: DumpRecord): void {
  const fam = familyOf(rec.k);
  const s = summary[fam] ?? { keys: 0, entries: 0 };
  s.keys += 1;
  s.entries += rec.t === 'str' ? 1 : rec.m.length;
  summary[fam] = s;
}

export function summaryDifferences(expected: DumpSummary, actual: DumpSummary): string[] {
  const out: string[] = [];
  for (const fam of new Set([...Object.keys(expected), ...Object.keys(actual)])) {
    const e = expected[fam] ?? { keys: 0, entries: 0 };
    const a = actual[fam] ?? { keys: 0, entries: 0 };
    if (e.keys !== a.keys || e.entries !== a.entries) {
      out.push(`${fam}: expected ${e.keys} key(s) / ${e.entries} entr(ies), found ${a.keys} / ${a.entries}`);
    }
  }
  return out.sort();
}

/** One side of a copy: a store (raw backend) or a backup file. */
export interface DumpEndpoint {
  readonly describe: string;
  records(): AsyncIterable<DumpRecord>;
  /** Keys (other than leases and the probe) already there. */
  countExisting(): Promise<number>;
  /** Remove every key the copy would own (under the root). */
  clear(): Promise<void>;
  write(rec: DumpRecord): Promise<void>;
  /** After the last write (a file gets its trailer and its final name). */
  finish(summary: DumpSummary): Promise<void>;
  /** The counts expected of this side, when it carries them (a backup file's trailer). */
  declaredSummary(): Promise<DumpSummary | undefined>;
  close(): Promise<void>;
}

/** A store, through its raw backend. */
export function storeEndpoint(
  describe: string,
  backend: Dumpable & { delete(keys: string[]): Promise<void>; close(): Promise<void> },
  root: string,
): DumpEndpoint {
  const prefix = `${root}:`;
  const keys = async () => (await backend.listKeys(prefix)).filter((k) => kindOfKey(k) !== 'skip').sort();
  return {
    describe,
    async *records() {
      for (const k of await keys()) {
        const rec = await backend.exportKey(k);
        if (rec) yield rec;
      }
    },
    async countExisting() {
      return (await keys()).length;
    },
    async clear() {
      const all = await keys();
      for (let i = 0; i < all.length; i += 500) await backend.delete(all.slice(i, i + 500));
    },
    write: (rec) => backend.importRecord(rec),
    async finish() {},
    async declaredSummary() {
      return undefined;
    },
    close: () => backend.close(),
  };
}

const BACKUP_FORMAT = 'drm-chatops-store-backup';

interface BackupHeader {
  format: typeof BACKUP_FORMAT;
  version: 1;
  root: string;
  createdAt: string;
}

interface BackupTrailer {
  end: true;
  records: number;
  summary: DumpSummary;
}

export class BackupFileError extends Error {
  override name = 'BackupFileError';
}

function isRecord(v: unknown): v is DumpRecord {
  if (typeof v !== 'object' || v === null) return false;
  const r = v as Record<string, unknown>;
  if (typeof r.k !== 'string') return false;
  if (r.t === 'str') return typeof r.v === 'string' && (r.x === undefined || typeof r.x === 'number');
  if (r.t === 'set' || r.t === 'list') return Array.isArray(r.m) && r.m.every((m) => typeof m === 'string');
  return false;
}

/** Reads a backup file: header, records, trailer (checked: a missing trailer means cut short). */
async function* readBackup(path: string, root: string): AsyncGenerator<DumpRecord, BackupTrailer> {
  const lines = createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity });
  let header: BackupHeader | undefined;
  let trailer: BackupTrailer | undefined;
  let n = 0;
  let lineNo = 0;
  for await (const line of lines) {
    lineNo++;
    if (line.trim() === '') continue;
    if (trailer) throw new BackupFileError(`${path}: line ${lineNo} comes after the end marker`);
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch {
      throw new BackupFileError(`${path}: line ${lineNo} is not JSON (the file is damaged)`);
    }
    if (!header) {
      const h = v as Partial<BackupHeader>;
      if (h.format !== BACKUP_FORMAT || h.version !== 1 || typeof h.root !== 'string') {
        throw new BackupFileError(`${path} is not a drm-chatops store backup (version 1)`);
      }
      if (h.root !== root) {
        throw new BackupFileError(
          `${path} holds the store namespace "${h.root}", not "${root}" (pass --namespace ${h.root})`,
        );
      }
      header = h as BackupHeader;
      continue;
    }
    if ((v as Partial<BackupTrailer>).end === true) {
      trailer = v as BackupTrailer;
      if (trailer.records !== n) {
        throw new BackupFileError(
          `${path}: the end marker counts ${trailer.records} record(s), the file has ${n}`,
        );
      }
      continue;
    }
    if (!isRecord(v) || !v.k.startsWith(`${root}:`)) {
      throw new BackupFileError(`${path}: line ${lineNo} is not a record of this store`);
    }
    n++;
    yield v;
  }
  if (!header) throw new BackupFileError(`${path} is empty`);
  if (!trailer)
    throw new BackupFileError(`${path} has no end marker: the backup was cut short; use another one`);
  return trailer;
}

/** A backup file: written to `<path>.partial` (mode 0600) and renamed when complete. */
export function fileEndpoint(path: string, root: string): DumpEndpoint {
  const file = resolve(path);
  const partial = `${file}.partial`;
  let out: ReturnType<typeof createWriteStream> | undefined;
  let records = 0;
  const writeLine = (line: string) =>
    new Promise<void>((res, rej) => {
      if (!out) {
        out = createWriteStream(partial, { mode: 0o600, flags: 'w' });
        out.once('error', rej);
        const header: BackupHeader = {
          format: BACKUP_FORMAT,
          version: 1,
          root,
          createdAt: new Date().toISOString(),
        };
        out.write(`${JSON.stringify(header)}\n`);
      }
      out.write(`${line}\n`, (e) => (e ? rej(e) : res()));
    });
  return {
    describe: `file ${file}`,
    async *records() {
      yield* readBackup(file, root);
    },
    async countExisting() {
      return existsSync(file) ? 1 : 0;
    },
    async clear() {
      rmSync(file, { force: true });
    },
    async write(rec) {
      records++;
      await writeLine(JSON.stringify(rec));
    },
    async finish(summary) {
      const trailer: BackupTrailer = { end: true, records, summary };
      await writeLine(JSON.stringify(trailer));
      const stream = out;
      out = undefined;
      await new Promise<void>((res, rej) => stream?.end((e?: Error | null) => (e ? rej(e) : res())) ?? res());
      renameSync(partial, file);
    },
    async declaredSummary() {
      const it = readBackup(file, root);
      for (;;) {
        const r = await it.next();
        if (r.done) return r.value.summary;
      }
    },
    async close() {
      if (out) {
        const stream = out;
        out = undefined;
        await new Promise<void>((res) => stream.end(() => res()));
        rmSync(partial, { force: true });
      }
    },
  };
}

export interface CopyResult {
  summary: DumpSummary;
  records: number;
  /** Keys removed from the target first (--force). */
  replaced: number;
}

export class CopyRefusedError extends Error {
  override name = 'CopyRefusedError';
}

/**
 * Copies every record from `from` to `to`, then reads `to` back and checks the counts per key
 * family against what was read (and against a backup file's own trailer). Refuses a target that
 * already holds data unless `force` (which clears it first).
 */
export async function copyStore(
  from: DumpEndpoint,
  to: DumpEndpoint,
  opts: { force?: boolean } = {},
): Promise<CopyResult> {
  const existing = await to.countExisting();
  if (existing > 0 && !opts.force) {
    throw new CopyRefusedError(
      `${to.describe} is not empty (${existing} key(s) or file there); refusing to overwrite it. ` +
        'Pass --force to replace what it holds.',
    );
  }
  // A backup file is read through (and checked) before anything is written: a damaged or cut
  // file leaves the target as it was.
  const declared = await from.declaredSummary();
  if (existing > 0) await to.clear();
  const summary: DumpSummary = {};
  let records = 0;
  for await (const rec of from.records()) {
    await to.write(rec);
    addToSummary(summary, rec);
    records++;
  }
  await to.finish(summary);
  if (declared) {
    const diff = summaryDifferences(declared, summary);
    if (diff.length > 0)
      throw new Error(`The source's own counts differ from what was read: ${diff.join('; ')}`);
  }
  const check: DumpSummary = {};
  for await (const rec of to.records()) addToSummary(check, rec);
  const diff = summaryDifferences(summary, check);
  if (diff.length > 0) throw new Error(`Verification failed, ${to.describe} differs: ${diff.join('; ')}`);
  return { summary, records, replaced: existing };
}
