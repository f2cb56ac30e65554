/**
 * The SQLite store commits through a write-ahead log by default (SQLITE_JOURNAL=wal: no fsync per
 * commit, nothing committed lost when the process is killed) and through the fsynced rollback
 * journal when asked (SQLITE_JOURNAL=delete). The mode is read back from the file by a separate
 * connection, as an operator would with the sqlite3 shell.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sqlite3 from 'sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { createStore, type SqliteJournal } from '../../src/store/index.js';

const KEY = randomBytes(32).toString('base64');
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function journalOf(file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const db = new sqlite3.Database(file, sqlite3.OPEN_READONLY, (err) => {
      if (err) return reject(err);
      db.get('PRAGMA journal_mode', (e, row: { journal_mode: string } | undefined) => {
        db.close();
        if (e) reject(e);
        else resolve(String(row?.journal_mode));
      });
    });
  });
}

async function openAndWrite(journal?: SqliteJournal) {
  const dir = mkdtempSync(join(tmpdir(), 'store-journal-'));
  dirs.push(dir);
  const file = join(dir, 'bot.sqlite');
  const store = await createStore({ url: `sqlite://${file}`, encryptionKey: KEY, sqliteJournal: journal });
  await store.docs<{ n: number }>('journal-test').put('T1', 'a', { n: 1 });
  await store.close();
  const reopened = await createStore({ url: `sqlite://${file}`, encryptionKey: KEY, sqliteJournal: journal });
  const doc = await reopened.docs<{ n: number }>('journal-test').get('T1', 'a');
  await reopened.close();
  return { file, doc };
}

describe('SQLite store journal', () => {
  it('uses the write-ahead log by default, and keeps what was written', async () => {
    const { file, doc } = await openAndWrite();
    expect(doc).toEqual({ n: 1 });
    expect(await journalOf(file)).toBe('wal');
  });

  it('uses the fsynced rollback journal with SQLITE_JOURNAL=delete, also on a file that was in WAL', async () => {
    const { file, doc } = await openAndWrite('delete');
    expect(doc).toEqual({ n: 1 });
    expect(await journalOf(file)).toBe('delete');
    const wal = await createStore({ url: `sqlite://${file}`, encryptionKey: KEY });
    await wal.close();
    expect(await journalOf(file)).toBe('wal');
    const back = await createStore({ url: `sqlite://${file}`, encryptionKey: KEY, sqliteJournal: 'delete' });
    await back.close();
    expect(await journalOf(file)).toBe('delete');
  });
});
