/**
 * A registration report presented: its summary for a renderer (counts, failed batches, whether
 * to attach the CSV instead of listing rows) and the whole report as CSV, one row per input line.
 */
import { writeCsv } from '../../csv.js';
import { type RegistrationReport, type ReportCounts, reportCounts } from './report.js';

/** Above this many rows a renderer should attach the CSV instead of listing rows. */
export const REPORT_INLINE_ROWS = 20;

export interface ReportSummary {
  id: string;
  siteId: string;
  status: RegistrationReport['status'];
  interruptedReason?: string;
  counts: ReportCounts;
  /** Failed batches with the service's code and message. */
  failedBatches: Array<{ index: number; kind: string; code?: string; message: string; names: number }>;
  /** Rows in the CSV (every line of the input). */
  rows: number;
  needsCsv: boolean;
}

export function summariseReport(r: RegistrationReport): ReportSummary {
  const counts = reportCounts(r);
  const failedBatches = r.batches
    .filter((b) => b.state === 'failed')
    .map((b) => ({
      index: b.index,
      kind: b.error?.kind ?? 'unknown',
      ...(b.error?.code ? { code: b.error.code } : {}),
      message: b.error?.message ?? '',
      names: r.failed.filter((f) => f.batch === b.index).length,
    }));
  const rows = r.registered.length + r.skipped.length + r.failed.length;
  return {
    id: r.id,
    siteId: r.siteId,
    status: r.status,
    ...(r.interruptedReason ? { interruptedReason: r.interruptedReason } : {}),
    counts,
    failedBatches,
    rows,
    needsCsv: rows > REPORT_INLINE_ROWS,
  };
}

interface CsvRow {
  line: number;
  name: string;
  outcome: string;
  dwmId?: number;
  detail: string;
}

/** The whole report as CSV, one row per input line, ordered by line. */
export function reportCsv(r: RegistrationReport): string {
  const rows: CsvRow[] = [];
  for (const x of r.registered) {
    rows.push({
      line: x.line,
      name: x.name,
      outcome: 'registered',
      dwmId: x.dwmId,
      detail: x.reconciled ? 'Confirmed by a look-up after a network error.' : '',
    });
  }
  for (const x of r.skipped) {
    rows.push({
      line: x.line,
      name: x.name,
      outcome: x.reason,
      ...(x.dwmId ? { dwmId: x.dwmId } : {}),
      detail: x.detail,
    });
  }
  for (const x of r.failed) {
    rows.push({
      line: x.line,
      name: x.name,
      outcome: 'failed',
      detail: x.code ? `${x.code}: ${x.message}` : x.message,
    });
  }
  rows.sort((a, b) => a.line - b.line);
  return writeCsv<CsvRow>(
    [
      { header: 'line', value: (x) => x.line },
      { header: 'name', value: (x) => x.name },
      { header: 'outcome', value: (x) => x.outcome },
      { header: 'dwm_id', value: (x) => x.dwmId ?? '' },
      { header: 'detail', value: (x) => x.detail },
    ],
    rows,
  );
}
