/**
 * Smoke test of the benchmark harness: the quick variant of every figure runs, produces its rows
 * and the table prints. No timing assertions (performance claims live in BENCHMARKS.md).
 */
import { readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { jsonRecords, median, percentile, renderTable } from '../../bench/lib.js';
import { residualWaitPercentile } from '../../bench/notify.js';
import { FIGURES, runBench } from '../../bench/run.js';
import { benchNodeBinary, realTimeCycles } from '../../bench/scale.js';

describe('bench helpers', () => {
  it('median and nearest-rank percentile', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 2, 3])).toBe(2.5);
    const xs = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentile(xs, 50)).toBe(50);
    expect(percentile(xs, 99)).toBe(99);
    expect(percentile(xs, 100)).toBe(100);
    expect(percentile([7], 95)).toBe(7);
  });

  it('renders one aligned row per result with pass/fail/info', () => {
    const t = renderTable([
      { figure: 'a', value: '1', reference: '2', ratio: 0.5, goal: '< 1', pass: true },
      { figure: 'b', value: '3', reference: '2', ratio: 1.5, goal: '< 1', pass: false },
      { figure: 'c', value: '3', reference: '-', ratio: undefined, goal: 'info', pass: undefined },
    ]);
    const lines = t.split('\n');
    expect(lines).toHaveLength(5);
    expect(new Set(lines.map((l) => l.length)).size).toBe(1);
    expect(lines[2]).toContain('PASS');
    expect(lines[3]).toContain('FAIL');
    expect(lines[4]).toContain('info');
  });
});

describe('figure 3 BENCH_NODE knob', () => {
  it('is off when BENCH_NODE is unset or empty', () => {
    expect(benchNodeBinary({})).toBeUndefined();
    expect(benchNodeBinary({ BENCH_NODE: ' ' })).toBeUndefined();
  });

  it('names the binary and the version it reports', () => {
    expect(benchNodeBinary({ BENCH_NODE: process.execPath })).toEqual({
      path: process.execPath,
      version: process.version,
    });
  });

  it('refuses a path that is not a runnable node binary', () => {
    expect(() => benchNodeBinary({ BENCH_NODE: '/nonexistent/bin/node' })).toThrow(/BENCH_NODE=/);
    expect(() => benchNodeBinary({ BENCH_NODE: '/bin/false' })).toThrow(/not a runnable node binary/);
  });
});

/** Every file the module at `file` imports by relative path, itself included, transitively. */
function localImports(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen;
  seen.add(file);
  const text = readFileSync(file, 'utf8');
  // `from './x.js'`, `import './x.js'` and `import('./x.js')`.
  for (const m of text.matchAll(/(?:\bfrom\s+|\bimport\s*\(?\s*)'(\.[^']+)'/g)) {
    localImports(resolve(dirname(file), (m[1] as string).replace(/\.js$/, '.ts')), seen);
  }
  return seen;
}

describe('figure 3 real-time window knob', () => {
  it('is 2 intervals unless BENCH_SCALE_RT_CYCLES says otherwise', () => {
    expect(realTimeCycles({})).toBe(2);
    expect(realTimeCycles({ BENCH_SCALE_RT_CYCLES: ' 8 ' })).toBe(8);
  });

  it('refuses a value that is not a whole number of intervals from 1 to 60', () => {
    for (const v of ['0', '2.5', 'x', '61']) {
      expect(() => realTimeCycles({ BENCH_SCALE_RT_CYCLES: v })).toThrow(/BENCH_SCALE_RT_CYCLES=/);
    }
  });
});

describe('figure 3 floor process', () => {
  it('loads none of the bot code: no module under src/ or dev/', () => {
    const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
    const files = [...localImports(resolve(root, 'bench/scale-floor.ts'))].map((f) => relative(root, f));
    expect(files).toContain('bench/scale-measure.ts');
    expect(files).toContain('bench/scale-protocol.ts');
    expect(files.filter((f) => !f.startsWith('bench/'))).toEqual([]);
  });
});

describe('figure 4 model: wait for the next poll', () => {
  it('is a uniform share of a fixed period', () => {
    expect(residualWaitPercentile([60_000], 95)).toBeCloseTo(57_000, -1);
    expect(residualWaitPercentile([5000], 50)).toBeCloseTo(2500, -1);
  });

  it('weights long periods by their length (+-10% jitter around 60 s)', () => {
    const periods = Array.from({ length: 1001 }, (_, i) => 54_000 + (12_000 * i) / 1000);
    // P(wait > w) = (66 - w)^2 / (2 x 12 x 60) for w in [54, 66] s: p95 at 66 - sqrt(72) = 57.51 s.
    expect(residualWaitPercentile(periods, 95)).toBeCloseTo(57_515, -2);
    expect(residualWaitPercentile(periods, 95)).toBeGreaterThan(residualWaitPercentile([60_000], 95));
  });
});

describe('bench --quick', () => {
  it('produces every figure and prints the table', { timeout: 300_000 }, async () => {
    const result = await runBench({ quick: true });
    expect(result.failures).toEqual([]);
    const figures = new Set(result.rows.map((r) => r.figure.split(' ')[0]));
    expect([...figures].sort()).toEqual(FIGURES.map((f) => f.id).sort());
    for (const id of ['1', '2', '3', '4', '5', '6', '7', '8', '9', '10']) expect(figures.has(id)).toBe(true);
    // The JSON contract: every id the issue lists, with a number and a PASS/FAIL/info result.
    const records = jsonRecords(result.rows);
    const ids = records.map((r) => r.id);
    for (const id of [
      'ack.p50.ratio',
      'ack.cpu.ratio',
      'scale.rss.mb',
      'scale.rss.mb.floor',
      'scale.cpu.pct',
      'replicas.count',
      'replicas.sites',
      'replicas.lost',
      'replicas.duplicate',
      'replicas.failover.intervals',
      'replicas.cpu.pct.per1000',
      'adaptive.p95.s',
      'adaptive.idle.calls.ratio',
      'waits.list_all.ratio',
      'waits.list_other_workspace.ratio',
    ]) {
      expect(ids).toContain(id);
    }
    for (const r of records) {
      expect(typeof r.value).toBe('number');
      expect(['PASS', 'FAIL', 'info']).toContain(r.result);
    }
    // The floor row: a window peak of its own, the bot's real-time peak as reference, bot / floor.
    const floor = result.rows.find((r) => r.id === 'scale.rss.mb.floor');
    expect(floor?.num).toBeGreaterThan(0);
    expect(floor?.refNum).toBeGreaterThan(0);
    expect(floor?.ratio).toBeCloseTo((floor?.refNum ?? 0) / (floor?.num ?? 1), 6);
    expect(floor?.note).toMatch(/It does NOT/);
    const realTime = result.rows.find((r) => r.figure === '3 peak RSS, real time');
    expect(realTime?.note).toMatch(/ONE warm-up interval/);
    for (const r of result.rows) {
      expect(r.value).not.toMatch(/NaN|n\/a/);
      expect(result.table).toContain(r.figure);
    }
    expect(result.markdown).toContain('nproc');
  });
});
