/**
 * CI's supply-chain step: `npm audit --omit=dev --json` over the production dependencies, failing
 * on any high or critical advisory that `audit-allowlist.json` does not accept. Run by .ci/run
 * after `npm ci`:
 *
 *   npx tsx scripts/audit-check.ts
 *
 * The allow-list (audit-allowlist.json): `{ "accepted": [{ "id": "GHSA-xxxx-xxxx-xxxx",
 * "package": "name", "reason": "why it does not affect us / what we do instead", "until":
 * "2027-01-31" }] }`. Every entry needs a reason (at least 20 characters); `until` (optional) makes
 * it lapse, so an acceptance is looked at again. A lapsed or malformed entry fails the step.
 *
 * The advisory endpoint unreachable (CI offline, the registry's audit service down, a registry
 * mirror without it): the step says so loudly and passes, unless AUDIT_REQUIRED=1 (then exit 1).
 * A network blip must not fail an otherwise good build (docs/security.md says how to run it by
 * hand); advisories found are never skipped. Exit 0 pass, 1 fail.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

export interface AllowEntry {
  id: string;
  package?: string;
  reason: string;
  until?: string;
}

export interface Finding {
  package: string;
  id: string;
  severity: string;
  title: string;
  url?: string;
}

export interface AuditVerdict {
  status: 'pass' | 'fail' | 'unreachable';
  /** High/critical advisories not accepted. */
  failures: Finding[];
  /** High/critical advisories accepted by the allow-list. */
  accepted: Array<Finding & { reason: string }>;
  /** Problems of the allow-list itself (fail the step). */
  allowListProblems: string[];
  /** Notes (entries that matched nothing, lower severities counted). */
  notes: string[];
}

const BLOCKING = new Set(['high', 'critical']);
const ID_RE = /^(GHSA-[a-z0-9]{4}-[a-z0-9]{4}-[a-z0-9]{4}|\d+)$/;

/** Checks the allow-list file's shape; returns its entries and the problems found. */
export function readAllowList(text: string, now: Date): { entries: AllowEntry[]; problems: string[] } {
  const problems: string[] = [];
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return { entries: [], problems: ['audit-allowlist.json is not valid JSON'] };
  }
  const list = (data as { accepted?: unknown }).accepted;
  if (!Array.isArray(list))
    return { entries: [], problems: ['audit-allowlist.json needs an "accepted" array'] };
  const entries: AllowEntry[] = [];
  list.forEach((raw, i) => {
    const e = raw as Partial<AllowEntry>;
    const where = `audit-allowlist.json entry ${i + 1}${typeof e.id === 'string' ? ` (${e.id})` : ''}`;
    if (typeof e.id !== 'string' || !ID_RE.test(e.id)) {
      problems.push(`${where}: "id" must be an advisory id (GHSA-xxxx-xxxx-xxxx or npm's number)`);
      return;
    }
    if (typeof e.reason !== 'string' || e.reason.trim().length < 20) {
      problems.push(`${where}: "reason" must say why the advisory is accepted (at least 20 characters)`);
      return;
    }
    if (e.until !== undefined) {
      const t = Date.parse(`${e.until}T23:59:59Z`);
      if (typeof e.until !== 'string' || Number.isNaN(t)) {
        problems.push(`${where}: "until" must be a date (YYYY-MM-DD)`);
        return;
      }
      if (t < now.getTime()) {
        problems.push(`${where}: accepted until ${e.until}, which has passed: look at it again`);
        return;
      }
    }
    entries.push({
      id: e.id,
      reason: e.reason,
      ...(e.package ? { package: e.package } : {}),
      ...(e.until ? { until: e.until } : {}),
    });
  });
  return { entries, problems };
}

function advisoryId(via: { url?: string; source?: number | string }): string {
  const ghsa = /GHSA-[a-z0-9]{4}-[a-z0-9]{4}-[a-z0-9]{4}/i.exec(via.url ?? '')?.[0];
  return ghsa ?? String(via.source ?? '?');
}

/** Reads `npm audit --json` output against the allow-list. */
export function evaluateAudit(
  output: string,
  allow: { entries: AllowEntry[]; problems: string[] },
): AuditVerdict {
  const verdict: AuditVerdict = {
    status: 'pass',
    failures: [],
    accepted: [],
    allowListProblems: [...allow.problems],
    notes: [],
  };
  let report: {
    vulnerabilities?: Record<string, { via?: unknown[] }>;
    error?: { code?: string; summary?: string };
    metadata?: { vulnerabilities?: Record<string, number> };
  };
  try {
    report = JSON.parse(output);
  } catch {
    verdict.status = 'unreachable';
    verdict.notes.push('npm audit gave no JSON report');
    return verdict;
  }
  if (report.error || typeof report.vulnerabilities !== 'object' || report.vulnerabilities === null) {
    verdict.status = 'unreachable';
    verdict.notes.push(
      `npm audit could not get advisories: ${report.error?.code ?? 'no report'} ${report.error?.summary?.split('\n')[0] ?? ''}`.trim(),
    );
    return verdict;
  }
  const used = new Set<AllowEntry>();
  const seen = new Set<string>();
  for (const [pkg, v] of Object.entries(report.vulnerabilities)) {
    for (const via of v.via ?? []) {
      if (typeof via !== 'object' || via === null) continue; // through another package: reported there
      const a = via as { source?: number; name?: string; title?: string; url?: string; severity?: string };
      if (!a.severity || !BLOCKING.has(a.severity)) continue;
      const id = advisoryId(a);
      const name = a.name ?? pkg;
      if (seen.has(`${name}:${id}`)) continue;
      seen.add(`${name}:${id}`);
      const finding: Finding = {
        package: name,
        id,
        severity: a.severity,
        title: a.title ?? '',
        ...(a.url ? { url: a.url } : {}),
      };
      const ok = allow.entries.find(
        (e) => (e.id === id || e.id === String(a.source)) && (!e.package || e.package === name),
      );
      if (ok) {
        used.add(ok);
        verdict.accepted.push({ ...finding, reason: ok.reason });
      } else verdict.failures.push(finding);
    }
  }
  for (const e of allow.entries)
    if (!used.has(e)) verdict.notes.push(`allow-list entry ${e.id} matched nothing (remove it?)`);
  const counts = report.metadata?.vulnerabilities;
  if (counts)
    verdict.notes.push(
      `counts: ${['critical', 'high', 'moderate', 'low'].map((k) => `${counts[k] ?? 0} ${k}`).join(', ')}`,
    );
  verdict.status = verdict.failures.length > 0 || verdict.allowListProblems.length > 0 ? 'fail' : 'pass';
  return verdict;
}

/** Exit code for a verdict (AUDIT_REQUIRED=1 fails an unreachable endpoint too). */
export function exitCodeOf(v: AuditVerdict, required: boolean): number {
  if (v.allowListProblems.length > 0) return 1;
  if (v.status === 'fail') return 1;
  if (v.status === 'unreachable') return required ? 1 : 0;
  return 0;
}

export function describeVerdict(v: AuditVerdict, required: boolean): string {
  const out: string[] = [];
  for (const p of v.allowListProblems) out.push(`FAIL ${p}`);
  for (const f of v.failures)
    out.push(`FAIL ${f.severity} ${f.package} ${f.id}: ${f.title}${f.url ? ` (${f.url})` : ''}`);
  for (const a of v.accepted) out.push(`accepted ${a.severity} ${a.package} ${a.id}: ${a.reason}`);
  for (const n of v.notes) out.push(`note: ${n}`);
  if (v.status === 'unreachable') {
    out.push(
      required
        ? 'FAIL the advisory endpoint could not be reached and AUDIT_REQUIRED=1'
        : 'SKIPPED: the advisory endpoint could not be reached; production dependencies were NOT audited in this run',
    );
  } else if (v.status === 'pass') {
    out.push('npm audit: no high or critical advisory in production dependencies beyond the accepted ones');
  }
  return `${out.join('\n')}\n`;
}

function main(): number {
  const allowText = readFileSync(new URL('../audit-allowlist.json', import.meta.url), 'utf8');
  const allow = readAllowList(allowText, new Date());
  const r = spawnSync('npm', ['audit', '--omit=dev', '--json'], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  const required = process.env.AUDIT_REQUIRED === '1';
  const verdict = evaluateAudit(r.stdout ?? '', allow);
  process.stdout.write(describeVerdict(verdict, required));
  return exitCodeOf(verdict, required);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = main();
}
