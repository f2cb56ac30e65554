/**
 * Schema versions of stored documents during a rolling upgrade: a replica of an older release
 * (played by a store that knows older versions) and one of a newer release share the data. The
 * older one leaves the newer documents alone (skips them, never rewrites them into its shape,
 * never deletes them) and says so once; the newer one reads what the older one wrote.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CURRENT_VERSIONS,
  DOC_VERSIONS,
  type NewerDocument,
  type SchemaVersions,
  StoreNewerDocumentError,
} from '../../src/store/index.js';
import { rawVersion, stampedJson, unstamp } from '../../src/store/versions.js';
import {
  addWait,
  createWaitCompleter,
  listWaits,
  WAITS_NAMESPACE,
  waitsRepo,
} from '../../src/watch/job-waits.js';
import { BACKENDS, type Locations, startLocations } from './support/locations.js';

let locs: Locations;
beforeAll(async () => {
  locs = await startLocations();
});
afterAll(async () => {
  await locs?.stop();
});

/** A release that knows `ns` at `version` (everything else as this code). */
function release(ns: string, version: number): SchemaVersions {
  return { records: CURRENT_VERSIONS.records, docs: { ...CURRENT_VERSIONS.docs, [ns]: version } };
}
function withSettings(version: number): SchemaVersions {
  return { records: { ...CURRENT_VERSIONS.records, settings: version }, docs: CURRENT_VERSIONS.docs };
}

describe.each(BACKENDS)('an older and a newer replica side by side (%s)', (kind) => {
  it('the older one skips a newer document, never rewrites or deletes it, and says so once', async () => {
    const loc = locs.fresh(kind);
    const seen: NewerDocument[] = [];
    const newer = await locs.open(loc, { schemaVersions: release('notes', 2) });
    const older = await locs.open(loc, {
      schemaVersions: release('notes', 1),
      onNewerDocument: (d) => seen.push(d),
    });
    const n2 = newer.docs<{ text: string; extra?: string }>('notes');
    const n1 = older.docs<{ text: string }>('notes');
    await n2.put('T1', 'a', { text: 'new shape', extra: 'kept' });
    await n1.put('T1', 'b', { text: 'old shape' });
    const stored = async () => JSON.stringify(await newer.docs('notes').get('T1', 'a'));
    const before = await stored();

    // Reads: skipped, not an error.
    expect(await n1.get('T1', 'a')).toBeUndefined();
    expect((await n1.entries?.('T1'))?.map(([id]) => id)).toEqual(['b']);
    // Writes: the newer document stays as it is and stays listed.
    let called = false;
    expect(
      await n1.update('T1', 'a', () => {
        called = true;
        return { text: 'rewritten by the older release' };
      }),
    ).toBeUndefined();
    expect(called).toBe(false);
    await n1.put('T1', 'a', { text: 'overwritten by the older release' });
    await n1.delete('T1', 'a');
    await n1.update('T1', 'a', () => undefined);
    // Nor its time to live: an update with a TTL does not give the newer document one.
    await n1.update('T1', 'a', (old) => old, 1);
    await new Promise((r) => setTimeout(r, 30));
    expect(await stored()).toBe(before);
    expect(await n2.get('T1', 'a')).toEqual({ text: 'new shape', extra: 'kept' });
    expect(await n1.list('T1')).toEqual(['a', 'b']);

    // The newer one reads what the older one wrote (version 1 is within what it knows).
    expect(await n2.get('T1', 'b')).toEqual({ text: 'old shape' });
    // Told once per document, with both versions.
    expect(seen).toEqual([{ what: 'Document notes/a of T1', version: 2, known: 1 }]);
  });

  it('a workflow wait written by a newer release is left to the newer replicas', async () => {
    const loc = locs.fresh(kind);
    const newer = await locs.open(loc, { schemaVersions: release(WAITS_NAMESPACE, 2) });
    const older = await locs.open(loc, { schemaVersions: release(WAITS_NAMESPACE, 1) });
    const wait = {
      executionId: 'Fx-new',
      workspace: 'T1',
      siteId: 'SIT1',
      kind: 'job' as const,
      target: 'job-1',
      deadline: Date.now() + 3_600_000,
    };
    expect(await addWait(newer, wait)).toBe(true);
    // The older replica neither lists it nor takes it as absent: no second wait, no completion.
    expect(await listWaits(older, 'T1')).toEqual([]);
    expect(await addWait(older, wait)).toBe(false);
    const sent: string[] = [];
    const completer = createWaitCompleter({
      store: older,
      port: {
        complete: async (w) => {
          sent.push(w.executionId);
          return 'sent';
        },
        fail: async (w) => {
          sent.push(w.executionId);
          return 'sent';
        },
        check: async () => ({ done: false }),
      },
    });
    expect(await completer.finish('T1', 'Fx-new', { ok: true, outputs: {} })).toBe('gone');
    expect(sent).toEqual([]);
    // Still pending for the newer replicas, in the newer shape.
    expect((await listWaits(newer, 'T1')).map((w) => [w.executionId, w.state])).toEqual([
      ['Fx-new', 'pending'],
    ]);
    expect(await waitsRepo(newer).get('T1', 'Fx-new')).toMatchObject({ state: 'pending' });
  });

  it('settings of a newer release are read with the older schema and never overwritten', async () => {
    const loc = locs.fresh(kind);
    const seen: NewerDocument[] = [];
    const newer = await locs.open(loc, { schemaVersions: withSettings(2) });
    const older = await locs.open(loc, {
      schemaVersions: withSettings(1),
      onNewerDocument: (d) => seen.push(d),
    });
    await newer.settings.put('T1', { adminUserIds: ['U1'], auditChannelId: 'C1' });
    // Admins keep their role on the older replica during the upgrade.
    expect(await older.settings.get('T1')).toEqual({ adminUserIds: ['U1'], auditChannelId: 'C1' });
    await expect(older.settings.put('T1', { adminUserIds: [] })).rejects.toBeInstanceOf(
      StoreNewerDocumentError,
    );
    expect(await newer.settings.get('T1')).toEqual({ adminUserIds: ['U1'], auditChannelId: 'C1' });
    expect(seen.map((d) => d.what)).toEqual(['Settings of T1']);
  });
});

describe.each(BACKENDS)('encrypted records during a rolling upgrade (%s)', (kind) => {
  it('credentials of a newer release are read by the older one and never overwritten by it', async () => {
    const loc = locs.fresh(kind);
    const records = (v: number): SchemaVersions => ({
      records: { ...CURRENT_VERSIONS.records, credentials: v },
      docs: CURRENT_VERSIONS.docs,
    });
    const seen: NewerDocument[] = [];
    const newer = await locs.open(loc, { schemaVersions: records(2) });
    const older = await locs.open(loc, { schemaVersions: records(1), onNewerDocument: (d) => seen.push(d) });
    const creds = (savedBy: string) => ({
      credentials: { siteIds: ['SIT1'], defaultSiteId: 'SIT1' },
      verifiedAt: '2026-11-01T00:00:00.000Z',
      savedBy,
    });
    await newer.credentials.put('T1', creds('U-new'));
    expect((await older.credentials.get('T1'))?.savedBy).toBe('U-new');
    await expect(older.credentials.put('T1', creds('U-old'))).rejects.toBeInstanceOf(StoreNewerDocumentError);
    expect((await newer.credentials.get('T1'))?.savedBy).toBe('U-new');
    expect(seen.map((d) => d.what)).toEqual(['Stored credentials of T1']);
    // Its own records it writes as before.
    await older.credentials.put('T2', creds('U-old'));
    expect((await newer.credentials.get('T2'))?.savedBy).toBe('U-old');
  });
});

describe('the version field', () => {
  it('is written first and read back without being seen by the code above the store', () => {
    const text = stampedJson({ b: 1, _v: 9, a: 'x' }, 3) as string;
    expect(text).toBe('{"_v":3,"b":1,"a":"x"}');
    expect(rawVersion(text)).toBe(3);
    expect(unstamp(JSON.parse(text))).toEqual({ value: { b: 1, a: 'x' }, version: 3 });
    // Written before versions existed: version 1.
    expect(unstamp({ a: 1 })).toEqual({ value: { a: 1 }, version: 1 });
    expect(rawVersion('{"a":1}')).toBe(1);
  });

  it('every document namespace the code uses has a version', () => {
    const src = join(import.meta.dirname, '../../src');
    const files: string[] = [];
    const walk = (dir: string) => {
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        if (e.isDirectory()) walk(join(dir, e.name));
        else if (e.name.endsWith('.ts')) files.push(join(dir, e.name));
      }
    };
    walk(src);
    const used = new Set<string>();
    for (const f of files) {
      for (const m of readFileSync(f, 'utf8').matchAll(/(?:_NS|NAMESPACE)\s*=\s*'([a-z0-9_-]+)'/g))
        used.add(m[1] as string);
    }
    expect(used.size).toBeGreaterThan(20);
    expect([...used].filter((ns) => !(ns in DOC_VERSIONS))).toEqual([]);
  });
});
