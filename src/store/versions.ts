/**
 * Schema versions of stored documents (see docs/operations.md, "Stored data versions and
 * migrations").
 *
 * Every stored document type has a version: the table below. A JSON document written by this
 * code carries it as its FIRST field, `"_v"` (`{"_v":1,...}`), stripped again when read, so the
 * code above the store never sees it. A document without the field was written before versions
 * existed (release 0.1.0) and is version 1. Encrypted records (installations, credentials) carry
 * it inside the encrypted text.
 *
 * A document of a NEWER version than this code knows was written by a newer replica during a
 * rolling upgrade. This code never rewrites it into its older shape and never deletes it:
 * - a generic document (Store.docs) is skipped: `get` answers undefined, `entries` leaves it out,
 *   `update` leaves it as it is (its function is not called), `put` and `delete` leave it alone;
 * - a record a workspace cannot work without (settings, credentials, installations, audit entries)
 *   is read with the schema this code knows (fields it does not know are dropped on the way, never
 *   written back): refusing it would lock the workspace out during the upgrade. Writing settings,
 *   credentials or an installation over a newer one is refused (StoreNewerDocumentError); audit
 *   entries are only ever appended.
 * Either way the store reports it once per document through `onNewerDocument` (main.ts logs it).
 *
 * Changing a document's shape: raise its version here AND ship a migration (src/store/migrations.ts
 * runs them) or make the reader accept both shapes; keep the fixture of the released layout
 * (test/store/fixtures/<version>/) and add the test that loads it.
 */
import { LruMap } from '../lru.js';

/** The field that carries a document's version (first field of the stored JSON). */
export const VERSION_FIELD = '_v';

/** Version of a document written before versions existed. */
export const UNVERSIONED = 1;

/** Records of the store itself. */
export const RECORD_VERSIONS = {
  installations: 1,
  credentials: 1,
  settings: 1,
  audit: 1,
} as const;
export type RecordKind = keyof typeof RECORD_VERSIONS;

/**
 * Document namespaces (Store.docs) and their versions. A namespace not listed here is version 1
 * (test/store/versions.test.ts checks that every namespace the code uses is listed).
 */
export const DOC_VERSIONS: Readonly<Record<string, number>> = {
  // src/watch: job watcher
  subscriptions: 1,
  'subscriptions-stamp': 1,
  'watch-registry': 1,
  'watch-replicas': 1,
  'watch-outbox': 1,
  'watch-delivered': 1,
  'watch-parents': 1,
  'watch-pollstate': 1,
  'channel-slots': 1,
  'watch-outage': 1,
  // src/watch: workflow waits (per-workspace layout; 'wf-waits-index' is the retired global index)
  'wf-waits': 1,
  'wf-waits-ws': 1,
  'wf-waits-index': 1,
  'wf-wait-outbox': 1,
  'wf-wait-delivered': 1,
  // src/watch: notifications
  'notify-registry': 1,
  'notify-requests': 1,
  'notify-digest': 1,
  'notify-alert-subs': 1,
  'notify-alert-state': 1,
  'notify-outbox': 1,
  'notify-delivered': 1,
  // src/ops: registrations
  'wm-drafts': 1,
  'wm-reports': 1,
  'wm-reg-runs': 1,
  'wm-reg-index': 1,
  // src/ops: the bot's uploaded exports (deleted after EXPORT_RETENTION_DAYS), uninstall retention
  'bot-exports': 1,
  'bot-exports-registry': 1,
  retention: 1,
  // src/slack
  'home-viewers': 1,
  'watch-runtime': 1,
  // the store's own (migrations applied)
  'store-meta': 1,
};

/** What a store knows: the tables above, or (tests of a rolling upgrade) an older replica's. */
export interface SchemaVersions {
  records: Readonly<Record<RecordKind, number>>;
  docs: Readonly<Record<string, number>>;
}

export const CURRENT_VERSIONS: SchemaVersions = { records: RECORD_VERSIONS, docs: DOC_VERSIONS };

export function docVersion(v: SchemaVersions, namespace: string): number {
  return v.docs[namespace] ?? UNVERSIONED;
}

/** A document of a newer version than this code knows, as reported by the store. */
export interface NewerDocument {
  /** e.g. "Document wf-waits/Ev1 of T1", "Settings of T1". */
  what: string;
  version: number;
  known: number;
}

/** The stored text of `value` with its version first (objects only; other values as they are). */
export function stampedJson(value: unknown, version: number): string | undefined {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const { [VERSION_FIELD]: _old, ...rest } = value as Record<string, unknown>;
    return JSON.stringify({ [VERSION_FIELD]: version, ...rest });
  }
  return JSON.stringify(value);
}

/** A parsed document without its version field, and that version (1 when it has none). */
export function unstamp(parsed: unknown): { value: unknown; version: number } {
  if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) {
    const o = parsed as Record<string, unknown>;
    if (VERSION_FIELD in o) {
      const { [VERSION_FIELD]: v, ...rest } = o;
      const version = typeof v === 'number' && Number.isInteger(v) && v >= 1 ? v : UNVERSIONED;
      return { value: rest, version };
    }
  }
  return { value: parsed, version: UNVERSIONED };
}

const RAW_VERSION_RE = /^\{"_v":(\d{1,9})[,}]/;

/** The version of a stored JSON text without parsing it (what the guarded writes look at). */
export function rawVersion(raw: string): number {
  const m = RAW_VERSION_RE.exec(raw);
  return m ? Number(m[1]) : UNVERSIONED;
}

/**
 * Reports each newer document once per process (a watcher re-reads the same documents every few
 * seconds): at most `max` remembered.
 */
export function onceReporter(
  report: ((d: NewerDocument) => void) | undefined,
  max = 1000,
): (d: NewerDocument) => void {
  const seen = new LruMap<string, true>(max);
  return (d) => {
    if (!report) return;
    const k = `${d.what}@${d.version}`;
    if (seen.get(k)) return;
    seen.set(k, true);
    try {
      report(d);
    } catch {
      /* a logger must not break a read */
    }
  };
}
