/**
 * Secret settings given as files (NAME_FILE, as Docker and Kubernetes mount secrets):
 * `secretFromFile` reads one, `settingFromEnv` is one setting as the process sees it (for the
 * tools). NAME always wins over NAME_FILE.
 */
import { readFileSync } from 'node:fs';
import type { ConfigIssue, Env } from './types.js';
import { SECRET_VARIABLES } from './variables.js';

/**
 * NAME_FILE for a secret setting (Docker and Kubernetes secrets are files): the file's text,
 * without surrounding white space (the trailing newline editors add). Only when NAME itself is
 * unset or empty (NAME wins). Throws when the file cannot be read or is empty; the message names
 * the variable and the path, never the contents.
 */
export function secretFromFile(env: Env, name: string): string | undefined {
  const path = env[`${name}_FILE`]?.trim();
  if (!path || env[name]?.trim()) return undefined;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new Error(
      `cannot read ${path} (${(e as NodeJS.ErrnoException).code ?? 'error'}); it should hold ${name}.`,
    );
  }
  const value = text.trim();
  if (!value) throw new Error(`${path} is empty; it should hold ${name}.`);
  return value;
}

/** One setting as the process sees it: NAME, else NAME_FILE for a secret one (tools use this). */
export function settingFromEnv(env: Env, name: string): string | undefined {
  const s = env[name]?.trim();
  if (s) return s;
  return SECRET_VARIABLES.includes(name) ? secretFromFile(env, name) : undefined;
}

/**
 * The NAME_FILE values of every secret setting of `env` (undefined where NAME is set or no file is
 * named), and an issue (on NAME_FILE) for each file that cannot be read or is empty.
 */
export function secretFilesOf(env: Env): { values: Map<string, string | undefined>; issues: ConfigIssue[] } {
  const values = new Map<string, string | undefined>();
  const issues: ConfigIssue[] = [];
  for (const name of SECRET_VARIABLES) {
    try {
      values.set(name, secretFromFile(env, name));
    } catch (e) {
      issues.push({ variable: `${name}_FILE`, message: (e as Error).message });
    }
  }
  return { values, issues };
}
