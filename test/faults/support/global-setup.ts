/**
 * Global setup of the faults suite: prints the seed first and the summary table last.
 */
import { rmSync } from 'node:fs';
import { formatTable, readRows } from './summary.js';

export function setup(): void {
  const seed = process.env.FAULTS_SEED;
  process.stdout.write(`\n[faults] seed ${seed} (re-run with FAULTS_SEED=${seed} npm run test:faults)\n`);
}

export function teardown(): void {
  const d = process.env.FAULTS_SUMMARY_DIR;
  if (!d) return;
  const rows = readRows(d);
  const failed = rows.filter((r) => r.result === 'FAIL').length;
  const lost = rows.reduce((n, r) => n + Math.max(0, r.lost), 0);
  const dup = rows.reduce((n, r) => n + Math.max(0, r.duplicated), 0);
  process.stdout.write(
    `\n[faults] summary (seed ${process.env.FAULTS_SEED}): ${rows.length} scenarios, ${failed} failed, ` +
      `${lost} lost, ${dup} duplicated\n${formatTable(rows)}\n\n`,
  );
  rmSync(d, { recursive: true, force: true });
}
