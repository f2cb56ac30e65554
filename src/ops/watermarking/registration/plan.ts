/**
 * Bulk recipient registration, the planning half (pure functions, no I/O except the injected
 * `existing` lookup): parse the user's text or CSV, validate every entry with the API's rules,
 * drop duplicates (case-insensitive, spec rule 3), skip names already registered on the site, and
 * cut the rest into batches of at most 150 (the per-request limit). Nothing invalid ever reaches a
 * batch. Everything is linear in the number of lines (one Map lookup per entry).
 */
import type { NewRecipient, Recipient } from '../../../api/types.js';
import { checkRecipientDescription, checkRecipientName, LIMITS, nameKey } from '../../../api/validate.js';
import { readCsv } from '../../csv.js';

/** One recipient as the user wrote it, with the 1-based line it came from. */
export interface InputEntry {
  line: number;
  name: string;
  description?: string;
  /** The line as written (for messages about invalid input). */
  raw: string;
}

/** A parse-level problem (bad CSV syntax, too many columns). */
export interface InputError {
  line: number;
  raw: string;
  reasons: string[];
}

export interface ParsedInput {
  entries: InputEntry[];
  errors: InputError[];
}

/** A recipient that will be sent, with the line it came from (the line is never sent). */
export interface PlannedRecipient extends NewRecipient {
  line: number;
}

export interface AlreadyRegistered {
  line: number;
  name: string;
  dwmId: number;
  /** The name as it was originally registered (may differ in case from the input). */
  registeredAs: string;
}

export interface DuplicateInInput {
  line: number;
  name: string;
  /** Line of the first occurrence, which is the one kept. */
  firstLine: number;
}

export interface InvalidEntry {
  line: number;
  raw: string;
  reasons: string[];
}

export interface PlanCounts {
  /** Entries considered (parsed lines + parse errors). */
  total: number;
  toRegister: number;
  alreadyRegistered: number;
  duplicatesInInput: number;
  invalid: number;
  batches: number;
}

export interface RegistrationPlan {
  toRegister: PlannedRecipient[];
  alreadyRegistered: AlreadyRegistered[];
  duplicatesInInput: DuplicateInInput[];
  invalid: InvalidEntry[];
  batches: PlannedRecipient[][];
  counts: PlanCounts;
}

/** Looks up which names exist on the site; keys of the answer are `nameKey(name)`. */
export type ExistingLookup = (names: string[]) => Promise<Map<string, Recipient>>;

// ---------------------------------------------------------------------------------------------
// Limits for input typed into a modal
// ---------------------------------------------------------------------------------------------

/** Slack's plain_text_input max_length ceiling: the modal text field can hold at most this. */
export const MODAL_TEXT_LIMIT = 3000;

export const MODAL_TEXT_LIMIT_MESSAGE =
  `The list is longer than the ${MODAL_TEXT_LIMIT} characters a Slack text box holds. ` +
  'Upload the recipients as a CSV file instead (columns name,description; header optional) ' +
  'with the file input of the same form.';

/** null when the text fits in the modal field, otherwise the message pointing to the CSV upload. */
export function checkModalText(text: string): string | null {
  return text.length > MODAL_TEXT_LIMIT ? MODAL_TEXT_LIMIT_MESSAGE : null;
}

/**
 * Most recipients one registration run takes (67 requests of 150). Larger lists keep the stored
 * report small and a run short; split them into several files. A deployment may raise it.
 */
export const MAX_REGISTRATION_ENTRIES = 10_000;

/** null when the parsed input is within `max` entries, otherwise what to do. */
export function checkEntryCount(input: ParsedInput, max: number = MAX_REGISTRATION_ENTRIES): string | null {
  const n = input.entries.length + input.errors.length;
  return n > max
    ? `The list has ${n} recipients; one registration takes at most ${max}. Split it into files of ${max} lines or fewer.`
    : null;
}

// ---------------------------------------------------------------------------------------------
// Parsing
// ---------------------------------------------------------------------------------------------

/**
 * One recipient a line: `name` or `name, description`. The first comma splits; everything after
 * it is the description, which may itself contain commas (descriptions are free text up to 50
 * characters and names can never contain a comma, so this is unambiguous). Both parts are trimmed;
 * an empty description counts as none. Blank lines and lines starting with `#` are skipped. Line
 * numbers are 1-based and count every line, skipped ones included, so they match the user's text.
 */
export function parseRecipientLines(text: string): ParsedInput {
  const entries: InputEntry[] = [];
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const lines = body.split(/\r\n|\n|\r/);
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i] ?? '';
    const trimmed = raw.trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    const comma = trimmed.indexOf(',');
    const name = (comma < 0 ? trimmed : trimmed.slice(0, comma)).trim();
    const description = comma < 0 ? '' : trimmed.slice(comma + 1).trim();
    entries.push(description ? { line: i + 1, name, description, raw } : { line: i + 1, name, raw });
  }
  return { entries, errors: [] };
}

const NAME_HEADERS = new Set(['name', 'recipient', 'recipient name', 'recipient_name']);
const DESCRIPTION_HEADERS = new Set(['description', 'desc', 'recipient description']);

/**
 * A CSV of `name,description` (description optional). The header is optional and detected: the
 * first record is a header when its cells are all known column titles (name/recipient,
 * description) with a name column among them; columns may then come in any order. Consequence: a
 * recipient literally named "name" cannot be the first row of a headerless file with only a
 * "description" beside it; such a file needs the header row. A BOM, CRLF and quoted fields (with
 * commas, "" and newlines) work. Lines starting with `#` are comments. Trailing empty cells are
 * ignored (spreadsheets add them); other extra cells are an error for that line, since a
 * description with commas must be quoted in CSV.
 */
export function parseRecipientCsv(text: string): ParsedInput {
  const read = readCsv(text);
  if (!read.ok) {
    return { entries: [], errors: [{ line: read.error.line, raw: '', reasons: [read.error.message] }] };
  }
  const entries: InputEntry[] = [];
  const errors: InputError[] = [];
  let nameCol = 0;
  let descCol = 1;
  let width = 2;
  let first = true;
  for (const rec of read.records) {
    const cells = rec.cells.map((c) => c.trim());
    while (cells.length > 0 && cells[cells.length - 1] === '') cells.pop();
    const raw = rec.cells.join(',');
    if (cells.length === 0) continue;
    if ((cells[0] ?? '').startsWith('#')) continue;
    if (first) {
      first = false;
      const lower = cells.map((c) => c.toLowerCase());
      const isHeader =
        lower.some((c) => NAME_HEADERS.has(c)) &&
        lower.every((c) => NAME_HEADERS.has(c) || DESCRIPTION_HEADERS.has(c));
      if (isHeader) {
        nameCol = lower.findIndex((c) => NAME_HEADERS.has(c));
        const d = lower.findIndex((c) => DESCRIPTION_HEADERS.has(c));
        descCol = d;
        width = Math.max(nameCol, d) + 1;
        continue;
      }
    }
    if (cells.length > width) {
      errors.push({
        line: rec.line,
        raw,
        reasons: [
          `Line ${rec.line} has ${cells.length} columns; expected name,description. ` +
            'Put a description that contains commas in double quotes.',
        ],
      });
      continue;
    }
    const name = cells[nameCol] ?? '';
    const description = descCol >= 0 ? (cells[descCol] ?? '') : '';
    entries.push(description ? { line: rec.line, name, description, raw } : { line: rec.line, name, raw });
  }
  return { entries, errors };
}

/**
 * Choose the parser: `csv` for uploaded .csv files, `lines` for typed text. `auto` picks CSV when
 * the text contains a double quote or a header row, which the line format never needs.
 */
export function parseRecipientInput(text: string, format: 'lines' | 'csv' | 'auto' = 'auto'): ParsedInput {
  if (format === 'csv') return parseRecipientCsv(text);
  if (format === 'lines') return parseRecipientLines(text);
  const firstLine =
    text
      .replace(/^\uFEFF/, '')
      .split(/\r?\n/)
      .find((l) => l.trim() !== '' && !l.trim().startsWith('#')) ?? '';
  const looksLikeHeader = /^\s*"?(name|recipient)"?\s*,\s*"?(description|desc)"?\s*$/i.test(firstLine);
  return text.includes('"') || looksLikeHeader ? parseRecipientCsv(text) : parseRecipientLines(text);
}

// ---------------------------------------------------------------------------------------------
// Planning
// ---------------------------------------------------------------------------------------------

/** The rule findings for one entry (empty when it is valid). */
export function entryProblems(entry: { name: string; description?: string }): string[] {
  const reasons: string[] = [];
  const n = checkRecipientName(entry.name);
  if (n) reasons.push(n);
  if (entry.description !== undefined) {
    const d = checkRecipientDescription(entry.description);
    if (d) reasons.push(d);
  }
  return reasons;
}

export function chunk<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * Build the plan. `input` is the parser's result (or just its entries). Order of checks per entry:
 * invalid (rules of the spec) -> duplicate of an earlier valid line (case-insensitive; the first
 * is kept) -> already registered on the site -> to register. `existing` is called once, with the
 * distinct valid names.
 */
export async function planRegistration(
  input: ParsedInput | InputEntry[],
  existing: ExistingLookup,
  opts: { batchSize?: number } = {},
): Promise<RegistrationPlan> {
  const batchSize = Math.min(
    opts.batchSize ?? LIMITS.recipientsPerRegistration,
    LIMITS.recipientsPerRegistration,
  );
  const entries = Array.isArray(input) ? input : input.entries;
  const parseErrors = Array.isArray(input) ? [] : input.errors;

  const invalid: InvalidEntry[] = parseErrors.map((e) => ({ line: e.line, raw: e.raw, reasons: e.reasons }));
  const duplicatesInInput: DuplicateInInput[] = [];
  const firstSeen = new Map<string, InputEntry>();
  const unique: InputEntry[] = [];

  for (const entry of entries) {
    const reasons = entryProblems(entry);
    if (reasons.length > 0) {
      invalid.push({ line: entry.line, raw: entry.raw, reasons });
      continue;
    }
    const key = nameKey(entry.name);
    const first = firstSeen.get(key);
    if (first) {
      duplicatesInInput.push({ line: entry.line, name: entry.name, firstLine: first.line });
      continue;
    }
    firstSeen.set(key, entry);
    unique.push(entry);
  }

  const found = unique.length > 0 ? await existing(unique.map((e) => e.name)) : new Map<string, Recipient>();

  const alreadyRegistered: AlreadyRegistered[] = [];
  const toRegister: PlannedRecipient[] = [];
  for (const entry of unique) {
    const hit = found.get(nameKey(entry.name));
    if (hit) {
      alreadyRegistered.push({
        line: entry.line,
        name: entry.name,
        dwmId: hit.dwmId,
        registeredAs: hit.name,
      });
    } else {
      toRegister.push(
        entry.description !== undefined
          ? { line: entry.line, name: entry.name, description: entry.description }
          : { line: entry.line, name: entry.name },
      );
    }
  }
  invalid.sort((a, b) => a.line - b.line);
  const batches = chunk(toRegister, batchSize);
  return {
    toRegister,
    alreadyRegistered,
    duplicatesInInput,
    invalid,
    batches,
    counts: {
      total: entries.length + parseErrors.length,
      toRegister: toRegister.length,
      alreadyRegistered: alreadyRegistered.length,
      duplicatesInInput: duplicatesInInput.length,
      invalid: invalid.length,
      batches: batches.length,
    },
  };
}

/** What is actually sent for a planned recipient (the line number stays local). */
export function toNewRecipient(p: PlannedRecipient): NewRecipient {
  return p.description !== undefined ? { name: p.name, description: p.description } : { name: p.name };
}
