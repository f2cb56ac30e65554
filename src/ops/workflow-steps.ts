/**
 * What each Workflow Builder step does, as plain results (no Slack): the Slack feature
 * (src/slack/features/workflow-steps) turns inputs into calls here and results into the step's
 * outputs. Every step reuses the operation the commands use:
 *
 * - Register recipients: the modal's parser, validation, duplicate detection (in the list and
 *   against the site) and planner; the run is the modal's (shared/registration/run.ts: batches of
 *   150, report stored after every batch, resumed after a restart), and the step's result is read
 *   from the stored report: completed -> outputs, stopped before the end -> an error. The
 *   3000-character limit of the modal's text box is not applied: a workflow variable is not a
 *   text box; the entry cap is.
 * - Job status: the job and its tasks as `/dwm job` reads them, summarised by `summariseJob`.
 * - Trial extension: `requestChange(..., 'trial')` as `/drm plan trial` (role from PLAN_ACTIONS),
 *   tracked like the command's (request-outcomes.ts) when the step names who it runs for, so that
 *   person gets the outcome DM when the provider decides.
 *
 * Output names match the manifest's `functions` section (snake_case).
 */
import { JOB_STATUS, JOB_TERMINAL } from '../api/codes.js';
import { ValidationError } from '../api/errors.js';
import type { Job, JobTask, ServiceClient, WatermarkingClient } from '../api/types.js';
import type { WorkspaceKey } from '../store/types.js';
import type { JobWait, WaitCheck } from '../watch/job-waits.js';
import { listedTasksNote, reportedTaskTotal, summariseJob } from './jobs.js';
import { existingLookup } from './recipients.js';
import { type RequestOutcomeDeps, requestChangeTracked } from './request-outcomes.js';
import { PLAN_ACTIONS, type PlanRole, parseServiceCode, requestChange } from './service/index.js';
import {
  checkEntryCount,
  parseRecipientInput,
  planRegistration,
  type RegistrationPlan,
} from './watermarking/registration/plan.js';
import { reportRepo } from './watermarking/registration/records.js';
import { type RegistrationReport, reportCounts } from './watermarking/registration/run.js';
import type { OpsDeps } from './workspace.js';

/** A step input a person must fix (shown as the step's error: what / why / next). */
export class StepInputError extends Error {
  constructor(
    message: string,
    readonly next: string,
  ) {
    super(message);
    this.name = 'StepInputError';
  }
}

/** Most names listed in a text output (Workflow Builder variables are meant to be read). */
export const MAX_LISTED_NAMES = 200;

function nameList(names: readonly string[]): string {
  const shown = names.slice(0, MAX_LISTED_NAMES);
  const more = names.length - shown.length;
  return shown.join('\n') + (more > 0 ? `\n…and ${more} more (see the report)` : '');
}

// ---------------------------------------------------------------------------------------------
// 1. Register recipients
// ---------------------------------------------------------------------------------------------

export interface RegistrationOutputs extends Record<string, unknown> {
  registered_count: number;
  skipped_count: number;
  failed_count: number;
  failed_names: string;
}

/** Parse, validate and plan (same rules as the modal). Throws StepInputError for bad input. */
export async function planStepRegistration(
  wm: WatermarkingClient,
  siteId: string,
  recipients: string,
): Promise<RegistrationPlan> {
  const parsed = parseRecipientInput(recipients, 'auto');
  if (parsed.entries.length + parsed.errors.length === 0) {
    throw new StepInputError(
      'The recipients input is empty.',
      'Fill the "Recipients" input with one name per line (optionally name,description).',
    );
  }
  const tooMany = checkEntryCount(parsed);
  if (tooMany) throw new StepInputError(tooMany, 'Split the list over several workflow runs.');
  return planRegistration(parsed, existingLookup(wm, siteId));
}

/**
 * Names of a report not settled yet: in batches still pending or being sent (a run that stopped
 * before the end), without the lines a batch already resolved.
 */
function outstandingNames(report: RegistrationReport): string[] {
  const resolved = new Set<number>();
  for (const x of report.registered) resolved.add(x.line);
  for (const x of report.skipped) resolved.add(x.line);
  for (const x of report.failed) resolved.add(x.line);
  const out: Array<{ line: number; name: string }> = [];
  for (const b of report.batches) {
    if (b.state !== 'pending' && b.state !== 'sending') continue;
    for (const e of b.entries) if (!resolved.has(e.line)) out.push(e);
  }
  return out.sort((a, b) => a.line - b.line).map((e) => e.name);
}

/**
 * The step's outputs from a report. Skipped = already registered + duplicates + invalid. Failed
 * counts and lists the same names: those the service refused, then any not sent (none once a
 * run completed; a step whose run stopped early fails instead, see `interruptedStepError`).
 */
export function registrationOutputs(report: RegistrationReport): RegistrationOutputs {
  const c = reportCounts(report);
  const notRegistered = [
    ...[...report.failed].sort((a, b) => a.line - b.line).map((f) => f.name),
    ...outstandingNames(report),
  ];
  return {
    registered_count: c.registered,
    skipped_count: c.alreadyRegistered + c.registeredMeanwhile + c.duplicatesInInput + c.invalid,
    failed_count: notRegistered.length,
    failed_names: nameList(notRegistered),
  };
}

/**
 * The step's error for a run that stopped before the end (interrupted: credentials refused, the
 * progress store down, batches that could not be confirmed). Chosen over completing with the
 * names not sent as "failed": the next steps of a workflow run on success, and a workflow that
 * goes on after a partial registration as if all went well is the outcome to avoid. What is left
 * can be finished with Resume on the DM report, or by running the workflow again (names
 * registered already are found and skipped, never sent twice).
 */
export function interruptedStepError(report: RegistrationReport, requester: boolean): string {
  const c = reportCounts(report);
  const reason = (report.interruptedReason ?? 'no reason was recorded').trim().replace(/\.+$/, '');
  const where = requester
    ? 'press Resume on the report the bot sent the requester by direct message, or run the workflow again'
    : 'run the workflow again';
  return `Couldn't register all the recipients: the registration on site ${report.siteId} stopped before the end: ${reason}. ${c.registered} registered, ${c.outstanding} not sent yet, ${c.failed} failed. Once the cause is fixed, ${where} (names registered already are skipped, never sent twice).`;
}

/**
 * A registration wait's check: a WaitCheck, or its report gone (kept 7 days), so the result
 * cannot be given (the Slack layer words the step's error: where to check the recipients).
 */
export type RegistrationWaitCheck = WaitCheck | { done: true; ok: false; reportGone: true };

/** The wait check of a registration step: finished when its stored report says so. */
export async function checkRegistrationWait(
  deps: Pick<OpsDeps, 'store' | 'now'>,
  wait: JobWait,
): Promise<RegistrationWaitCheck> {
  const report = await reportRepo(deps).get(wait.workspace, wait.target);
  if (!report) return { done: true, ok: false, reportGone: true };
  if (report.status === 'running') return { done: false };
  if (report.status === 'interrupted') {
    return { done: true, ok: false, error: interruptedStepError(report, wait.userId !== undefined) };
  }
  return { done: true, ok: true, outputs: registrationOutputs(report) };
}

// ---------------------------------------------------------------------------------------------
// 2. Job status (and 3. the wait's outputs)
// ---------------------------------------------------------------------------------------------

export interface JobStatusOutputs extends Record<string, unknown> {
  job_id: string;
  status: string;
  content_id: string;
  complete_count: number;
  failed_count: number;
  failed_recipients: string;
  /** "N of M tasks shown" when the service listed fewer tasks than it counts; "" otherwise. */
  tasks_shown: string;
}

export interface JobStatusResult {
  outputs: JobStatusOutputs;
  /** COMPLETED or ERROR. */
  finished: boolean;
}

/** The job status outputs of a job and its tasks (the job status step; a finished wait's). */
export function jobStatusOutputs(
  job: Job,
  tasks: readonly JobTask[],
  reportedTotal?: number,
): JobStatusOutputs {
  const s = summariseJob(job, tasks, { limit: 0, reportedTotal });
  return {
    job_id: String(job.jobId),
    status: JOB_STATUS[job.status] ?? job.status,
    content_id: job.contentId,
    complete_count: s.counts.TK002 ?? 0,
    failed_count: s.failures.length,
    failed_recipients: nameList(s.failures.map((t) => t.recipient)),
    tasks_shown: listedTasksNote(tasks.length, s.reportedTotal) ?? '',
  };
}

export async function jobStatus(
  wm: WatermarkingClient,
  siteId: string,
  jobId: number,
): Promise<JobStatusResult> {
  const [job, tasks] = await Promise.all([wm.getJob(siteId, jobId), wm.getJobTasks(siteId, jobId)]);
  return {
    finished: JOB_TERMINAL.includes(job.status),
    outputs: jobStatusOutputs(job, tasks.items, reportedTaskTotal(tasks)),
  };
}

/** Timeout of the wait step in hours: default 24, at least a minute, at most 30 days. */
export function parseTimeoutHours(raw: unknown, fallback = 24): number {
  if (raw === undefined || raw === null || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 1 / 60 || n > 24 * 30) {
    throw new StepInputError(
      `The timeout "${String(raw).slice(0, 20)}" is not between one minute and 720 hours.`,
      'Give the timeout in hours, e.g. 24 (decimals allowed, e.g. 0.5 for 30 minutes).',
    );
  }
  return n;
}

// ---------------------------------------------------------------------------------------------
// 4. Trial extension
// ---------------------------------------------------------------------------------------------

export interface TrialOutputs extends Record<string, unknown> {
  request_id: string;
  status: string;
}

/** Who may request a trial extension (same rule as `/drm plan trial`). */
export const TRIAL_ROLE: PlanRole = PLAN_ACTIONS.trial.role;

export async function requestTrialExtension(
  svc: ServiceClient,
  siteId: string,
  service: string,
  message: string | undefined,
  /** Track the request for the outcome DM (needs the Slack user the step runs for). */
  track?: { deps: RequestOutcomeDeps; ws: WorkspaceKey; requestedBy: string },
): Promise<TrialOutputs> {
  let code: ReturnType<typeof parseServiceCode>;
  try {
    code = parseServiceCode(service || 'DRM');
  } catch (e) {
    if (e instanceof ValidationError) {
      throw new StepInputError(`"${String(service).slice(0, 20)}" is not a service.`, 'Choose DRM or FWM.');
    }
    throw e;
  }
  const r = track
    ? await requestChangeTracked(track.deps, track.ws, svc, {
        siteId,
        service: code,
        action: 'trial',
        ...(message ? { message } : {}),
        requestedBy: track.requestedBy,
      })
    : await requestChange(svc, siteId, code, 'trial', message);
  return { request_id: r.requestId, status: r.statusLabel };
}
