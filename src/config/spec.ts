/**
 * What a variable declaration is (`VariableSpec`: name, required, default, description, the zod
 * schema of its text, whether it is secret) and the parsers several topics of ./env/ share
 * (non-empty text, http(s) URL, whole number in a range, comma-separated list).
 */
import { z } from 'zod';

export interface VariableSpec {
  name: string;
  /** "yes", "no", or a condition in words ("in HTTP mode"). */
  required: string;
  default?: string;
  description: string;
  /** Parses the raw (trimmed, non-empty) string. */
  schema: z.ZodType<unknown>;
  /** Must never be echoed back in an error message. */
  secret?: boolean;
}

export const nonEmpty = z.string().min(1);
export const httpUrl = z
  .string()
  .refine((s) => /^https?:\/\/[^\s]+$/i.test(s) && URL.canParse(s), 'must be an http(s) URL');
export const intIn = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d+$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().int().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`));
export const commaList = (item: z.ZodType<string, string>) =>
  z
    .string()
    .transform((s) =>
      s
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean),
    )
    .pipe(z.array(item));
