/**
 * The stored entry format of the SQLite and Redis backends (src/store/keyv-format.ts) is keyv's
 * own: the same text as keyv's default serializer for every entry this store writes, read back
 * the same way, so a rollback to a release that still used keyv's serializer reads what this one
 * wrote, and this one reads what the older release wrote.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import KeyvSqlite from '@keyv/sqlite';
import fc from 'fast-check';
import { Keyv } from 'keyv';
import { afterEach, describe, expect, it } from 'vitest';
import { createStore, type Store } from '../../src/store/index.js';
import { deserializeEntry, serializeEntry } from '../../src/store/keyv-format.js';

/** keyv's default serializer and deserializer (what earlier releases stored with). */
const reference = new Keyv();
const keyvSerialize = reference.serialize as (d: unknown) => string;
const keyvDeserialize = reference.deserialize as (s: string) => unknown;

const samples = [
  '',
  '{"a":1,"b":[true,null,"x"]}',
  '["U1","U2"]',
  'eyJhbGciOiJkaXIiLCJlbmMiOiJBMjU2R0NNIn0..abc.def.ghi',
  ':starts with a colon',
  '::two colons',
  ':base64:aGVsbG8=',
  'quotes " and \\ backslashes \n newlines \t tabs \u0000 nul',
  'unicode: é 日本 🎬 \u2028 \u2029 \u202e',
];
const expiries = [undefined, null, 0, 1_764_000_000_000, 1.5];

describe('stored entry format', () => {
  it('writes the same text as keyv’s default serializer', () => {
    for (const value of samples) {
      for (const expires of expiries) {
        const entry = expires === undefined ? { value } : { value, expires };
        expect(serializeEntry(entry)).toBe(keyvSerialize(entry));
      }
    }
  });

  it('reads what keyv’s default serializer wrote, as keyv’s deserializer reads it', () => {
    for (const value of samples) {
      for (const expires of expiries) {
        const text = keyvSerialize(expires === undefined ? { value } : { value, expires });
        expect(deserializeEntry(text)).toEqual(keyvDeserialize(text));
      }
    }
  });

  it('agrees with keyv for any string value and expiry (property)', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary' }),
        fc.option(fc.integer({ min: 0, max: 2 ** 45 }), { nil: undefined }),
        (value, expires) => {
          const entry = expires === undefined ? { value } : { value, expires };
          const text = serializeEntry(entry);
          expect(text).toBe(keyvSerialize(entry));
          expect(deserializeEntry(text)).toEqual(keyvDeserialize(text));
          expect(deserializeEntry(text)?.value).toBe(value);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('refuses a value that is not a string (the store only writes strings)', () => {
    expect(() => serializeEntry({ value: { a: 1 } })).toThrow(TypeError);
    expect(() => serializeEntry({ value: undefined })).toThrow(/expected a string value/);
  });

  it('reads no entry from text that is not an object', () => {
    expect(deserializeEntry('"just a string"')).toBeUndefined();
    expect(deserializeEntry('[1,2]')).toBeUndefined();
    expect(deserializeEntry('null')).toBeUndefined();
  });
});

describe('a SQLite file shared with a release that used keyv’s serializer', () => {
  let dir: string | undefined;
  let store: Store | undefined;
  afterEach(async () => {
    await store?.close();
    store = undefined;
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('reads the older release’s documents and writes ones it can read', async () => {
    dir = mkdtempSync(join(tmpdir(), 'keyv-format-'));
    const file = join(dir, 'store.sqlite');
    const encryptionKey = randomBytes(32).toString('base64');
    // The older release: keyv with its default serializer on the same file and key layout.
    const older = new Keyv<string>({
      store: new KeyvSqlite({ uri: `sqlite://${file}` }),
      useKeyPrefix: false,
      namespace: undefined,
    });
    const key = (id: string) => `compat:docs.notes:T1:${id}`;
    await older.set(key('old'), JSON.stringify({ text: ':colon "quoted" 🎬' }));
    await older.set(key('ttl'), JSON.stringify({ text: 'expires later' }), 60_000);

    store = await createStore({ url: `sqlite://${file}`, encryptionKey, namespace: 'compat' });
    const docs = store.docs<{ text: string }>('notes');
    expect(await docs.get('T1', 'old')).toEqual({ text: ':colon "quoted" 🎬' });
    expect(await docs.get('T1', 'ttl')).toEqual({ text: 'expires later' });

    await docs.put('T1', 'new', { text: ':written by this release' });
    await docs.put('T1', 'short', { text: 'with a ttl' }, 60_000);
    // The document carries its schema version first (an older release's schema ignores the field).
    expect(await older.get(key('new'))).toBe(JSON.stringify({ _v: 1, text: ':written by this release' }));
    expect(await older.get(key('short'))).toBe(JSON.stringify({ _v: 1, text: 'with a ttl' }));
    await older.disconnect();
  });
});
