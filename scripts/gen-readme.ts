/**
 * `npm run readme` (tsx scripts/gen-readme.ts): regenerate the README's environment variable table
 * and commands reference. `--check` exits 1 (without writing) when the README is out of date.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { registry } from '../src/slack/features/index.js';
import { generateReadme } from './readme.js';

const path = new URL('../README.md', import.meta.url);
const before = readFileSync(path, 'utf8');
const after = generateReadme(before, registry);
if (process.argv.includes('--check')) {
  if (before !== after) {
    process.stderr.write('README.md is out of date: run npm run readme\n');
    process.exit(1);
  }
  process.stdout.write('README.md is up to date\n');
} else if (before !== after) {
  writeFileSync(path, after);
  process.stdout.write('README.md updated\n');
} else {
  process.stdout.write('README.md already up to date\n');
}
