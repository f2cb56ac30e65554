/**
 * Shared helpers of the benchmark suite: statistics, the result row, the table and the machine
 * description. Every figure is a ratio against a reference measured in the same run.
 */
import { readFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';

export interface Row {
  /** Machine-readable id for `--json` (e.g. "ack.p50.ratio"); rows without one are table-only. */
  id?: string;
  /** The figure as a number in `unit` (JSON `value`). */
  num?: number;
  unit?: string;
  /** The reference (or goal bound) as a number in `unit` (JSON `reference`). */
  refNum?: number;
  /** Figure number and name, e.g. "1 ack p99". */
  figure: string;
  value: string;
  reference: string;
  /** value / reference; undefined when not meaningful. */
  ratio: number | undefined;
  goal: string;
  /** undefined = informational row (no goal). */
  pass: boolean | undefined;
  note?: string;
}

export interface BenchContext {
  quick: boolean;
  log: (msg: string) => void;
}

export function median(xs: readonly number[]): number {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

/** Nearest-rank percentile (p in 0..100). */
export function percentile(xs: readonly number[], p: number): number {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * s.length));
  return s[Math.min(rank, s.length) - 1] as number;
}

export function fmtMs(ms: number): string {
  if (!Number.isFinite(ms)) return 'n/a';
  return ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(1)} ms`;
}

export function fmtRatio(r: number | undefined): string {
  return r === undefined || !Number.isFinite(r) ? '-' : r.toFixed(2);
}

export function renderTable(rows: readonly Row[]): string {
  const header = ['figure', 'value', 'reference', 'ratio', 'goal', 'result'];
  const body = rows.map((r) => [
    r.figure,
    r.value,
    r.reference,
    fmtRatio(r.ratio),
    r.goal,
    r.pass === undefined ? 'info' : r.pass ? 'PASS' : 'FAIL',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => (b[i] as string).length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i] as number)).join(' | ')} |`;
  const sep = `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`;
  return [line(header), sep, ...body.map(line)].join('\n');
}

/** One record per row with an id: what `npm run bench -- --json=FILE` writes. */
export interface JsonRecord {
  id: string;
  value: number | null;
  unit: string;
  reference: number | null;
  ratio: number | null;
  goal: string;
  result: 'PASS' | 'FAIL' | 'info';
}

export function jsonRecords(rows: readonly Row[]): JsonRecord[] {
  const num = (x: number | undefined) => (x === undefined || !Number.isFinite(x) ? null : x);
  return rows
    .filter((r): r is Row & { id: string } => r.id !== undefined)
    .map((r) => ({
      id: r.id,
      value: num(r.num),
      unit: r.unit ?? '',
      reference: num(r.refNum),
      ratio: num(r.ratio),
      goal: r.goal,
      result: r.pass === undefined ? 'info' : r.pass ? 'PASS' : 'FAIL',
    }));
}

export function renderNotes(rows: readonly Row[]): string {
  return rows
    .filter((r) => r.note)
    .map((r) => `- ${r.figure}: ${r.note}`)
    .join('\n');
}

export interface MachineInfo {
  nproc: number;
  cpuModel: string;
  memGb: string;
  node: string;
  date: string;
}

export function machineInfo(): MachineInfo {
  let model = cpus()[0]?.model ?? 'unknown';
  try {
    const m = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'));
    if (m?.[1]) model = m[1].trim();
  } catch {
    // not Linux: keep os.cpus()
  }
  return {
    nproc: cpus().length,
    cpuModel: model,
    memGb: (totalmem() / 2 ** 30).toFixed(1),
    node: process.version,
    date: new Date().toISOString(),
  };
}

/** Resolves after `ms` of real time. */
export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Sum of every request the emulator received (all routes, token calls included). */
export function totalRequests(counts: Record<string, number>): number {
  let n = 0;
  for (const v of Object.values(counts)) n += v;
  return n;
}

export const ENCRYPTION_KEY = '0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef';
