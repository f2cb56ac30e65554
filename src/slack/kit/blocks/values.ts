/**
 * Button values and modal private_metadata of every feature: compact JSON (the state a button or
 * a form carries: workspace, site, ids, page, filters; never a secret), checked with zod when
 * read back. A value that does not parse (tampered, or from an older version) is refused rather
 * than guessed at. Pure.
 */
import type { z } from 'zod';
import { LIMITS } from './blocks.js';

/** JSON for a button value; throws when over Slack's 2000 characters (a bug: values are small). */
export function encodeValue(v: object): string {
  const s = JSON.stringify(v);
  if (s.length > LIMITS.buttonValue) throw new Error('button value over 2000 characters');
  return s;
}

/** Parse a button value (or a modal's metadata) with its schema; undefined when it is not one of ours. */
export function decodeValue<T>(schema: z.ZodType<T>, raw: string | undefined): T | undefined {
  if (!raw) return undefined;
  try {
    const r = schema.safeParse(JSON.parse(raw));
    return r.success ? r.data : undefined;
  } catch {
    return undefined;
  }
}
