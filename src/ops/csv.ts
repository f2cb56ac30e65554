/**
 * CSV writing (csv-stringify) and reading (csv-parse) for exports and uploads.
 *
 * Formula-injection guard (OWASP "CSV injection"): a spreadsheet treats a cell that starts with
 * `=`, `+`, `-`, `@`, TAB or CR as a formula. Every cell the writer emits that starts with one of
 * those characters (optionally after a run of apostrophes) gets one extra leading apostrophe, so
 * Excel/Sheets/LibreOffice show it as text. Recipient names may legally start with `-`, so
 * `-team` is written as `'-team`. The reader undoes exactly that (one apostrophe is removed from a
 * cell matching `'+` followed by a trigger character), so write -> read is lossless, and a file a
 * user saved from a spreadsheet with a leading text apostrophe reads as the intended value.
 */
import { CsvError, parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';

/** Characters that make a spreadsheet evaluate a cell. */
const FORMULA_TRIGGER = /^'*[=+\-@\t\r]/;
const GUARDED = /^'+[=+\-@\t\r]/;

/** The text of a cell as written: the value as a string, guarded against formula evaluation. */
export function guardCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  const s = typeof value === 'string' ? value : String(value);
  return FORMULA_TRIGGER.test(s) ? `'${s}` : s;
}

/** Inverse of guardCell for a cell read back. */
export function unguardCell(cell: string): string {
  return GUARDED.test(cell) ? cell.slice(1) : cell;
}

export interface CsvColumn<T> {
  header: string;
  value: (row: T) => unknown;
}

/** Write rows as CSV text (header first, CRLF line ends as RFC 4180 says, every cell guarded). */
export function writeCsv<T>(columns: CsvColumn<T>[], rows: Iterable<T>): string {
  const records: string[][] = [columns.map((c) => guardCell(c.header))];
  for (const row of rows) records.push(columns.map((c) => guardCell(c.value(row))));
  return stringify(records, { record_delimiter: 'windows', quoted_match: /^\s|\s$/ });
}

/** One record read from CSV text with the 1-based line it starts on. */
export interface CsvRecord {
  line: number;
  cells: string[];
}

export interface CsvReadError {
  line: number;
  message: string;
}

export type CsvReadResult = { ok: true; records: CsvRecord[] } | { ok: false; error: CsvReadError };

/**
 * Read CSV text: a UTF-8 BOM is dropped, CRLF/LF both work, quoted fields may hold commas, quotes
 * ("") and newlines. Blank lines are skipped (records of one empty cell). Cells are not trimmed
 * here; callers decide. The formula guard of `writeCsv` is undone unless `unguard` is false.
 */
export function readCsv(text: string, opts: { unguard?: boolean } = {}): CsvReadResult {
  const unguard = opts.unguard ?? true;
  let parsed: Array<{ record: string[]; raw: string; info: { lines: number } }>;
  try {
    parsed = parse(text, {
      bom: true,
      info: true,
      raw: true,
      relax_column_count: true,
      skip_empty_lines: false,
    }) as unknown as Array<{ record: string[]; raw: string; info: { lines: number } }>;
  } catch (e) {
    if (e instanceof CsvError) {
      const lines = typeof e.lines === 'number' ? e.lines : 0;
      return { ok: false, error: { line: lines, message: describeCsvError(e, lines) } };
    }
    throw e;
  }
  const records: CsvRecord[] = [];
  for (const r of parsed) {
    // info.lines is the line the record ends on; a quoted newline inside the record moves it on.
    const inner = countNewlines(r.raw.replace(/[\r\n]+$/, ''));
    const line = r.info.lines - inner;
    if (r.record.length === 1 && r.record[0]?.trim() === '') continue;
    records.push({ line, cells: unguard ? r.record.map(unguardCell) : r.record });
  }
  return { ok: true, records };
}

function countNewlines(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) === 10) n++;
  return n;
}

function describeCsvError(e: CsvError, line: number): string {
  switch (e.code) {
    case 'CSV_QUOTE_NOT_CLOSED':
      return `Line ${line}: a quoted field is never closed. Check for a missing closing quote (").`;
    case 'CSV_INVALID_CLOSING_QUOTE':
    case 'CSV_NON_TRIMABLE_CHAR_AFTER_CLOSING_QUOTE':
      return `Line ${line}: text follows a closing quote. Inside a quoted field write a quote as "".`;
    default:
      return `Line ${line}: the file is not valid CSV (${e.code}).`;
  }
}
