/**
 * Smoke test of the benchmark harness: the quick variant of every figure runs, produces its rows
 * and the table prints. No timing assertions (performance claims live in BENCHMARKS.md).
 */
import { describe, expect, it } from 'vitest';
import { median, percentile, renderTable } from '../../bench/lib.js';
import { FIGURES, runBench } from '../../bench/run.js';

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

  it('renders one aligned row per result with pass/miss/info', () => {
    const t = renderTable([
      { figure: 'a', value: '1', reference: '2', ratio: 0.5, goal: '< 1', pass: true },
      { figure: 'b', value: '3', reference: '2', ratio: 1.5, goal: '< 1', pass: false },
      { figure: 'c', value: '3', reference: '-', ratio: undefined, goal: 'info', pass: undefined },
    ]);
    const lines = t.split('\n');
    expect(lines).toHaveLength(5);
    expect(new Set(lines.map((l) => l.length)).size).toBe(1);
    expect(lines[2]).toContain('PASS');
    expect(lines[3]).toContain('MISS');
    expect(lines[4]).toContain('info');
  });
});

describe('bench --quick', () => {
  it('produces every figure and prints the table', { timeout: 180_000 }, async () => {
    const result = await runBench({ quick: true });
    expect(result.failures).toEqual([]);
    const figures = new Set(result.rows.map((r) => r.figure.split(' ')[0]));
    expect([...figures].sort()).toEqual(FIGURES.map((f) => f.id).sort());
    for (const id of ['1', '2', '3', '4', '5']) expect(figures.has(id)).toBe(true);
    for (const r of result.rows) {
      expect(r.value).not.toMatch(/NaN|n\/a/);
      expect(result.table).toContain(r.figure);
    }
    expect(result.markdown).toContain('nproc');
  });
});
