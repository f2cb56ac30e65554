import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Recipient } from '../../src/api/types.js';
import { checkRecipientName, describeChar, nameKey } from '../../src/api/validate.js';
import { writeCsv } from '../../src/ops/csv.js';
import {
  checkEntryCount,
  checkModalText,
  MODAL_TEXT_LIMIT,
  MODAL_TEXT_LIMIT_MESSAGE,
  parseRecipientCsv,
  parseRecipientInput,
  parseRecipientLines,
  planRegistration,
  toNewRecipient,
} from '../../src/ops/watermarking/registration/plan.js';

const NAME_CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-'.split('');
const validName = fc.string({ unit: fc.constantFrom(...NAME_CHARS), minLength: 1, maxLength: 128 });

function rec(dwmId: number, name: string): Recipient {
  return { dwmId, name, description: '', regTime: { raw: '2026-01-01T00:00:00', epochMs: 0 } };
}

const none = async () => new Map<string, Recipient>();

describe('parseRecipientLines', () => {
  it('splits on the first comma, trims, skips blanks and comments, keeps line numbers', () => {
    const text =
      '# header comment\n alice \n\nbob, the builder, Inc.\r\ncarol,\n   # indented comment\ndave ,  d  ';
    expect(parseRecipientLines(text).entries).toEqual([
      { line: 2, name: 'alice', raw: ' alice ' },
      { line: 4, name: 'bob', description: 'the builder, Inc.', raw: 'bob, the builder, Inc.' },
      { line: 5, name: 'carol', raw: 'carol,' },
      { line: 7, name: 'dave', description: 'd', raw: 'dave ,  d  ' },
    ]);
  });

  it('keeps a line with an empty name so the planner can report it', () => {
    expect(parseRecipientLines(', only description').entries).toEqual([
      { line: 1, name: '', description: 'only description', raw: ', only description' },
    ]);
  });

  it('property: every generated entry comes back with its line, name and description', () => {
    const desc = fc.string({ unit: fc.constantFrom('a', 'b', ' ', ',', '.', '#'), maxLength: 20 });
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.record({ name: validName, desc }), fc.constant(null)), { maxLength: 30 }),
        (rows) => {
          const lines = rows.map((r) => (r === null ? '' : r.desc.trim() ? `${r.name}, ${r.desc}` : r.name));
          const parsed = parseRecipientLines(lines.join('\n'));
          const expected = rows.flatMap((r, i) =>
            r === null ? [] : [{ line: i + 1, name: r.name, description: r.desc.trim() || undefined }],
          );
          expect(
            parsed.entries.map((e) => ({ line: e.line, name: e.name, description: e.description })),
          ).toEqual(expected);
        },
      ),
    );
  });
});

describe('parseRecipientCsv', () => {
  it('detects a header, reads BOM/CRLF/quoted fields with commas', () => {
    const p = parseRecipientCsv('\uFEFFName,Description\r\nalice,"Alice, Inc."\r\n\r\nbob\r\n');
    expect(p.errors).toEqual([]);
    expect(p.entries.map(({ line, name, description }) => ({ line, name, description }))).toEqual([
      { line: 2, name: 'alice', description: 'Alice, Inc.' },
      { line: 4, name: 'bob', description: undefined },
    ]);
  });

  it('works without a header and with columns in another order', () => {
    expect(parseRecipientCsv('alice,x\nbob,y').entries.map((e) => e.name)).toEqual(['alice', 'bob']);
    const p = parseRecipientCsv('description,name\nfirst,alice');
    expect(p.entries.map((e) => [e.name, e.description])).toEqual([['alice', 'first']]);
  });

  it('ignores trailing empty cells but reports extra columns with the line', () => {
    const p = parseRecipientCsv('alice,x,,\nbob,y,z\n');
    expect(p.entries.map((e) => e.name)).toEqual(['alice']);
    expect(p.errors).toHaveLength(1);
    expect(p.errors[0]?.line).toBe(2);
    expect(p.errors[0]?.reasons[0]).toMatch(/3 columns.*double quotes/);
  });

  it('reports broken CSV with a line number', () => {
    const p = parseRecipientCsv('alice\nbob,"unclosed\n');
    expect(p.entries).toEqual([]);
    expect(p.errors[0]?.reasons[0]).toMatch(/^Line \d+: a quoted field is never closed/);
  });

  it('undoes the formula guard of our own CSV export (names may start with "-")', () => {
    const text = writeCsv<{ n: string }>([{ header: 'name', value: (r) => r.n }], [{ n: '-team' }]);
    expect(parseRecipientCsv(text).entries.map((e) => e.name)).toEqual(['-team']);
  });

  it('property: a CSV written from entries reads back as the same entries', () => {
    const desc = fc.string({ unit: fc.constantFrom('a', 'Z', ',', '"', ' ', 'é', '\n'), maxLength: 50 });
    fc.assert(
      fc.property(fc.array(fc.record({ name: validName, description: desc }), { maxLength: 20 }), (rows) => {
        const text = writeCsv<{ name: string; description: string }>(
          [
            { header: 'name', value: (r) => r.name },
            { header: 'description', value: (r) => r.description },
          ],
          rows,
        );
        const parsed = parseRecipientCsv(text);
        expect(parsed.errors).toEqual([]);
        expect(parsed.entries.map((e) => [e.name, e.description ?? ''])).toEqual(
          rows.map((r) => [r.name, r.description.trim()]),
        );
      }),
    );
  });
});

describe('parseRecipientInput', () => {
  it('auto-detects CSV from quotes or a header', () => {
    expect(parseRecipientInput('"a",b').entries[0]?.name).toBe('a');
    expect(parseRecipientInput('name,description\nx,y').entries.map((e) => e.name)).toEqual(['x']);
    expect(parseRecipientInput('x, a, b').entries[0]?.description).toBe('a, b');
  });
});

describe('name rules (src/api/validate.ts through the planner)', () => {
  it('property: any valid name passes', () => {
    fc.assert(fc.property(validName, (n) => checkRecipientName(n) === null));
  });

  it('property: a name with a character outside [A-Za-z0-9._-] fails and the message names it', () => {
    const bad = fc
      .string({ unit: 'binary', minLength: 1, maxLength: 1 })
      .filter((c) => !/[A-Za-z0-9._-]/.test(c));
    const shortName = fc.string({ unit: fc.constantFrom(...NAME_CHARS), maxLength: 100 });
    fc.assert(
      fc.property(shortName, bad, fc.nat(), (name, ch, pos) => {
        const at = pos % (name.length + 1);
        const msg = checkRecipientName(name.slice(0, at) + ch + name.slice(at));
        expect(msg).not.toBeNull();
        expect(msg).toContain(describeChar(ch));
      }),
      { numRuns: 500 },
    );
  });

  it('names a space, a control character and a non-ASCII letter readably', () => {
    expect(checkRecipientName('a b')).toMatch(/space/);
    expect(checkRecipientName('a\u200fb')).toMatch(/U\+200F/);
    expect(checkRecipientName('café')).toMatch(/"é"/);
  });
});

describe('planRegistration', () => {
  it('classifies invalid, duplicates, existing and new entries; nothing invalid is batched', async () => {
    const input = parseRecipientLines(
      ['alice, first', 'Alice', 'bad name', 'x'.repeat(129), `ok, ${'d'.repeat(51)}`, 'Bob', 'carol'].join(
        '\n',
      ),
    );
    const asked: string[][] = [];
    const plan = await planRegistration(input, async (names) => {
      asked.push(names);
      return new Map([[nameKey('bob'), rec(7, 'bob')]]);
    });
    expect(asked).toEqual([['alice', 'Bob', 'carol']]);
    expect(plan.toRegister).toEqual([
      { line: 1, name: 'alice', description: 'first' },
      { line: 7, name: 'carol' },
    ]);
    expect(plan.duplicatesInInput).toEqual([{ line: 2, name: 'Alice', firstLine: 1 }]);
    expect(plan.alreadyRegistered).toEqual([{ line: 6, name: 'Bob', dwmId: 7, registeredAs: 'bob' }]);
    expect(plan.invalid.map((i) => i.line)).toEqual([3, 4, 5]);
    expect(plan.invalid[0]?.reasons[0]).toMatch(/space/);
    expect(plan.invalid[1]?.reasons[0]).toMatch(/129 characters/);
    expect(plan.invalid[2]?.reasons[0]).toMatch(/description is 51/);
    expect(plan.batches).toEqual([plan.toRegister]);
    expect(plan.counts).toEqual({
      total: 7,
      toRegister: 2,
      alreadyRegistered: 1,
      duplicatesInInput: 1,
      invalid: 3,
      batches: 1,
    });
  });

  it('carries parse errors into invalid', async () => {
    const plan = await planRegistration(parseRecipientCsv('a,b,c\nok'), none);
    expect(plan.invalid.map((i) => i.line)).toEqual([1]);
    expect(plan.toRegister.map((e) => e.name)).toEqual(['ok']);
  });

  it('does not call the look-up when nothing is valid', async () => {
    let called = false;
    await planRegistration(parseRecipientLines('bad name'), async () => {
      called = true;
      return new Map();
    });
    expect(called).toBe(false);
  });

  it('plans 10,000 lines into ceil(n/150) batches with correct counts', async () => {
    const lines: string[] = [];
    for (let i = 0; i < 10_000; i++) lines.push(`user-${i}, row ${i}`);
    lines.push('user-5', 'bad name!', 'USER-9999');
    const existing = new Map([[nameKey('user-42'), rec(42, 'user-42')]]);
    const plan = await planRegistration(parseRecipientLines(lines.join('\n')), async () => existing);
    expect(plan.counts.total).toBe(10_003);
    expect(plan.counts.duplicatesInInput).toBe(2);
    expect(plan.counts.invalid).toBe(1);
    expect(plan.counts.alreadyRegistered).toBe(1);
    expect(plan.counts.toRegister).toBe(9_999);
    expect(plan.batches).toHaveLength(Math.ceil(9_999 / 150));
    expect(plan.batches).toHaveLength(67);
    expect(plan.batches.every((b) => b.length <= 150)).toBe(true);
    expect(plan.batches.flat()).toEqual(plan.toRegister);
    expect(new Set(plan.toRegister.map((e) => nameKey(e.name))).size).toBe(9_999);
  });

  it('property: batches hold only valid, distinct, unregistered names and account for every entry', async () => {
    const name = fc.oneof(validName, fc.constantFrom('bad name', '', 'é', 'Dup', 'dup', 'DUP'));
    await fc.assert(
      fc.asyncProperty(
        fc.array(name, { maxLength: 400 }),
        fc.array(validName, { maxLength: 20 }),
        async (names, ex) => {
          const existing = new Map(ex.map((n, i) => [nameKey(n), rec(i + 1, n)]));
          const entries = names.map((n, i) => ({ line: i + 1, name: n, raw: n }));
          const plan = await planRegistration(entries, async () => existing);
          const batched = plan.batches.flat();
          for (const e of batched) {
            expect(checkRecipientName(e.name)).toBeNull();
            expect(existing.has(nameKey(e.name))).toBe(false);
          }
          expect(new Set(batched.map((e) => nameKey(e.name))).size).toBe(batched.length);
          expect(plan.batches.every((b) => b.length >= 1 && b.length <= 150)).toBe(true);
          const c = plan.counts;
          expect(c.toRegister + c.alreadyRegistered + c.duplicatesInInput + c.invalid).toBe(names.length);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('toNewRecipient drops the line number', () => {
    expect(toNewRecipient({ line: 3, name: 'a', description: 'b' })).toEqual({ name: 'a', description: 'b' });
    expect(toNewRecipient({ line: 3, name: 'a' })).toEqual({ name: 'a' });
  });
});

describe('checkEntryCount', () => {
  it('accepts up to the maximum and explains how to split beyond it', () => {
    const lines = (n: number) => Array.from({ length: n }, (_, i) => `n${i}`).join('\n');
    expect(checkEntryCount(parseRecipientLines(lines(10_000)))).toBeNull();
    expect(checkEntryCount(parseRecipientLines(lines(10_001)))).toMatch(
      /10001 recipients.*at most 10000.*Split/,
    );
    expect(checkEntryCount(parseRecipientLines(lines(3)), 2)).not.toBeNull();
  });
});

describe('modal text limit', () => {
  it('accepts up to the limit and points to the CSV upload beyond', () => {
    expect(MODAL_TEXT_LIMIT).toBe(3000);
    expect(checkModalText('a'.repeat(3000))).toBeNull();
    expect(checkModalText('a'.repeat(3001))).toBe(MODAL_TEXT_LIMIT_MESSAGE);
    expect(MODAL_TEXT_LIMIT_MESSAGE).toMatch(/CSV file/);
  });
});
