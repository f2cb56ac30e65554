/**
 * `npm run readme` (tsx scripts/gen-readme.ts): regenerate the generated documentation (README.md's
 * command overview, docs/configuration.md's environment variable table, docs/commands.md's
 * commands reference, .env.example; see scripts/readme.ts). `--check` exits 1 (without writing)
 * when one is out of date.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { registry } from '../src/slack/features/index.js';
import { generatedFiles } from './readme.js';

const root = new URL('..', import.meta.url);
const files = generatedFiles((path) => readFileSync(new URL(path, root), 'utf8'), registry);
const stale = files.filter((f) => f.before !== f.after);
if (process.argv.includes('--check')) {
  if (stale.length) {
    process.stderr.write(`${stale.map((f) => f.path).join(', ')} out of date: run npm run readme\n`);
    process.exit(1);
  }
  process.stdout.write('generated docs are up to date\n');
} else {
  for (const f of stale) {
    writeFileSync(new URL(f.path, root), f.after);
    process.stdout.write(`${f.path} updated\n`);
  }
  if (!stale.length) process.stdout.write('generated docs already up to date\n');
}
