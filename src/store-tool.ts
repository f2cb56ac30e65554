/**
 * The operator's store tool (built into dist/, so the image carries it):
 *
 *   node dist/src/store-tool.js copy    --from <url> --to <url> [--force] [--namespace <root>]
 *   node dist/src/store-tool.js backup  [--from <url>] --to file:<path> [--force]
 *   node dist/src/store-tool.js restore --from file:<path> [--to <url>] [--force]
 *
 * (`npm run store:copy -- …`, `store:backup`, `store:restore` from a checkout after `npm run build`.)
 * A URL is a STORE_URL (sqlite://, redis://, rediss://) or `file:<path>` (a backup file). backup's
 * --from and restore's --to default to STORE_URL (or STORE_URL_FILE) from the environment / .env.
 * Values are copied as they are stored (encrypted ones stay encrypted): no ENCRYPTION_KEY is read.
 * Prints counts only, never a value. Exit 0 done, 1 failed or refused, 2 usage. The work is in
 * src/store/dump.ts.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { settingFromEnv } from './config.js';
import { loadEnvFile } from './env-file.js';
import {
  type CopyResult,
  copyStore,
  DEFAULT_ROOT,
  type DumpEndpoint,
  fileEndpoint,
  openStoreEndpoint,
  parseStoreUrl,
  redactUrl,
} from './store/index.js';

export interface StoreToolArgs {
  command: 'copy' | 'backup' | 'restore';
  from: string;
  to: string;
  force: boolean;
  namespace: string;
}

const USAGE = `Usage:
  store-tool copy    --from <url> --to <url> [--force] [--namespace <root>]
  store-tool backup  [--from <url>] --to file:<path> [--force]
  store-tool restore --from file:<path> [--to <url>] [--force]
<url>: sqlite://<path>, redis://host:port[/db], rediss://… or file:<path>.
backup --from and restore --to default to STORE_URL.`;

export class UsageError extends Error {
  override name = 'UsageError';
}

export function parseStoreToolArgs(argv: string[], env: NodeJS.ProcessEnv): StoreToolArgs {
  const [command, ...rest] = argv;
  if (command !== 'copy' && command !== 'backup' && command !== 'restore') {
    throw new UsageError(`Unknown or missing command "${command ?? ''}".\n${USAGE}`);
  }
  const opts: Record<string, string | true> = {};
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i]!;
    const m = /^--(from|to|namespace|force)(?:=(.*))?$/.exec(a);
    if (!m) throw new UsageError(`Unknown argument "${redactUrl(a)}".\n${USAGE}`);
    if (m[1] === 'force') {
      opts.force = true;
      continue;
    }
    const value = m[2] ?? rest[++i];
    if (value === undefined || value === '') throw new UsageError(`--${m[1]} needs a value.\n${USAGE}`);
    opts[m[1]!] = value;
  }
  const storeUrl = () => settingFromEnv(env, 'STORE_URL');
  const from = (opts.from as string | undefined) ?? (command === 'backup' ? storeUrl() : undefined);
  const to = (opts.to as string | undefined) ?? (command === 'restore' ? storeUrl() : undefined);
  if (!from || !to)
    throw new UsageError(
      `${command} needs --from and --to${command === 'copy' ? '' : ' (or STORE_URL)'}.\n${USAGE}`,
    );
  if (command === 'backup' && !isFile(to))
    throw new UsageError(`backup writes a file: --to file:<path>.\n${USAGE}`);
  if (command === 'restore' && !isFile(from))
    throw new UsageError(`restore reads a file: --from file:<path>.\n${USAGE}`);
  if (isFile(from) && isFile(to)) throw new UsageError('Copying a file to a file: use cp.');
  return {
    command,
    from,
    to,
    force: opts.force === true,
    namespace: (opts.namespace as string | undefined) ?? DEFAULT_ROOT,
  };
}

function isFile(url: string): boolean {
  return url.startsWith('file:');
}

function filePath(url: string): string {
  return url.replace(/^file:(\/\/)?/, '');
}

async function open(url: string, namespace: string, side: 'from' | 'to'): Promise<DumpEndpoint> {
  if (isFile(url)) {
    const path = filePath(url);
    if (side === 'from' && !existsSync(path)) throw new Error(`No backup file at ${resolve(path)}`);
    return fileEndpoint(path, namespace);
  }
  const loc = parseStoreUrl(url);
  if (loc.backend === 'memory') throw new UsageError('memory:// holds nothing to copy from or to.');
  if (side === 'from' && loc.backend === 'sqlite' && !existsSync(loc.path)) {
    throw new Error(`No SQLite file at ${resolve(loc.path)} (--from ${redactUrl(url)})`);
  }
  return openStoreEndpoint(url, { namespace });
}

/** Runs one command; returns the counts. Throws CopyRefusedError / BackupFileError / others. */
export async function runStoreTool(args: StoreToolArgs): Promise<CopyResult> {
  const from = await open(args.from, args.namespace, 'from');
  try {
    const to = await open(args.to, args.namespace, 'to');
    try {
      return await copyStore(from, to, { force: args.force });
    } finally {
      await to.close();
    }
  } finally {
    await from.close();
  }
}

export function describeResult(args: StoreToolArgs, r: CopyResult): string {
  const lines = [
    `${args.command}: ${r.records} key(s) from ${redactUrl(args.from)} to ${redactUrl(args.to)}` +
      (r.replaced > 0 ? ` (replaced ${r.replaced} key(s) that were there)` : '') +
      '; counts verified.',
  ];
  for (const [fam, s] of Object.entries(r.summary).sort(([a], [b]) => a.localeCompare(b))) {
    lines.push(
      `  ${fam.padEnd(24)} ${String(s.keys).padStart(7)} key(s) ${String(s.entries).padStart(9)} entr(ies)`,
    );
  }
  return `${lines.join('\n')}\n`;
}

async function main(): Promise<number> {
  try {
    loadEnvFile(process.env);
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n`);
    return 1;
  }
  let args: StoreToolArgs;
  try {
    args = parseStoreToolArgs(process.argv.slice(2), process.env);
  } catch (e) {
    process.stderr.write(`${redactUrl((e as Error).message)}\n`);
    return 2;
  }
  try {
    process.stdout.write(describeResult(args, await runStoreTool(args)));
    return 0;
  } catch (e) {
    process.stderr.write(`${args.command} failed: ${redactUrl((e as Error).message)}\n`);
    return e instanceof UsageError ? 2 : 1;
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await main();
}
