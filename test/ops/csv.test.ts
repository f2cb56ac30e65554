import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { guardCell, readCsv, unguardCell, writeCsv } from '../../src/ops/csv.js';

describe('guardCell', () => {
  it.each([
    ['=SUM(A1)', "'=SUM(A1)"],
    ['+1', "'+1"],
    ['-team', "'-team"],
    ['@cmd', "'@cmd"],
    ['\tx', "'\tx"],
    ['\rx', "'\rx"],
    ["'=x", "''=x"],
    ['plain', 'plain'],
    ["'quoted", "'quoted"],
    ['a=b', 'a=b'],
  ])('%j -> %j', (input, out) => {
    expect(guardCell(input)).toBe(out);
    expect(unguardCell(out)).toBe(input);
  });

  it('writes numbers and empties', () => {
    expect(guardCell(42)).toBe('42');
    expect(guardCell(-5)).toBe("'-5");
    expect(guardCell(undefined)).toBe('');
    expect(guardCell(null)).toBe('');
  });
});

describe('writeCsv', () => {
  it('writes a header, CRLF rows, quotes where needed and guards formulas', () => {
    const text = writeCsv<{ a: string; b: number }>(
      [
        { header: 'a', value: (r) => r.a },
        { header: 'b', value: (r) => r.b },
      ],
      [
        { a: 'x, y', b: 1 },
        { a: '=HYPERLINK("http://evil")', b: 2 },
        { a: 'say "hi"', b: 3 },
      ],
    );
    expect(text).toBe('a,b\r\n"x, y",1\r\n"\'=HYPERLINK(""http://evil"")",2\r\n"say ""hi""",3\r\n');
  });
});

describe('readCsv', () => {
  it('handles BOM, CRLF, quoted commas/newlines, blank lines, and start line numbers', () => {
    const r = readCsv('\uFEFFname,description\r\n\r\nalice,"a, b"\r\n"bob","multi\nline"\r\ncarl\r\n');
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.records).toEqual([
      { line: 1, cells: ['name', 'description'] },
      { line: 3, cells: ['alice', 'a, b'] },
      { line: 4, cells: ['bob', 'multi\nline'] },
      { line: 6, cells: ['carl'] },
    ]);
  });

  it('reports an unclosed quote with a line number', () => {
    const r = readCsv('a,b\n"x,y\nz');
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.line).toBeGreaterThanOrEqual(2);
    expect(r.error.message).toMatch(/^Line \d+: a quoted field is never closed/);
  });

  it('round-trips any table of strings (write -> read)', () => {
    const cell = fc.string({
      unit: fc.constantFrom('a', 'Z', '0', ',', '"', '\n', '\r\n', ' ', '=', '+', '-', '@', "'", '\t', 'é'),
    });
    fc.assert(
      fc.property(fc.array(fc.array(cell, { minLength: 2, maxLength: 2 }), { maxLength: 8 }), (rows) => {
        // A row of only empty cells is a blank line in CSV; keep rows non-blank.
        const table = rows.map(([a, b]) => [`r${a}`, b ?? '']);
        const text = writeCsv<string[]>(
          [
            { header: 'a', value: (r) => r[0] },
            { header: 'b', value: (r) => r[1] },
          ],
          table,
        );
        const back = readCsv(text);
        expect(back.ok).toBe(true);
        if (!back.ok) return;
        expect(back.records.map((r) => r.cells)).toEqual([['a', 'b'], ...table]);
      }),
      { numRuns: 300 },
    );
  });
});
