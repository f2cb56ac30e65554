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
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { loaded: [], overridden: [] };
    throw new Error(`cannot read ${file}: ${(err as Error).message}`);
  }
  const result: EnvFileResult = { path: file, loaded: [], overridden: [] };
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
