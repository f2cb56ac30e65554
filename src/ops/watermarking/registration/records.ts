/**
 * Glue between the registration planner/runner and a chat front end, with no Slack in it:
 *
 * - Drafts (`wm-drafts`): what the user typed or uploaded, with the plan made from it, stored with
 *   a TTL so "back to edit" keeps the input and confirm sends exactly what was previewed. A modal's
 *   private_metadata holds only the draft id (it is limited to 3000 characters).
 * - Runs (`wm-reg-runs`): where a run's progress is shown (an opaque `channel`/`ts` pair the front
 *   end chose) and who started it, next to the report the runner keeps in `wm-reports`.
 * - The pending index (`wm-reg-index`, one document under the reserved key `_global`): every run
 *   not yet finished, across workspaces, so a restarted process can find and resume them without
 *   scanning every workspace.
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { WatermarkingClient } from '../../../api/types.js';
import type { Store, WorkspaceKey } from '../../../store/types.js';
import { writeCsv } from '../../csv.js';
import type { RegistrationPlan } from './plan.js';
import {
  type RegistrationReport,
  type ResumeOptions,
  type ResumeResult,
  type RunOptions,
  resumeRegistration,
  runRegistration,
} from './run.js';

export const DRAFTS_NAMESPACE = 'wm-drafts';
export const REPORTS_NAMESPACE = 'wm-reports';
export const RUNS_NAMESPACE = 'wm-reg-runs';
export const INDEX_NAMESPACE = 'wm-reg-index';
const INDEX_KEY = '_global';
const INDEX_ID = 'pending';

/** Drafts live one hour: long enough to fix a list, short enough not to keep data around. */
export const DRAFT_TTL_MS = 60 * 60 * 1000;
/** Reports and run records: 7 days (the runner's default). */
export const RUN_TTL_MS = 7 * 24 * 3600 * 1000;

// ---------------------------------------------------------------------------------------------
// Drafts
// ---------------------------------------------------------------------------------------------

const plannedSchema = z.object({ line: z.number(), name: z.string(), description: z.string().optional() });
const planSchema = z.object({
  toRegister: z.array(plannedSchema),
  alreadyRegistered: z.array(
    z.object({ line: z.number(), name: z.string(), dwmId: z.number(), registeredAs: z.string() }),
  ),
  duplicatesInInput: z.array(z.object({ line: z.number(), name: z.string(), firstLine: z.number() })),
  invalid: z.array(z.object({ line: z.number(), raw: z.string(), reasons: z.array(z.string()) })),
  batches: z.array(z.array(plannedSchema)),
  counts: z.object({
    total: z.number(),
    toRegister: z.number(),
    alreadyRegistered: z.number(),
    duplicatesInInput: z.number(),
    invalid: z.number(),
    batches: z.number(),
  }),
});

export const draftSchema = z.object({
  id: z.string(),
  userId: z.string(),
  siteId: z.string(),
  /** What was typed in the text box (<= 3000 characters). */
  text: z.string(),
  /** An uploaded file's content (never written to disk; kept only in the draft, with its TTL). */
  file: z.object({ name: z.string(), content: z.string(), lines: z.number() }).optional(),
  plan: planSchema.optional(),
  createdAt: z.string(),
});
export type RegistrationDraft = z.infer<typeof draftSchema>;

type Deps = {
  store: Store;
  now: () => number;
  /** REGISTRATION_INFLIGHT_GRACE_SECONDS (ms); run.ts's default when absent. */
  config?: { registrationInFlightGraceMs?: number };
};

/** The deployment's in-flight grace for the runner options (absent: run.ts's default). */
function graceOf(deps: Deps): { inFlightGraceMs?: number } {
  const ms = deps.config?.registrationInFlightGraceMs;
  return ms === undefined ? {} : { inFlightGraceMs: ms };
}

function drafts(deps: Deps) {
  return deps.store.docs<RegistrationDraft>(DRAFTS_NAMESPACE, draftSchema);
}

export function newDraftId(): string {
  return randomUUID();
}

export async function saveDraft(
  deps: Deps,
  workspace: WorkspaceKey,
  draft: RegistrationDraft,
): Promise<void> {
  await drafts(deps).put(workspace, draft.id, draft, DRAFT_TTL_MS);
}

/** The draft, only when it belongs to `userId` (another user's draft id reads as missing). */
export async function loadDraft(
  deps: Deps,
  workspace: WorkspaceKey,
  id: string,
  userId: string,
): Promise<RegistrationDraft | undefined> {
  try {
    const d = await drafts(deps).get(workspace, id);
    return d && d.userId === userId ? d : undefined;
  } catch {
    return undefined;
  }
}

export async function deleteDraft(deps: Deps, workspace: WorkspaceKey, id: string): Promise<void> {
  await drafts(deps).delete(workspace, id);
}

/** The text the planner reads: the typed lines, then the file's (a file alone is parsed as CSV). */
export function draftInputs(d: RegistrationDraft): Array<{ text: string; format: 'lines' | 'csv' }> {
  const out: Array<{ text: string; format: 'lines' | 'csv' }> = [];
  if (d.text.trim()) out.push({ text: d.text, format: 'lines' });
  if (d.file) out.push({ text: d.file.content, format: 'csv' });
  return out;
}

/** Every line of the plan that will not be registered, as CSV (line, name, outcome, detail). */
export function planIssuesCsv(plan: RegistrationPlan): string {
  type Row = { line: number; name: string; outcome: string; detail: string };
  const rows: Row[] = [
    ...plan.invalid.map((x) => ({
      line: x.line,
      name: x.raw.trim(),
      outcome: 'invalid',
      detail: x.reasons.join(' '),
    })),
    ...plan.duplicatesInInput.map((x) => ({
      line: x.line,
      name: x.name,
      outcome: 'duplicate-in-input',
      detail: `Same name as line ${x.firstLine}.`,
    })),
    ...plan.alreadyRegistered.map((x) => ({
      line: x.line,
      name: x.name,
      outcome: 'already-registered',
      detail: `DWM ID ${x.dwmId}${x.registeredAs !== x.name ? ` (registered as ${x.registeredAs})` : ''}`,
    })),
  ].sort((a, b) => a.line - b.line);
  return writeCsv<Row>(
    [
      { header: 'line', value: (r) => r.line },
      { header: 'name', value: (r) => r.name },
      { header: 'outcome', value: (r) => r.outcome },
      { header: 'detail', value: (r) => r.detail },
    ],
    rows,
  );
}

// ---------------------------------------------------------------------------------------------
// Runs and the pending index
// ---------------------------------------------------------------------------------------------

export const runRecordSchema = z.object({
  reportId: z.string(),
  siteId: z.string(),
  /** Who started the run or whom it ran for (audit entries, who may resume it). */
  userId: z.string(),
  /**
   * Who is shown the progress and the final report (their DM with the bot), also by a process
   * that resumes the run after a restart: the requester. `null`: nobody (a workflow run that names
   * no person: the step's outputs only). Absent in records written before this field existed: the
   * front end decides from `userId` (shared/registration/run.ts `reportRecipient`).
   */
  dmUserId: z.string().nullable().optional(),
  /** Where progress is shown (front end's choice, e.g. a DM channel id and message ts). */
  channel: z.string().optional(),
  ts: z.string().optional(),
  startedAt: z.string(),
});
export type RunRecord = z.infer<typeof runRecordSchema>;

const indexSchema = z.object({
  items: z.array(z.object({ workspace: z.string(), reportId: z.string() })),
});
type PendingIndex = z.infer<typeof indexSchema>;

export function reportRepo(deps: Deps) {
  return deps.store.docs<RegistrationReport>(REPORTS_NAMESPACE);
}

function runs(deps: Deps) {
  return deps.store.docs<RunRecord>(RUNS_NAMESPACE, runRecordSchema);
}

function index(deps: Deps) {
  return deps.store.docs<PendingIndex>(INDEX_NAMESPACE, indexSchema);
}

export async function saveRun(deps: Deps, workspace: WorkspaceKey, run: RunRecord): Promise<void> {
  await runs(deps).put(workspace, run.reportId, run, RUN_TTL_MS);
}

export async function loadRun(
  deps: Deps,
  workspace: WorkspaceKey,
  reportId: string,
): Promise<RunRecord | undefined> {
  return runs(deps).get(workspace, reportId);
}

export async function markPending(deps: Deps, workspace: WorkspaceKey, reportId: string): Promise<void> {
  await index(deps).update(INDEX_KEY, INDEX_ID, (old) => {
    const items = (old?.items ?? []).filter((i) => !(i.workspace === workspace && i.reportId === reportId));
    items.push({ workspace, reportId });
    return { items };
  });
}

export async function clearPending(deps: Deps, workspace: WorkspaceKey, reportId: string): Promise<void> {
  await index(deps).update(INDEX_KEY, INDEX_ID, (old) => ({
    items: (old?.items ?? []).filter((i) => !(i.workspace === workspace && i.reportId === reportId)),
  }));
}

export async function listPending(deps: Deps): Promise<Array<{ workspace: string; reportId: string }>> {
  return (await index(deps).get(INDEX_KEY, INDEX_ID))?.items ?? [];
}

export type RunHooks = Pick<RunOptions, 'onProgress' | 'concurrency' | 'onWarning'>;

/**
 * Start a run: the run record and the pending mark are stored BEFORE the first batch, so a crash
 * at any point leaves something resumable. The pending mark is cleared when the run ends
 * (completed or interrupted: an interrupted run waits for a person, not for a restart).
 */
export async function startRun(
  deps: Deps,
  workspace: WorkspaceKey,
  client: WatermarkingClient,
  plan: RegistrationPlan,
  run: Omit<RunRecord, 'reportId' | 'startedAt'> & { reportId?: string },
  hooks: RunHooks = {},
): Promise<RegistrationReport> {
  const reportId = run.reportId ?? randomUUID();
  await saveRun(deps, workspace, { ...run, reportId, startedAt: new Date(deps.now()).toISOString() });
  await markPending(deps, workspace, reportId);
  const report = await runRegistration(client, run.siteId, plan, {
    ...graceOf(deps),
    ...hooks,
    reportRepo: reportRepo(deps),
    workspaceKey: workspace,
    reportId,
    reportTtlMs: RUN_TTL_MS,
    now: deps.now,
  });
  // A run that another runner took over is that runner's to finish (and to unmark).
  if (!(await takenOver(deps, workspace, report))) await clearPending(deps, workspace, reportId);
  return report;
}

/** True when the stored report now belongs to another runner than the one that returned `report`. */
async function takenOver(deps: Deps, workspace: WorkspaceKey, report: RegistrationReport): Promise<boolean> {
  try {
    const stored = await reportRepo(deps).get(workspace, report.id);
    return stored?.runId !== undefined && stored.runId !== report.runId;
  } catch {
    return false;
  }
}

/** Resume a stored run; clears the pending mark when it ends or cannot be resumed for good. */
export async function resumeRun(
  deps: Deps,
  workspace: WorkspaceKey,
  client: WatermarkingClient,
  reportId: string,
  opts: ResumeOptions = {},
): Promise<ResumeResult> {
  const r = await resumeRegistration(client, reportRepo(deps), workspace, reportId, {
    ...graceOf(deps),
    reportTtlMs: RUN_TTL_MS,
    now: deps.now,
    ...opts,
  });
  if (r.ok && (await takenOver(deps, workspace, r.report))) {
    // This runner stopped because another one claimed the report: not finished, not ours to
    // unmark or to report on; the caller treats it like a report still running elsewhere.
    return { ok: false, reason: 'running', message: 'Another runner took over this registration.' };
  }
  if (r.ok || r.reason !== 'running') await clearPending(deps, workspace, reportId);
  return r;
}
