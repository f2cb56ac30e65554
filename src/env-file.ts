/**
 * `.env` support for `npm start` and `node dist/src/main.js`: the file in the working directory is
 * read with Node's own dotenv parser (`util.parseEnv`, Node >= 20.12: no dependency) and its
 * variables are added to the environment. A variable already set in the environment wins over the
 * file (the same rule as `node --env-file` and Docker Compose's `env_file`), so a deployment can
 * override one value without editing the file. No `.env` file is not an error: the container image
 * has none and gets its settings from the orchestrator.
 *
 * Syntax (Node's parser): `NAME=value` lines, `#` comments, optional `export `, values in single,
 * double or back quotes (double quotes expand `\n`). See .env.example for every setting.
 *
 * Node's parser ends an unquoted value at `#` (`KEY=ab#cd` gives `ab`), where Docker Compose keeps
 * `ab#cd` and `docker run --env-file` keeps quotes literally: the same file is read three ways
 * (docs/configuration.md). A value that looks cut that way is reported (`cutAtHash`, names only,
 * never values: they may be secrets) so `main` can warn: quote it with single quotes.
 *
 * A file saved with a UTF-8 byte-order mark (Windows editors) would otherwise lose its first
 * setting: Node's parser reads the name as "\uFEFFMETRICS_TOKEN", which no one asks for. The mark
 * is dropped before parsing. Names that are not settings (a typo like METRIC_TOKEN) are reported
 * by `main` (config.ts `unknownSettings`), never silently ignored.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseEnv } from 'node:util';

export interface EnvFileResult {
  /** Absolute path of the file that was read, when one was found. */
  path?: string;
  /** Names taken from the file (not already set in the environment). */
  loaded: string[];
  /** Names in the file that the environment already set (the environment wins). */
  overridden: string[];
  /** Names whose unquoted value has a `#` the parser took as a comment (the value was cut). */
  cutAtHash: string[];
}

/**
 * Names of unquoted values with a `#` after the first character: Node's parser cut them there.
 * A value that is only a comment (`KEY= # note`) or that starts with a quote is not reported.
 */
export function valuesCutAtHash(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split(/\r?\n/)) {
    const m = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*=[ \t]*(.*)$/.exec(line);
    if (!m) continue;
    const raw = m[2]!;
    if (!raw || /^['"`#]/.test(raw)) continue;
    if (raw.includes('#')) out.push(m[1]!);
  }
  return out;
}

/**
 * Reads `file` (default `.env` in the working directory) into `env` without overriding what is
 * already set. Throws only when the file exists but cannot be read (not for a missing file).
 */
export function loadEnvFile(
  env: NodeJS.ProcessEnv = process.env,
  file: string = resolve(process.cwd(), '.env'),
): EnvFileResult {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT')
      return { loaded: [], overridden: [], cutAtHash: [] };
    throw new Error(`cannot read ${file}: ${(err as Error).message}`);
  }
  // A leading byte-order mark is not part of the first name.
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const result: EnvFileResult = { path: file, loaded: [], overridden: [], cutAtHash: valuesCutAtHash(text) };
  for (const [name, value] of Object.entries(parseEnv(text))) {
    if (env[name] !== undefined) {
      result.overridden.push(name);
      continue;
    }
    env[name] = value;
    result.loaded.push(name);
  }
  return result;
}
