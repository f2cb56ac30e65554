/**
 * Resuming a stored registration: the report claimed for a new runner (a new runId, atomically
 * when the repo is an AtomicDocRepo, what Store.docs() returns), or the reason it is not: gone,
 * unreadable, still running (a live runner saved it lately; `force` takes it over anyway), or
 * nothing left to send. `retryFailed` puts the failed rows back to be reconciled and sent again.
 * The claimed report is then run by ./run.ts (`resumeRegistration`).
 */
import type { DocRepo } from '../../../store/types.js';
import { type RegistrationReport, registrationReportSchema } from './report.js';
import { DEFAULT_TTL_MS, isAtomic } from './saver.js';

export type ResumeResult =
  | { ok: true; report: RegistrationReport }
  | { ok: false; reason: 'not-found' | 'corrupt' | 'finished' | 'running'; message: string };

/** How a stored report is claimed. */
export interface ClaimOptions {
  /** Try the failed rows again (each failed batch is reconciled first, so nothing is sent twice). */
  retryFailed?: boolean;
  /**
   * A report still marked `running` is taken over only when it has not been saved for this long
   * (its runner presumably died), default 2 minutes; this keeps a double click or a second replica
   * from running the same report twice. `force` skips the check (an admin who knows it crashed).
   */
  staleAfterMs?: number;
  force?: boolean;
  now?: () => number;
  /** How long the stored report lives. Default 7 days. */
  reportTtlMs?: number;
}

/**
 * Claim the stored report for the runner `runId`: `{ ok: true, report }` is the claimed report,
 * not yet run; a refusal says why it cannot be resumed.
 */
export async function claimReport(
  reportRepo: DocRepo<RegistrationReport>,
  workspaceKey: string,
  reportId: string,
  runId: string,
  opts: ClaimOptions = {},
): Promise<ResumeResult> {
  const now = opts.now ?? Date.now;
  const staleAfter = opts.staleAfterMs ?? 120_000;
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
  return { ok: true, report: parsed.data };
}
