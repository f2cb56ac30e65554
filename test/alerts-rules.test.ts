/**
 * docs/alerts.rules.yml (Prometheus rule examples) stays usable: it parses, every alert has an
 * expression, a duration, a severity, a summary and a runbook row in docs/operations.md, and
 * every drmchatops_ metric it names is registered by src/metrics.ts.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { registry } from '../src/metrics.js';

const read = (p: string) => readFileSync(new URL(`../${p}`, import.meta.url), 'utf8');

type Node = string | Node[] | { [k: string]: Node };

/** The YAML subset the rules file uses: mappings, sequences of mappings, plain or quoted scalars. */
function parseYaml(text: string): Node {
  const lines = text
    .split('\n')
    .map((raw, i) => ({ raw, i: i + 1 }))
    .filter(({ raw }) => raw.trim() !== '' && !raw.trim().startsWith('#'));
  let pos = 0;
  const indentOf = (s: string) => s.length - s.trimStart().length;
  const scalar = (v: string, line: number): string => {
    const t = v.trim();
    if (t.startsWith("'")) {
      if (!t.endsWith("'") || t.length < 2) throw new Error(`line ${line}: unterminated quoted string`);
      return t.slice(1, -1).replace(/''/g, "'");
    }
    if (t.startsWith('"')) return JSON.parse(t) as string;
    if (/^[[{|>&*!%@`]/.test(t)) throw new Error(`line ${line}: unsupported YAML "${t.slice(0, 10)}"`);
    return t;
  };
  function block(indent: number): Node {
    const first = lines[pos]!;
    if (first.raw.trimStart().startsWith('- ')) {
      const out: Node[] = [];
      while (
        pos < lines.length &&
        indentOf(lines[pos]!.raw) === indent &&
        lines[pos]!.raw.trimStart().startsWith('- ')
      ) {
        // "- key: value" starts a mapping at indent + 2.
        const l = lines[pos]!;
        lines[pos] = { raw: `${' '.repeat(indent + 2)}${l.raw.trimStart().slice(2)}`, i: l.i };
        out.push(block(indent + 2));
      }
      return out;
    }
    const map: { [k: string]: Node } = {};
    while (pos < lines.length && indentOf(lines[pos]!.raw) === indent) {
      const { raw, i } = lines[pos]!;
      const m = /^([A-Za-z_][\w-]*):(?:\s+(.*))?$/.exec(raw.trim());
      if (!m) throw new Error(`line ${i}: expected "key: value", got "${raw.trim()}"`);
      if (m[1]! in map) throw new Error(`line ${i}: duplicate key ${m[1]}`);
      pos++;
      if (m[2] !== undefined && m[2] !== '') map[m[1]!] = scalar(m[2], i);
      else {
        if (pos >= lines.length || indentOf(lines[pos]!.raw) <= indent)
          throw new Error(`line ${i}: ${m[1]} is empty`);
        map[m[1]!] = block(indentOf(lines[pos]!.raw));
      }
    }
    if (pos < lines.length && indentOf(lines[pos]!.raw) > indent) {
      throw new Error(`line ${lines[pos]!.i}: unexpected indentation`);
    }
    return map;
  }
  const root = block(0);
  if (pos !== lines.length) throw new Error(`line ${lines[pos]!.i}: not parsed`);
  return root;
}

interface Rule {
  alert: string;
  expr: string;
  for: string;
  labels: { severity: string };
  annotations: { summary: string; runbook: string };
}

const rules = (() => {
  const doc = parseYaml(read('docs/alerts.rules.yml')) as unknown as {
    groups: Array<{ name: string; rules: Rule[] }>;
  };
  return doc.groups.flatMap((g) => g.rules);
})();

describe('docs/alerts.rules.yml', () => {
  it('parses, and every alert is complete', () => {
    expect(rules.length).toBeGreaterThanOrEqual(6);
    for (const r of rules) {
      expect(r.alert).toMatch(/^DrmChatops[A-Za-z]+$/);
      expect(r.expr.length).toBeGreaterThan(5);
      expect(r.for).toMatch(/^\d+[smh]$/);
      expect(['warning', 'critical']).toContain(r.labels.severity);
      expect(r.annotations.summary.length).toBeGreaterThan(10);
      expect(r.annotations.runbook).toBe(`docs/operations.md#runbook-${r.alert.toLowerCase()}`);
    }
    expect(new Set(rules.map((r) => r.alert)).size).toBe(rules.length);
  });

  it('covers a watch not polled, the outbox growing, a notices backlog, the store lost and Slack refusing posts', () => {
    const exprs = rules.map((r) => r.expr).join('\n');
    for (const m of [
      'drmchatops_watch_oldest_poll_age_seconds',
      'drmchatops_outbox_pending',
      'drmchatops_notices_pending',
      'drmchatops_store_up',
      'drmchatops_slack_call_errors_total',
    ]) {
      expect(exprs).toContain(m);
    }
  });

  it('every drmchatops_ metric an expression names is registered by src/metrics.ts', async () => {
    const registered = new Set((await registry.getMetricsAsJSON()).map((m) => m.name));
    const named = new Set(
      rules.flatMap((r) => [...r.expr.matchAll(/\bdrmchatops_[a-z0-9_]+/g)].map((m) => m[0])),
    );
    const base = (n: string) => n.replace(/_(bucket|sum|count)$/, '');
    const unknown = [...named].filter((n) => !registered.has(n) && !registered.has(base(n)));
    expect(unknown).toEqual([]);
  });

  it('docs/operations.md has a runbook row for each alert, under its anchor', () => {
    const ops = read('docs/operations.md');
    for (const r of rules) {
      expect(ops).toContain(`<a id="runbook-${r.alert.toLowerCase()}"></a>`);
    }
  });

  it('the parser refuses what the file must not contain', () => {
    expect(() => parseYaml('a:\n  b: [1, 2]\n')).toThrow(/unsupported/);
    expect(() => parseYaml("a: 'open\n")).toThrow(/unterminated/);
    expect(() => parseYaml('a: 1\na: 2\n')).toThrow(/duplicate/);
  });
});
