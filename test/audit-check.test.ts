/**
 * CI's npm audit step (scripts/audit-check.ts), on recorded `npm audit --json` reports: high and
 * critical advisories of production dependencies fail it unless accepted (with a reason) in the
 * allow-list; an unreachable advisory endpoint is said loudly and does not fail it (unless
 * AUDIT_REQUIRED=1). No network: the reports are fixtures.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { describeVerdict, evaluateAudit, exitCodeOf, readAllowList } from '../scripts/audit-check.js';

const NOW = new Date('2026-11-28T00:00:00Z');

const report = (vulns: Record<string, unknown>) =>
  JSON.stringify({
    auditReportVersion: 2,
    vulnerabilities: vulns,
    metadata: { vulnerabilities: { high: 1, critical: 0 } },
  });

const highUndici = report({
  undici: {
    name: 'undici',
    severity: 'high',
    via: [
      {
        source: 1101234,
        name: 'undici',
        title: 'Request smuggling',
        url: 'https://github.com/advisories/GHSA-abcd-efgh-ijkl',
        severity: 'high',
        range: '<7.1.0',
      },
    ],
  },
  // A package affected only through another: reported on that one, not twice.
  '@slack/web-api': { name: '@slack/web-api', severity: 'high', via: ['undici'] },
  lodash: {
    name: 'lodash',
    severity: 'moderate',
    via: [
      {
        source: 5,
        name: 'lodash',
        title: 'x',
        url: 'https://github.com/advisories/GHSA-aaaa-bbbb-cccc',
        severity: 'moderate',
      },
    ],
  },
});

const allow = (entries: unknown[]) => readAllowList(JSON.stringify({ accepted: entries }), NOW);

describe('npm audit step', () => {
  it('fails on a high advisory that is not accepted, naming package and advisory', () => {
    const v = evaluateAudit(highUndici, allow([]));
    expect(v.status).toBe('fail');
    expect(v.failures).toEqual([
      expect.objectContaining({ package: 'undici', id: 'GHSA-abcd-efgh-ijkl', severity: 'high' }),
    ]);
    expect(exitCodeOf(v, false)).toBe(1);
    expect(describeVerdict(v, false)).toContain('FAIL high undici GHSA-abcd-efgh-ijkl');
  });

  it('passes when the advisory is accepted with a reason; moderate ones never fail', () => {
    const v = evaluateAudit(
      highUndici,
      allow([
        {
          id: 'GHSA-abcd-efgh-ijkl',
          package: 'undici',
          reason: 'Only loopback and the configured hosts are called; no proxy.',
        },
      ]),
    );
    expect(v.status).toBe('pass');
    expect(v.accepted.map((a) => a.id)).toEqual(['GHSA-abcd-efgh-ijkl']);
    expect(exitCodeOf(v, false)).toBe(0);
  });

  it('an allow-list entry without a reason, or past its date, fails the step', () => {
    expect(allow([{ id: 'GHSA-abcd-efgh-ijkl', reason: 'ok' }]).problems[0]).toMatch(/reason/);
    const lapsed = allow([
      {
        id: 'GHSA-abcd-efgh-ijkl',
        reason: 'Accepted while the fix is released upstream.',
        until: '2026-01-01',
      },
    ]);
    expect(lapsed.problems[0]).toMatch(/has passed/);
    const v = evaluateAudit(report({}), lapsed);
    expect(exitCodeOf(v, false)).toBe(1);
  });

  it('an unreachable advisory endpoint is said loudly and passes, unless AUDIT_REQUIRED=1', () => {
    const offline = JSON.stringify({
      error: {
        code: 'ENOTFOUND',
        summary: 'request to https://registry/-/npm/v1/security/advisories/bulk failed',
      },
    });
    for (const out of [offline, '', 'npm ERR! something']) {
      const v = evaluateAudit(out, allow([]));
      expect(v.status).toBe('unreachable');
      expect(exitCodeOf(v, false)).toBe(0);
      expect(exitCodeOf(v, true)).toBe(1);
      expect(describeVerdict(v, false)).toContain('SKIPPED');
    }
  });

  it('the shipped allow-list is valid, every entry with its reason', () => {
    const text = readFileSync(new URL('../audit-allowlist.json', import.meta.url), 'utf8');
    expect(readAllowList(text, new Date()).problems).toEqual([]);
  });

  it('.ci/run runs the step after npm ci', () => {
    const ci = readFileSync(new URL('../.ci/run', import.meta.url), 'utf8');
    const step = ci.indexOf('npx tsx scripts/audit-check.ts');
    expect(step).toBeGreaterThan(ci.indexOf('npm ci --no-audit'));
  });
});
