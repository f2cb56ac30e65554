/**
 * `npm run bench [-- --quick] [-- --only=2,3,5] [-- --markdown=FILE] [-- --json=FILE]`
 *
 * Runs the figures in order, prints one table (figure, value, reference, ratio, goal, result) and
 * the notes. Exits non-zero only when the harness itself fails (a figure throws), never because
 * a goal was missed. `--quick` is the smoke variant (small N, few rounds; figures not meaningful).
 * `--markdown=FILE` also writes the table, notes and machine description as Markdown.
 * `--json=FILE` writes a JSON array of `{id, value, unit, reference, ratio, goal, result}` for every
 * figure that has an id (bench/lib.ts `jsonRecords`; result is PASS, FAIL or info).
 */
import { writeFileSync } from 'node:fs';
import { jsonRecords } from './lib.js';
import { runBench } from './run.js';

function arg(name: string): string | undefined {
  const hit = process.argv.find((a) => a === `--${name}` || a.startsWith(`--${name}=`));
  if (!hit) return undefined;
  return hit.includes('=') ? hit.slice(hit.indexOf('=') + 1) : '';
}

const quick = arg('quick') !== undefined;
const only = arg('only')
  ?.split(',')
  .map((s) => s.trim())
  .filter(Boolean);
const markdown = arg('markdown');
const json = arg('json');
// Keep the app's own logging out of the table (warnings would still show).
process.env.LOG_LEVEL ??= 'warn';

const result = await runBench({ quick, ...(only ? { only } : {}), log: (m) => console.log(m) });
console.log('');
console.log(result.table);
console.log('');
console.log(result.notes);
if (result.failures.length) {
  console.error('');
  for (const f of result.failures) console.error(`HARNESS FAILURE in figure ${f.figure}: ${f.error}`);
}
if (markdown) {
  writeFileSync(markdown, result.markdown);
  console.log(`\nMarkdown written to ${markdown}`);
}
if (json) {
  writeFileSync(json, `${JSON.stringify(jsonRecords(result.rows), null, 2)}\n`);
  console.log(`JSON written to ${json}`);
}
process.exitCode = result.failures.length ? 1 : 0;
