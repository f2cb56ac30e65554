/**
 * The service check (`npm run doctor`, and "Check the service" in `/dwm setup`): READ-ONLY calls
 * (GET only, never a POST or PUT: `probe` refuses any other method) against the configured
 * services with a workspace's credentials, reporting for each point the specs leave open ("not
 * shown") which reading this service uses, and the exact settings to add when the bot's defaults
 * do not match it.
 *
 * Each open point is one `DoctorCheck` in `DOCTOR_CHECKS` (an ordered list: add a check by adding
 * an entry). A check reads through the shared `DoctorContext` (probes are memoised per call, so
 * two checks reading the same answer cost one call) and returns one `DoctorFinding`:
 * - `ok`: the service does what the bot expects (or the bot handles every reading of it);
 * - `info`: a reading worth knowing that needs no setting;
 * - `setting`: the bot needs a setting (`env`: the lines to add);
 * - `failed`: something to fix first (credentials refused, the service unreachable);
 * - `not-observed`: this service gave nothing to observe (said as such, never guessed).
 * The process exit code (CLI) is non-zero when a finding is `setting` or `failed`.
 *
 * This module is the list of checks, the run and the report (the .env lines, the settings in
 * force); the report as plain text is the CLI's (src/doctor.ts `doctorText`, which words a next
 * step naming a command as the Slack view does). The checks live in src/ops/doctor/ by what they read: `context.ts` (the
 * shared types and the GET-only probing), `readings.ts` (answers in words), `service.ts` and
 * `watermarking.ts` (each API's points), `clock.ts` (clocks and time zones), `lists.ts` (totals
 * and page caps).
 */
import { loadErrorCodes } from '../api/error-codes.js';
import { loadSiteRequestStatuses } from '../api/site-request-statuses.js';
import type { Config } from '../config.js';
import { clockSkew, timeZoneEcho } from './doctor/clock.js';
import type {
  DoctorCheck,
  DoctorFinding,
  DoctorInput,
  DoctorReport,
  DoctorSettings,
} from './doctor/context.js';
import { DoctorContext } from './doctor/context.js';
import { pageCap, totalCount } from './doctor/lists.js';
import { failureText } from './doctor/readings.js';
import { placement, planNone, planStatuses, siteRequestStatuses, svcLogin } from './doctor/service.js';
import { missingJob, missingRecipient, wmLogin } from './doctor/watermarking.js';

export {
  type DoctorCheck,
  DoctorContext,
  type DoctorEnv,
  type DoctorFinding,
  type DoctorInput,
  type DoctorReport,
  type DoctorSettings,
  type DoctorStatus,
  IMPOSSIBLE_ID,
  type Probe,
} from './doctor/context.js';

/** Every check, in report order. Add an open point by adding its check here. */
export const DOCTOR_CHECKS: readonly DoctorCheck[] = [
  svcLogin,
  wmLogin,
  clockSkew,
  timeZoneEcho,
  totalCount,
  pageCap,
  planNone,
  planStatuses,
  missingJob,
  missingRecipient,
  siteRequestStatuses,
  placement,
];

// ---------------------------------------------------------------------------------------------
// Running and reporting
// ---------------------------------------------------------------------------------------------

function parseJsonObject(json: string | undefined): Record<string, unknown> {
  if (!json?.trim()) return {};
  try {
    const j: unknown = JSON.parse(json);
    return j && typeof j === 'object' && !Array.isArray(j) ? (j as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** The .env lines of the findings: JSON settings merged with their current values, one line each. */
export function envLinesOf(findings: readonly DoctorFinding[], settings: DoctorSettings): string[] {
  const current: Record<string, string | undefined> = {
    SERVICE_ERROR_CODES: settings.serviceErrorCodesJson,
    SERVICE_SITE_REQUEST_STATUSES: settings.siteStatusesJson,
  };
  const json = new Map<string, Record<string, unknown>>();
  const plain = new Map<string, string>();
  for (const f of findings) {
    for (const e of f.env ?? []) {
      if ('value' in e) plain.set(e.name, e.value);
      else {
        const base = json.get(e.name) ?? parseJsonObject(current[e.name]);
        json.set(e.name, { ...base, ...e.entries });
      }
    }
  }
  return [
    ...[...json].map(([name, obj]) => `${name}=${JSON.stringify(obj)}`),
    ...[...plain].map(([name, v]) => `${name}=${v}`),
  ];
}

/** Run every check (one failing check is a finding, never the end of the report). */
export async function runDoctor(input: DoctorInput): Promise<DoctorReport> {
  const ctx = new DoctorContext(input);
  const findings: DoctorFinding[] = [];
  for (const check of input.checks ?? DOCTOR_CHECKS) {
    let r: Omit<DoctorFinding, 'id' | 'point'>;
    try {
      r = await check.run(ctx);
    } catch (err) {
      r = { status: 'failed', reading: `the check failed: ${failureText(err)}` };
    }
    findings.push({ id: check.id, point: check.point, ...r });
  }
  return {
    findings,
    envLines: envLinesOf(findings, input.settings),
    needsAction: findings.some((f) => f.status === 'setting' || f.status === 'failed'),
  };
}

/** The settings in force, from the configuration (the same loaders as the bot's start). */
export function doctorSettingsOf(
  config: Pick<Config, 'serviceErrorCodes' | 'siteRequestStatuses' | 'serviceJwtTtlSeconds' | 'serviceApi'> &
    Partial<Pick<Config, 'watchClockAllowanceSeconds'>>,
): DoctorSettings {
  return {
    ...(config.watchClockAllowanceSeconds !== undefined
      ? { watchClockAllowanceSeconds: config.watchClockAllowanceSeconds }
      : {}),
    errorCodes: loadErrorCodes(config.serviceErrorCodes ?? '{}'),
    siteStatuses: loadSiteRequestStatuses(config.siteRequestStatuses ?? '{}'),
    jwtTtlSeconds: config.serviceJwtTtlSeconds,
    ...(config.serviceErrorCodes ? { serviceErrorCodesJson: config.serviceErrorCodes } : {}),
    ...(config.siteRequestStatuses ? { siteStatusesJson: config.siteRequestStatuses } : {}),
    bodyEncoding: config.serviceApi.bodyEncoding,
    apiCodeIn: config.serviceApi.apiCodeIn,
  };
}
