/**
 * Rows of the faults summary table. Each scenario records what it injected and what came out;
 * rows go to one JSON-lines file per worker under FAULTS_SUMMARY_DIR, and the global setup's
 * teardown prints them all as one table at the end of the run (see global-setup.ts).
 */
import { appendFileSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface SummaryRow {
  /** Short name, e.g. "service: 5xx burst". */
  scenario: string;
  /** What was injected. */
  injected: string;
  /** What happened (the asserted outcome). */
  outcome: string;
  /** Notifications / registrations / messages lost (expected 0). */
  lost: number;
  /** Duplicated (expected 0). */
  duplicated: number;
  /** pass | FAIL (set from the assertions' result). */
  result?: 'pass' | 'FAIL';
}

function dir(): string | undefined {
  return process.env.FAULTS_SUMMARY_DIR;
}

/** Record one row (no-op outside the faults suite's config). */
export function recordRow(row: SummaryRow): void {
  const d = dir();
  if (!d) return;
  mkdirSync(d, { recursive: true });
  appendFileSync(join(d, `${process.pid}.jsonl`), `${JSON.stringify({ result: 'pass', ...row })}\n`);
}

/**
 * Run a scenario body and record its row whatever happens: a failed assertion records the row
 * as FAIL (with the error) and rethrows, so the table never hides a failure.
 */
export async function scenario(
  row: Omit<SummaryRow, 'outcome' | 'lost' | 'duplicated' | 'result'>,
  body: () => Promise<{ outcome: string; lost?: number; duplicated?: number }>,
): Promise<void> {
  try {
    const r = await body();
    recordRow({ ...row, outcome: r.outcome, lost: r.lost ?? 0, duplicated: r.duplicated ?? 0 });
  } catch (e) {
    const msg = e instanceof Error ? e.message.split('\n')[0]!.slice(0, 120) : String(e);
    recordRow({ ...row, outcome: `FAILED: ${msg}`, lost: -1, duplicated: -1, result: 'FAIL' });
    throw e;
  }
}

export function readRows(d: string): SummaryRow[] {
  let files: string[];
  try {
    files = readdirSync(d).filter((f) => f.endsWith('.jsonl'));
  } catch {
    return [];
  }
  const rows: SummaryRow[] = [];
  for (const f of files.sort()) {
    for (const line of readFileSync(join(d, f), 'utf8').split('\n')) {
      if (line.trim()) rows.push(JSON.parse(line) as SummaryRow);
    }
  }
  return rows.sort((a, b) => a.scenario.localeCompare(b.scenario));
}

/** A plain-text table (fixed-width columns, long cells cut). */
export function formatTable(rows: SummaryRow[]): string {
  const head = ['scenario', 'injected', 'outcome', 'lost', 'dup', 'result'];
  const cut = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);
  const cells = rows.map((r) => [
    cut(r.scenario, 44),
    cut(r.injected, 52),
    cut(r.outcome, 60),
    String(r.lost),
    String(r.duplicated),
    r.result ?? 'pass',
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: string[]) => c.map((x, i) => x.padEnd(widths[i]!)).join(' | ');
  return [line(head), widths.map((w) => '-'.repeat(w)).join('-+-'), ...cells.map(line)].join('\n');
}
