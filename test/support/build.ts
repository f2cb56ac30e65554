/**
 * The product built as `npm run build` builds it, into a temporary directory: tsc with
 * tsconfig.build.json, emit only (`--noCheck`: the typecheck is `npm run typecheck`'s job), with
 * the package's "type": "module" and its node_modules next to the emitted code, so that
 * `node <dir>/src/main.js` runs it with plain node. Used by the tests of the built entry.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const REPO = resolve(new URL('../..', import.meta.url).pathname);

/** Build into a new temporary directory (its path is returned; the caller removes it). */
export function buildIntoTemp(prefix: string): string {
  const out = mkdtempSync(join(tmpdir(), prefix));
  writeFileSync(join(out, 'package.json'), JSON.stringify({ type: 'module' }));
  symlinkSync(realpathSync(join(REPO, 'node_modules')), join(out, 'node_modules'), 'dir');
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const r = spawnSync(
    process.execPath,
    [tsc, '-p', join(REPO, 'tsconfig.build.json'), '--outDir', out, '--noCheck'],
    { encoding: 'utf8', timeout: 150_000 },
  );
  if (r.status !== 0) throw new Error(`tsc failed: ${r.stdout}${r.stderr}`);
  return out;
}
