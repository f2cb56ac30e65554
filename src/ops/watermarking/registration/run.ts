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
 */
import { randomUUID } from 'node:crypto';
import pLimit from 'p-limit';
import { z } from 'zod';
import { ApiError, AuthError, PermissionError, ServiceError } from '../../../api/errors.js';
import type { Recipient, WatermarkingClient } from '../../../api/types.js';
import { nameKey } from '../../../api/validate.js';
import { logger } from '../../../log.js';
import type { AtomicDocRepo, DocRepo } from '../../../store/types.js';
import { writeCsv } from '../../csv.js';
import {
  type FindExistingOptions,
  findExisting,
  isAmbiguousWriteFailure,
  isServiceCondition,
} from '../../recipients.js';
import { type PlannedRecipient, type RegistrationPlan, toNewRecipient } from './plan.js';

// ---------------------------------------------------------------------------------------------
// Report shape (stored; validated with zod when read back)
// ---------------------------------------------------------------------------------------------

const plannedSchema = z.object({ line: z.number(), name: z.string(), description: z.string().optional() });
const errorInfoSchema = z.object({ kind: z.string(), code: z.string().optional(), message: z.string() });

const batchSchema = z.object({
  index: z.number().int().nonnegative(),
  /** pending: not sent. sending: a POST may be in flight (or was, before a crash). */
  state: z.enum(['pending', 'sending', 'done', 'failed']),
  entries: z.array(plannedSchema),
  attempts: z.number().int().nonnegative(),
  error: errorInfoSchema.optional(),
  /** When this batch was last marked `sending` (epoch ms): how recent a crashed POST may be. */
  sentAt: z.number().optional(),
});

const registeredSchema = z.object({
  line: z.number(),
  name: z.string(),
  dwmId: z.number(),
  batch: z.number(),
  /** True when confirmed by a look-up after an ambiguous failure rather than by the POST answer. */
  reconciled: z.boolean(),
});

const skippedSchema = z.object({
  line: z.number(),
  name: z.string(),
  reason: z.enum(['already-registered', 'registered-meanwhile', 'duplicate-in-input', 'invalid']),
  detail: z.string(),
  dwmId: z.number().optional(),
  batch: z.number().optional(),
});

const failedSchema = z.object({
  line: z.number(),
  name: z.string(),
  batch: z.number(),
  kind: z.string(),
  code: z.string().optional(),
  message: z.string(),
});

export const registrationReportSchema = z.object({
  version: z.literal(1),
  id: z.string(),
  siteId: z.string(),
  status: z.enum(['running', 'completed', 'interrupted']),
  /** Id of the runner currently (or last) working on the report. */
  runId: z.string().optional(),
  interruptedReason: z.string().optional(),
  startedAt: z.string(),
  updatedAt: z.string(),
  finishedAt: z.string().optional(),
  batches: z.array(batchSchema),
  registered: z.array(registeredSchema),
  skipped: z.array(skippedSchema),
  failed: z.array(failedSchema),
});

export type RegistrationReport = z.infer<typeof registrationReportSchema>;
export type ReportBatch = z.infer<typeof batchSchema>;
export type RegisteredRow = z.infer<typeof registeredSchema>;
export type SkippedRow = z.infer<typeof skippedSchema>;
export type FailedRow = z.infer<typeof failedSchema>;

export interface ReportCounts {
  registered: number;
  alreadyRegistered: number;
  registeredMeanwhile: number;
  duplicatesInInput: number;
  invalid: number;
  failed: number;
  /** Entries of batches not finished (pending, or sending when interrupted). */
  outstanding: number;
  batchesTotal: number;
  batchesDone: number;
  batchesFailed: number;
}

export function reportCounts(r: RegistrationReport): ReportCounts {
  const skip = (reason: SkippedRow['reason']) => r.skipped.filter((s) => s.reason === reason).length;
  const resolved = new Set<number>();
  for (const x of r.registered) resolved.add(x.line);
  for (const x of r.skipped) resolved.add(x.line);
  for (const x of r.failed) resolved.add(x.line);
  let outstanding = 0;
  for (const b of r.batches) {
    if (b.state === 'pending' || b.state === 'sending') {
      for (const e of b.entries) if (!resolved.has(e.line)) outstanding++;
    }
  }
  return {
    registered: r.registered.length,
    alreadyRegistered: skip('already-registered'),
    registeredMeanwhile: skip('registered-meanwhile'),
    duplicatesInInput: skip('duplicate-in-input'),
    invalid: skip('invalid'),
    failed: r.failed.length,
    outstanding,
    batchesTotal: r.batches.length,
    batchesDone: r.batches.filter((b) => b.state === 'done').length,
    batchesFailed: r.batches.filter((b) => b.state === 'failed').length,
  };
}

/** A fresh report for a plan: every batch pending, the plan's skips recorded. */
export function newReport(
  plan: RegistrationPlan,
  siteId: string,
  id: string,
  nowIso: string,
): RegistrationReport {
  const skipped: SkippedRow[] = [];
  for (const a of plan.alreadyRegistered) {
    skipped.push({
      line: a.line,
      name: a.name,
      reason: 'already-registered',
      dwmId: a.dwmId,
      detail:
        a.registeredAs === a.name
          ? `Already registered (DWM ID ${a.dwmId}).`
          : `Already registered as "${a.registeredAs}" (DWM ID ${a.dwmId}); names ignore upper/lower case.`,
    });
  }
  for (const d of plan.duplicatesInInput) {
    skipped.push({
      line: d.line,
      name: d.name,
      reason: 'duplicate-in-input',
      detail: `Same name as line ${d.firstLine} (names ignore upper/lower case).`,
    });
  }
  for (const i of plan.invalid) {
    skipped.push({ line: i.line, name: i.raw.trim(), reason: 'invalid', detail: i.reasons.join(' ') });
  }
  return {
    version: 1,
    id,
    siteId,
    status: 'running',
    startedAt: nowIso,
    updatedAt: nowIso,
    batches: plan.batches.map((entries, index) => ({
      index,
      state: 'pending',
      entries: entries.map((e) => ({ ...e })),
      attempts: 0,
    })),
    registered: [],
    skipped,
    failed: [],
  };
}

// ---------------------------------------------------------------------------------------------
// Running
// ---------------------------------------------------------------------------------------------

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

const DEFAULT_TTL_MS = 7 * 24 * 3600 * 1000;

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

export type ResumeResult =
  | { ok: true; report: RegistrationReport }
  | { ok: false; reason: 'not-found' | 'corrupt' | 'finished' | 'running'; message: string };

export interface ResumeOptions extends Omit<RunOptions, 'reportRepo' | 'workspaceKey' | 'reportId'> {
  /** Try the failed rows again (each failed batch is reconciled first, so nothing is sent twice). */
  retryFailed?: boolean;
  /**
   * A report still marked `running` is taken over only when it has not been saved for this long
   * (its runner presumably died), default 2 minutes; this keeps a double click or a second replica
   * from running the same report twice. `force` skips the check (an admin who knows it crashed).
   */
  staleAfterMs?: number;
  force?: boolean;
}

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
  const now = opts.now ?? Date.now;
  const staleAfter = opts.staleAfterMs ?? 120_000;
  const runId = randomUUID();
  let refusal: Extract<ResumeResult, { ok: false }> | undefined;
  let claimed: RegistrationReport | undefined;
  try {
    const claim = (old: RegistrationReport | undefined): RegistrationReport | undefined => {
      refusal = undefined;
      if (old === undefined) {
        refusal = {
          ok: false,
          reason: 'not-found',
          message: `No registration report ${reportId} (it may have expired).`,
        };
        return undefined;
      }
      const parsed = registrationReportSchema.safeParse(old);
      if (!parsed.success) {
        refusal = {
          ok: false,
          reason: 'corrupt',
          message: `The stored registration report ${reportId} is unreadable.`,
        };
        return old;
      }
      const r = parsed.data;
      const age = now() - Date.parse(r.updatedAt);
      if (r.status === 'running' && !opts.force && age < staleAfter) {
        refusal = {
          ok: false,
          reason: 'running',
          message: 'This registration is still running; wait for it to finish or stop before resuming it.',
        };
        return old;
      }
      if (opts.retryFailed) {
        const failedLines = new Set(r.failed.map((f) => f.line));
        r.failed = [];
        for (const b of r.batches) {
          if (b.state === 'failed' || b.entries.some((e) => failedLines.has(e.line))) {
            b.state = 'sending';
            delete b.error;
          }
        }
      }
      if (!r.batches.some((b) => b.state === 'pending' || b.state === 'sending')) {
        refusal = {
          ok: false,
          reason: 'finished',
          message: 'Nothing is left to send for this registration.',
        };
        return old;
      }
      r.status = 'running';
      r.runId = runId;
      r.updatedAt = new Date(now()).toISOString();
      delete r.interruptedReason;
      delete r.finishedAt;
      return r;
    };
    if (isAtomic(reportRepo)) {
      claimed = await reportRepo.update(workspaceKey, reportId, claim);
    } else {
      // A plain DocRepo (tests, simple stores): read-check-write, not atomic across replicas.
      const next = claim(await reportRepo.get(workspaceKey, reportId));
      if (!refusal && next)
        await reportRepo.put(workspaceKey, reportId, next, opts.reportTtlMs ?? DEFAULT_TTL_MS);
      claimed = next;
    }
  } catch {
    return {
      ok: false,
      reason: 'corrupt',
      message: `The stored registration report ${reportId} is unreadable.`,
    };
  }
  if (refusal) return refusal;
  const parsed = registrationReportSchema.safeParse(claimed);
  if (!parsed.success || parsed.data.runId !== runId) {
    return { ok: false, reason: 'running', message: 'Another runner took over this registration.' };
  }
  const done = await execute(client, parsed.data, { ...opts, reportRepo, workspaceKey, reportId });
  return { ok: true, report: done };
}

function isAtomic<T>(repo: DocRepo<T>): repo is AtomicDocRepo<T> {
  return typeof (repo as Partial<AtomicDocRepo<T>>).update === 'function';
}

/**
 * Coalescing writer of the report. `save()` resolves once a write that STARTED after the caller's
 * change (so its snapshot carries it) has ended, with that write's outcome (true: stored), so a
 * caller that needs the change to be durable (the `sending` mark before a POST) can rely on it.
 * Generations, not a dirty flag: with a flag, a caller whose change was picked up by a write that
 * another caller started returned as soon as the flag was cleared, before that write had ended,
 * and the POST went out while its `sending` mark was still on its way to the store (a kill -9 then
 * left the batch `pending` and the next resume sent all of it again).
 */
class Saver {
  private writing: Promise<void> | null = null;
  /** Generation of the latest change asked to be saved. */
  private requested = 0;
  /** Generation covered by the last finished write, and that write's outcome. */
  private doneGen = 0;
  private doneOk = false;
  constructor(private readonly write: () => Promise<boolean>) {}
  async save(): Promise<boolean> {
    const mine = ++this.requested;
    for (;;) {
      if (this.doneGen >= mine) return this.doneOk;
      if (this.writing) {
        await this.writing;
        continue;
      }
      const covers = this.requested; // the snapshot is taken synchronously by write() below
      this.writing = this.write()
        .then(
          (ok) => ok,
          () => false,
        )
        .then((ok) => {
          this.doneGen = covers;
          this.doneOk = ok;
        })
        .finally(() => {
          this.writing = null;
        });
      await this.writing;
    }
  }
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
  const ttl = opts.reportTtlMs ?? DEFAULT_TTL_MS;

  let stopReason: string | undefined;
  const saver = new Saver(async () => {
    report.updatedAt = new Date(now()).toISOString();
    if (!reportRepo || !workspaceKey) return true;
    const snapshot = structuredClone(report);
    try {
      if (isAtomic(reportRepo)) {
        // Ownership check and write in one step: a runner that another one took over (forced
        // resume, or a stale-looking report) must neither overwrite the new runner's progress
        // nor send anything more. An absent document (first save of a fresh run) is ours.
        let lost = false;
        await reportRepo.update(
          workspaceKey,
          report.id,
          (old) => {
            lost = old !== undefined && old.runId !== undefined && old.runId !== snapshot.runId;
            return lost ? old : snapshot;
          },
          ttl,
        );
        if (lost) {
          stopReason ??= 'Another runner took over this registration; this one stopped without sending more.';
          return false;
        }
      } else {
        await reportRepo.put(workspaceKey, report.id, snapshot, ttl);
      }
      return true;
    } catch (e) {
      warn('could not store the registration report', e);
      return false;
    }
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

/** POSTs per batch at most: the first send and retries after a look-up settled some names. */
export const MAX_POSTS_PER_BATCH = 3;

interface BatchContext {
  client: WatermarkingClient;
  siteId: string;
  report: RegistrationReport;
  lookup: FindExistingOptions;
  now: () => number;
  sleep: (ms: number) => Promise<void>;
  inFlightGraceMs: number;
  /** When this runner started (its claim of the report), epoch ms. */
  startedAt: number;
  /** Stores the report and says whether this runner still owns it and may POST. */
  mayStillSend: () => Promise<boolean>;
}

/** Thrown inside a batch when the runner must not send any more (see mayStillSend). */
class StopSending extends Error {}

function resolvedLines(report: RegistrationReport, batch: number): Set<number> {
  const s = new Set<number>();
  for (const r of report.registered) if (r.batch === batch) s.add(r.line);
  for (const r of report.skipped) if (r.batch === batch) s.add(r.line);
  return s;
}

function errorInfo(e: unknown): { kind: string; code?: string; message: string } {
  if (e instanceof ApiError) {
    const code = (e as { code?: unknown }).code;
    const serviceMessage = (e as { serviceMessage?: unknown }).serviceMessage;
    return typeof code === 'string'
      ? { kind: e.kind, code, message: typeof serviceMessage === 'string' ? serviceMessage : e.message }
      : { kind: e.kind, message: e.message };
  }
  return { kind: 'unexpected', message: e instanceof Error ? e.message : String(e) };
}

/**
 * Settle one batch. Throws only when a reconciliation look-up fails (the batch stays `sending`)
 * or on auth/permission refusals; every other outcome is recorded in the report.
 */
async function runBatch(
  ctx: BatchContext,
  b: ReportBatch,
  entries: PlannedRecipient[],
  reconcileFirst: { previousSentAt: number | undefined } | undefined,
): Promise<void> {
  const { report } = ctx;
  /** Entries for which a POST may have been applied: an exact-case match on look-up is ours. */
  const maybeOurs = new Set<string>();
  let remaining = entries;

  if (reconcileFirst) {
    // The crashed run's POST may still be going through the service: nothing is sent before a
    // look-up that STARTED at least the grace time after this runner's start (its claim, which
    // comes after the old runner died or was given up). Never counted from the stored sentAt
    // alone: sentAt is written before the old runner's store write and POST, which on a loaded
    // machine can take longer than the grace, so "sentAt + grace" may be long past while the old
    // POST is still queued in the service. And never decided by a look-up that started earlier
    // and merely ended late: the old POST may land between its pages (newest first).
    for (const e of remaining) maybeOurs.add(nameKey(e.name));
    remaining = await reconcileAfterGrace(ctx, b, remaining, maybeOurs, ctx.startedAt);
  }

  // At most MAX_POSTS_PER_BATCH POSTs per batch: the first send and retries after reconciliation.
  let lastError: unknown;
  let ambiguousFailures = 0;
  // The runner's ownership (and the durable `sending` mark) is checked again before every POST
  // that does not follow the mark at once: after the grace wait or a retry's look-up another
  // runner may have taken the report over.
  let recheck = reconcileFirst !== undefined;
  for (let attempt = 0; attempt < MAX_POSTS_PER_BATCH && remaining.length > 0; attempt++) {
    if (recheck && !(await ctx.mayStillSend())) throw new StopSending();
    recheck = true;
    try {
      const created = await ctx.client.registerRecipients(ctx.siteId, remaining.map(toNewRecipient));
      const byKey = new Map<string, Recipient>();
      for (const r of created) byKey.set(nameKey(r.name), r);
      const missing: PlannedRecipient[] = [];
      for (const e of remaining) {
        const r = byKey.get(nameKey(e.name));
        if (r)
          report.registered.push({
            line: e.line,
            name: r.name,
            dwmId: r.dwmId,
            batch: b.index,
            reconciled: false,
          });
        else missing.push(e);
      }
      // An answer without some of the names sent: look them up rather than guess.
      for (const e of missing) maybeOurs.add(nameKey(e.name));
      remaining = missing.length > 0 ? await reconcile(ctx, b, missing, maybeOurs, 'auto') : [];
      lastError = missing.length > 0 ? new Error('The service did not confirm these names.') : undefined;
      break;
    } catch (e) {
      lastError = e;
      if (e instanceof AuthError || e instanceof PermissionError) throw e;
      if (e instanceof ServiceError) {
        // A refusal: nothing of this POST was applied. Whatever its code, look the names up: the
        // ones found are duplicates (registered meanwhile, or by an earlier attempt of this run).
        const before = remaining.length;
        const code = e.code;
        remaining = await reconcile(ctx, b, remaining, maybeOurs, 'list');
        if (remaining.length < before) {
          if (!isServiceCondition(e, 'duplicateRecipient')) {
            logger.info(
              { code, found: before - remaining.length },
              'a registration refusal with this code was a duplicate (names found by look-up)',
            );
          }
          continue;
        }
        break; // none of the names exists: a real refusal, reported with the service's code
      }
      if (isAmbiguousWriteFailure(e)) {
        // The POST timed out or broke after sending: it may still be queued in the service. Only
        // a look-up started the grace time after the failure decides what is sent again.
        for (const x of remaining) maybeOurs.add(nameKey(x.name));
        remaining = await reconcileAfterGrace(ctx, b, remaining, maybeOurs, ctx.now());
        // One re-send after an ambiguous failure (the service may be struggling), as before.
        if (++ambiguousFailures > 1) break;
        continue;
      }
      if (!(e instanceof ApiError)) {
        // Unknown failure: it may have been applied. Settle by look-up, but don't send again.
        for (const x of remaining) maybeOurs.add(nameKey(x.name));
        remaining = await reconcile(ctx, b, remaining, maybeOurs, 'auto');
      }
      break; // validation, other service refusals, non-ambiguous transport: not applied, not retried
    }
  }

  if (remaining.length > 0) {
    const info = errorInfo(lastError ?? new Error('Not registered.'));
    for (const e of remaining) {
      report.failed.push({ line: e.line, name: e.name, batch: b.index, ...info });
    }
    b.state = 'failed';
    b.error = info;
  } else {
    b.state = 'done';
    delete b.error;
  }
}

/**
 * Reconcile so that what is still missing was decided by a look-up that started at or after
 * `since + inFlightGraceMs`: one look-up, and when it started earlier and missed names, a wait
 * until then and a second one. Returns the entries still absent.
 */
async function reconcileAfterGrace(
  ctx: BatchContext,
  b: ReportBatch,
  entries: PlannedRecipient[],
  maybeOurs: Set<string>,
  since: number,
): Promise<PlannedRecipient[]> {
  const due = since + ctx.inFlightGraceMs;
  const startedAt = ctx.now();
  const rest = await reconcile(ctx, b, entries, maybeOurs, 'auto');
  if (rest.length === 0 || startedAt >= due) return rest;
  const wait = due - ctx.now();
  if (wait > 0) await ctx.sleep(Math.min(wait, ctx.inFlightGraceMs));
  return reconcile(ctx, b, rest, maybeOurs, 'auto');
}

/**
 * Look the entries up; record the found ones (registered if the POST may have been ours and the
 * case matches exactly, else "registered meanwhile") and return the ones still absent.
 */
async function reconcile(
  ctx: BatchContext,
  b: ReportBatch,
  entries: PlannedRecipient[],
  maybeOurs: Set<string>,
  strategy: 'auto' | 'list',
): Promise<PlannedRecipient[]> {
  if (entries.length === 0) return entries;
  const found = await findExisting(
    ctx.client,
    ctx.siteId,
    entries.map((e) => e.name),
    { ...ctx.lookup, strategy: strategy === 'list' ? 'list' : (ctx.lookup.strategy ?? 'auto') },
  );
  const rest: PlannedRecipient[] = [];
  for (const e of entries) {
    const key = nameKey(e.name);
    const r = found.get(key);
    if (!r) {
      rest.push(e);
    } else if (maybeOurs.has(key) && r.name === e.name) {
      ctx.report.registered.push({
        line: e.line,
        name: r.name,
        dwmId: r.dwmId,
        batch: b.index,
        reconciled: true,
      });
    } else {
      ctx.report.skipped.push({
        line: e.line,
        name: e.name,
        reason: 'registered-meanwhile',
        dwmId: r.dwmId,
        batch: b.index,
        detail:
          r.name === e.name
            ? `Registered by someone else meanwhile (DWM ID ${r.dwmId}).`
            : `Registered meanwhile as "${r.name}" (DWM ID ${r.dwmId}); names ignore upper/lower case.`,
      });
    }
  }
  return rest;
}

// ---------------------------------------------------------------------------------------------
// Presenting
// ---------------------------------------------------------------------------------------------

/** Above this many rows a renderer should attach the CSV instead of listing rows. */
export const REPORT_INLINE_ROWS = 20;

export interface ReportSummary {
  id: string;
  siteId: string;
  status: RegistrationReport['status'];
  interruptedReason?: string;
  counts: ReportCounts;
  /** Failed batches with the service's code and message. */
  failedBatches: Array<{ index: number; kind: string; code?: string; message: string; names: number }>;
  /** Rows in the CSV (every line of the input). */
  rows: number;
  needsCsv: boolean;
}

export function summariseReport(r: RegistrationReport): ReportSummary {
  const counts = reportCounts(r);
  const failedBatches = r.batches
    .filter((b) => b.state === 'failed')
    .map((b) => ({
      index: b.index,
      kind: b.error?.kind ?? 'unknown',
      ...(b.error?.code ? { code: b.error.code } : {}),
      message: b.error?.message ?? '',
      names: r.failed.filter((f) => f.batch === b.index).length,
    }));
  const rows = r.registered.length + r.skipped.length + r.failed.length;
  return {
    id: r.id,
    siteId: r.siteId,
    status: r.status,
    ...(r.interruptedReason ? { interruptedReason: r.interruptedReason } : {}),
    counts,
    failedBatches,
    rows,
    needsCsv: rows > REPORT_INLINE_ROWS,
  };
}

interface CsvRow {
  line: number;
  name: string;
  outcome: string;
  dwmId?: number;
  detail: string;
}

/** The whole report as CSV, one row per input line, ordered by line. */
export function reportCsv(r: RegistrationReport): string {
  const rows: CsvRow[] = [];
  for (const x of r.registered) {
    rows.push({
      line: x.line,
      name: x.name,
      outcome: 'registered',
      dwmId: x.dwmId,
      detail: x.reconciled ? 'Confirmed by a look-up after a network error.' : '',
    });
  }
  for (const x of r.skipped) {
    rows.push({
      line: x.line,
      name: x.name,
      outcome: x.reason,
      ...(x.dwmId ? { dwmId: x.dwmId } : {}),
      detail: x.detail,
    });
  }
  for (const x of r.failed) {
    rows.push({
      line: x.line,
      name: x.name,
      outcome: 'failed',
      detail: x.code ? `${x.code}: ${x.message}` : x.message,
    });
  }
  rows.sort((a, b) => a.line - b.line);
  return writeCsv<CsvRow>(
    [
      { header: 'line', value: (x) => x.line },
      { header: 'name', value: (x) => x.name },
      { header: 'outcome', value: (x) => x.outcome },
      { header: 'dwm_id', value: (x) => x.dwmId ?? '' },
      { header: 'detail', value: (x) => x.detail },
    ],
    rows,
  );
}
