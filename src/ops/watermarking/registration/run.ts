/**
 * Bulk recipient registration, the running half: send the plan's batches (<= 150 each, a few at a
 * time), keep a RegistrationReport up to date after every batch, persist it so a restart can
 * resume, and never let one failed batch hide the ones that worked.
 *
 * Safety against double registration. The HTTP layer never retries a POST blindly. When a batch
 * fails in a way that may still have been applied (timeout or connection reset after sending, 5xx,
 * an unreadable answer: see isAmbiguousWriteFailure), the runner reconciles: it looks the batch's
 * names up (findExisting); names now present count as registered with their dwmIds; only the rest
 * is sent again, once. Names are unique per site (case-insensitively, spec rule 3), so a name that
 * was in fact registered is either found by the look-up or refused as a duplicate by the service:
 * it can never be registered twice. A batch is marked `sending` in the store BEFORE its POST, so a
 * crash mid-request leaves a trace and resume reconciles that batch first instead of re-sending it.
 * When that mark cannot be stored, nothing is sent (the run stops, interrupted, for a later resume).
 * "Stored" means a write that started after the mark was set has ENDED (see Saver): with several
 * batches in flight, a coalesced save used to return while the write carrying the mark was still
 * running, so a kill -9 right after the POST left the batch `pending` and the next resume sent all
 * 150 names again without looking (the root cause of a kill -9 fault-test flake under load).
 *
 * Resume after a crash (kill -9) and the POST of the dead runner. The API has no idempotency key
 * and no way to ask whether a request is still being processed, so the resumer reads the batch's
 * names upstream (the recipient search/list of spec 4.5) and sends only the missing ones, and only
 * after a grace time (inFlightGraceMs: REGISTRATION_INFLIGHT_GRACE_SECONDS, default 5 s) counted
 * from ITS OWN start, then a second look-up. The dead runner's request was sent before it died, hence before this runner started:
 * the assumption left is that a service applies or drops a request within that grace after the
 * sender is gone. (Counting the grace from the stored sentAt alone was wrong: sentAt is taken
 * before the store write and the POST, which on a loaded machine take longer than the grace, so a
 * resumer could look, miss the still-queued batch and send all 150 names again.)
 *
 * One runner per report. resumeRegistration claims the report atomically (new runId); every
 * later save of a runner is an atomic update that first checks the stored runId, so a runner
 * that was taken over (a forced resume, or a report that looked stale) neither overwrites the
 * new runner's progress nor sends anything more: its ownership is checked before every POST.
 * The report's updatedAt is the runner's lease: a heartbeat (heartbeatMs, default 30 s) re-saves
 * it while batches are in flight, so a slow batch never makes a live runner look dead to a
 * non-forced resume (staleAfterMs, default 2 min). On a plain DocRepo (no atomic update) these
 * ownership checks are not available: one process only.
 *
 * Duplicates are decided by looking the names up, never by an error code alone: the specs list no
 * error codes, and a real service may answer a duplicate with any code (the configurable table of
 * src/api/error-codes.ts maps the usual one to `duplicateRecipient`, but nothing depends on it).
 * So ANY service refusal of a batch is re-checked by listing the site's recipients (not keyword
 * search, whose case handling the spec leaves open): names found are reported as "registered
 * meanwhile" (or as ours, when an earlier attempt of this run may have registered them) and the
 * remainder is sent again, at most MAX_POSTS_PER_BATCH POSTs per batch. Only when the look-up
 * finds none of the names is the refusal reported as the batch's failure. One name registered by
 * someone else never fails the other names of its batch, and a name this run registered is never
 * reported as failed.
 *
 * Where it lives (src/ops/watermarking/registration/): this module runs a plan or a claimed report
 * (batches a few at a time, the heartbeat, the final status); `batch.ts` sends one batch and
 * settles it by look-up; `saver.ts` stores the report with the ownership check; `resume.ts`
 * claims a stored report; `report.ts` is the stored report and its counts; `summary.ts` presents
 * it (summary, CSV).
 */
import { randomUUID } from 'node:crypto';
import pLimit from 'p-limit';
import { AuthError, PermissionError } from '../../../api/errors.js';
import type { WatermarkingClient } from '../../../api/types.js';
import { logger } from '../../../log.js';
import type { DocRepo } from '../../../store/types.js';
import type { FindExistingOptions } from '../../recipients.js';
import { type BatchContext, errorInfo, resolvedLines, runBatch, StopSending } from './batch.js';
import type { RegistrationPlan } from './plan.js';
import { newReport, type RegistrationReport, type ReportBatch } from './report.js';
import { type ClaimOptions, claimReport, type ResumeResult } from './resume.js';
import { DEFAULT_TTL_MS, reportSaver } from './saver.js';

export { MAX_POSTS_PER_BATCH } from './batch.js';
export {
  type FailedRow,
  newReport,
  type RegisteredRow,
  type RegistrationReport,
  type ReportBatch,
  type ReportCounts,
  registrationReportSchema,
  reportCounts,
  type SkippedRow,
} from './report.js';
export type { ResumeResult } from './resume.js';
export { REPORT_INLINE_ROWS, type ReportSummary, reportCsv, summariseReport } from './summary.js';

export interface RunOptions {
  /** Batches in flight at once. Default 4. */
  concurrency?: number;
  /** Called after every batch with the live report (read it, don't change it). Errors are ignored. */
  onProgress?: (report: RegistrationReport) => unknown;
  /** Where the report is kept so a restart can resume. Requires workspaceKey. */
  reportRepo?: DocRepo<RegistrationReport>;
  workspaceKey?: string;
  /** Id of the report document; default a random UUID. */
  reportId?: string;
  /** How long the stored report lives. Default 7 days. */
  reportTtlMs?: number;
  /** Options of the findExisting look-ups used for reconciliation. */
  lookup?: FindExistingOptions;
  now?: () => number;
  /** Warnings (e.g. the store failing); never given secrets. Default: the process logger. */
  onWarning?: (message: string, err: unknown) => void;
  /**
   * How long a POST of a crashed run may still be processed by the service after the crash, ms
   * (default 5000). A `sending` batch whose look-up misses names within this time of its last
   * send waits until it has passed and looks again before sending anything: the request of the
   * dead process may still be on its way through the service.
   */
  inFlightGraceMs?: number;
  /** Waits (tests). Default setTimeout. */
  sleep?: (ms: number) => Promise<void>;
  /**
   * How often the stored report is re-saved while batches are in flight, ms (default 30000; 0
   * turns it off). Keep it well under a resumer's staleAfterMs (default 120000).
   */
  heartbeatMs?: number;
}

/** Run a plan from scratch. */
export async function runRegistration(
  client: WatermarkingClient,
  siteId: string,
  plan: RegistrationPlan,
  opts: RunOptions = {},
): Promise<RegistrationReport> {
  const now = opts.now ?? Date.now;
  const report = newReport(plan, siteId, opts.reportId ?? randomUUID(), new Date(now()).toISOString());
  report.runId = randomUUID();
  return execute(client, report, opts);
}

export type ResumeOptions = Omit<RunOptions, 'reportRepo' | 'workspaceKey' | 'reportId'> & ClaimOptions;

/**
 * Continue an interrupted run from its stored report: pending batches are sent; batches left in
 * `sending` (a crash or stop mid-request) are reconciled first. Done batches are never re-sent.
 * The report is claimed atomically when the repo is an AtomicDocRepo (what Store.docs() returns),
 * so only one runner continues it.
 */
export async function resumeRegistration(
  client: WatermarkingClient,
  reportRepo: DocRepo<RegistrationReport>,
  workspaceKey: string,
  reportId: string,
  opts: ResumeOptions = {},
): Promise<ResumeResult> {
  const claimed = await claimReport(reportRepo, workspaceKey, reportId, randomUUID(), opts);
  if (!claimed.ok) return claimed;
  const done = await execute(client, claimed.report, { ...opts, reportRepo, workspaceKey, reportId });
  return { ok: true, report: done };
}

async function execute(
  client: WatermarkingClient,
  report: RegistrationReport,
  opts: RunOptions,
): Promise<RegistrationReport> {
  const now = opts.now ?? Date.now;
  const warn =
    opts.onWarning ?? ((message: string, err: unknown) => logger.warn({ err, reportId: report.id }, message));
  const { reportRepo, workspaceKey } = opts;
  if (reportRepo && !workspaceKey) throw new Error('runRegistration: reportRepo needs a workspaceKey');
  const siteId = report.siteId;

  let stopReason: string | undefined;
  const saver = reportSaver(report, {
    reportRepo,
    workspaceKey,
    ttlMs: opts.reportTtlMs ?? DEFAULT_TTL_MS,
    now,
    warn,
    onTakenOver: () => {
      stopReason ??= 'Another runner took over this registration; this one stopped without sending more.';
    },
  });
  const progress = () => {
    if (!opts.onProgress) return;
    try {
      const r = opts.onProgress(report);
      if (r instanceof Promise) r.catch((e) => warn('progress callback failed', e));
    } catch (e) {
      warn('progress callback failed', e);
    }
  };

  const ctx: BatchContext = {
    client,
    siteId,
    report,
    lookup: opts.lookup ?? {},
    now,
    sleep: opts.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms))),
    inFlightGraceMs: opts.inFlightGraceMs ?? 5_000,
    startedAt: now(),
    mayStillSend: async () => (await saver.save()) && !stopReason,
  };

  const runOne = async (b: ReportBatch) => {
    if (stopReason) return;
    const resolved = resolvedLines(report, b.index);
    const entries = b.entries.filter((e) => !resolved.has(e.line));
    const reconcileFirst = b.state === 'sending';
    const previousSentAt = b.sentAt;
    b.state = 'sending';
    b.sentAt = now();
    b.attempts++;
    // Durable before the POST: a crash now leaves `sending`, never a blind re-send. When the mark
    // could not be stored (store down, or another runner owns the report now), nothing is sent:
    // a POST the store knows nothing about would be re-sent blindly by the next resume.
    const marked = await saver.save();
    if (!marked || stopReason) {
      stopReason ??=
        'The progress store could not be written before sending a batch; resume once it is back.';
      return;
    }
    try {
      await runBatch(ctx, b, entries, reconcileFirst ? { previousSentAt } : undefined);
    } catch (e) {
      if (e instanceof AuthError || e instanceof PermissionError) {
        // Nothing was accepted (the service refused the caller); stop and let resume continue
        // once the credentials are fixed. `sending` makes resume reconcile, which is harmless.
        stopReason ??= `The service refused the credentials (${e.kind === 'auth' ? 'HTTP 401' : 'HTTP 403'}); fix the setup and resume.`;
        b.error = errorInfo(e);
      } else if (e instanceof StopSending) {
        // Taken over or the store is down: leave the batch `sending` for whoever resumes it.
        stopReason ??=
          'The progress store could not be written before sending a batch; resume once it is back.';
      } else {
        // The look-up needed to settle an ambiguous failure failed too: leave the batch `sending`
        // so resume settles it later, and carry on with the others.
        b.error = errorInfo(e);
      }
    }
    await saver.save();
    progress();
  };

  const limit = pLimit(Math.max(1, opts.concurrency ?? 4));
  const todo = report.batches.filter((b) => b.state === 'pending' || b.state === 'sending');
  // Heartbeat: the report's updatedAt is the runner's lease (resume takes over a `running` report
  // only after staleAfterMs without a save). A batch can take long (look-ups, the in-flight grace
  // wait, a slow POST, a loaded machine), so the lease is renewed on a timer, not only per batch.
  const heartbeatMs = opts.heartbeatMs ?? 30_000;
  const heartbeat =
    reportRepo && heartbeatMs > 0
      ? setInterval(() => {
          void saver.save();
        }, heartbeatMs)
      : undefined;
  heartbeat?.unref();
  try {
    await Promise.all(todo.map((b) => limit(() => runOne(b))));
  } finally {
    if (heartbeat) clearInterval(heartbeat);
  }

  const unsettled = report.batches.filter((b) => b.state === 'pending' || b.state === 'sending');
  if (unsettled.length > 0) {
    report.status = 'interrupted';
    report.interruptedReason =
      stopReason ??
      `${unsettled.length} batch(es) could not be confirmed (${unsettled[0]?.error?.message ?? 'unknown error'}); press Resume on the report to finish.`;
  } else {
    report.status = 'completed';
  }
  report.finishedAt = new Date(now()).toISOString();
  await saver.save();
  progress();
  return report;
}
