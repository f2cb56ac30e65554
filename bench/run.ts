/**
 * The suite as a function (used by bench/main.ts and the smoke test): runs the selected figures,
 * collects their rows, and renders the table. A figure that throws is a harness failure: it is
 * reported and the others still run.
 */

import { benchAck } from './ack.js';
import { benchAdaptive } from './adaptive.js';
import { benchHostile } from './hostile.js';
import { type BenchContext, machineInfo, type Row, renderNotes, renderTable } from './lib.js';
import { benchNotify } from './notify.js';
import { benchPollCost } from './poll-cost.js';
import { benchRegistration } from './registration.js';
import { benchReplicas } from './replicas.js';
import { benchScale } from './scale.js';
import { benchSocketRefresh } from './socket-refresh.js';
import { benchWaitsListing } from './waits-listing.js';

export interface Figure {
  id: string;
  name: string;
  run: (ctx: BenchContext) => Promise<Row[]>;
}

export const FIGURES: Figure[] = [
  { id: '1', name: 'ack latency', run: benchAck },
  { id: '2', name: 'poll cost', run: benchPollCost },
  { id: '3', name: 'scale', run: benchScale },
  { id: '4', name: 'notification latency', run: benchNotify },
  { id: '5', name: 'bulk registration', run: benchRegistration },
  { id: '6', name: 'adaptive polling', run: benchAdaptive },
  { id: '7', name: 'replicas on Redis', run: benchReplicas },
  { id: '8', name: 'workflow waits listing', run: benchWaitsListing },
  { id: '9', name: 'hostile input', run: benchHostile },
  { id: '10', name: 'Socket Mode refresh gap', run: benchSocketRefresh },
];

export interface BenchResult {
  rows: Row[];
  failures: { figure: string; error: string }[];
  table: string;
  notes: string;
  markdown: string;
  elapsedMs: number;
}

export async function runBench(opts: {
  quick: boolean;
  only?: string[];
  log?: (m: string) => void;
}): Promise<BenchResult> {
  const log = opts.log ?? (() => {});
  const ctx: BenchContext = { quick: opts.quick, log };
  const started = Date.now();
  const rows: Row[] = [];
  const failures: BenchResult['failures'] = [];
  for (const f of FIGURES) {
    if (opts.only && !opts.only.includes(f.id)) continue;
    const t = Date.now();
    log(`figure ${f.id} (${f.name})${opts.quick ? ' [quick]' : ''}...`);
    try {
      rows.push(...(await f.run(ctx)));
      log(`figure ${f.id} done in ${((Date.now() - t) / 1000).toFixed(1)} s`);
    } catch (e) {
      const error = e instanceof Error ? (e.stack ?? e.message) : String(e);
      failures.push({ figure: f.id, error });
      log(`figure ${f.id} FAILED: ${error}`);
    }
  }
  const elapsedMs = Date.now() - started;
  const table = renderTable(rows);
  const notes = renderNotes(rows);
  const m = machineInfo();
  const markdown = [
    `Run: ${m.date}, ${opts.quick ? 'QUICK (smoke) variant' : 'full'} suite, ${(elapsedMs / 1000).toFixed(0)} s.`,
    `Machine: ${m.nproc} CPUs (nproc), ${m.cpuModel}, ${m.memGb} GB RAM, Node ${m.node}.`,
    '',
    table,
    '',
    notes,
    '',
  ].join('\n');
  return { rows, failures, table, notes, markdown, elapsedMs };
}
