/**
 * How every repository reads what it stored: the versions it is told about (`VersionContext`: what
 * this code knows, whom to tell of a newer record), a record's version taken off, JSON parsed and
 * the shape checked with zod. A `StoreDataError` names paths and codes only, never a stored value
 * (it may be a secret).
 */
import { z } from 'zod';
import { StoreDataError } from '../errors.js';
import { type NewerDocument, type RecordKind, type SchemaVersions, unstamp } from '../versions.js';

/** What every repository is told about versions: what this code knows, and whom to tell. */
export interface VersionContext {
  versions: SchemaVersions;
  onNewer: (d: NewerDocument) => void;
}

/** A parsed record of `kind`, without its version; a newer one is reported (and read as it is). */
export function readRecord(ctx: VersionContext, kind: RecordKind, parsed: unknown, what: string): unknown {
  const { value, version } = unstamp(parsed);
  const known = ctx.versions.records[kind];
  if (version > known) ctx.onNewer({ what, version, known });
  return value;
}

function describeZodIssues(e: unknown): string {
  // Paths and codes only: a message must never echo a stored (possibly secret) value.
  if (e instanceof z.ZodError) {
    return e.issues
      .slice(0, 5)
      .map((i) => `${i.path.join('.') || '(root)'}: ${i.code}`)
      .join('; ');
  }
  return 'unreadable';
}

export function parseWith<T>(schema: { parse(v: unknown): T }, value: unknown, what: string): T {
  try {
    return schema.parse(value);
  } catch (e) {
    throw new StoreDataError(`${what} does not have the expected shape (${describeZodIssues(e)})`, {
      cause: e,
    });
  }
}

export function parseJson(raw: string, what: string): unknown {
  try {
    return JSON.parse(raw) as unknown;
  } catch (e) {
    throw new StoreDataError(`${what} is not valid JSON`, { cause: e });
  }
}
