/**
 * Sending one batch of a registration run, never registering a name twice: the POST (at most
 * MAX_POSTS_PER_BATCH per batch), and the look-ups that settle what a refused, ambiguous or
 * crashed POST did (names found are ours or "registered meanwhile"; only the rest is sent again),
 * with the in-flight grace wait before a batch a dead runner may still have sent. The rules are
 * told in full at the top of ./run.ts.
 */
import { ApiError, AuthError, PermissionError, ServiceError } from '../../../api/errors.js';
import type { Recipient, WatermarkingClient } from '../../../api/types.js';
import { nameKey } from '../../../api/validate.js';
import { logger } from '../../../log.js';
import {
  type FindExistingOptions,
  findExisting,
  isAmbiguousWriteFailure,
  isServiceCondition,
} from '../../recipients.js';
import { type PlannedRecipient, toNewRecipient } from './plan.js';
import type { RegistrationReport, ReportBatch } from './report.js';

/** POSTs per batch at most: the first send and retries after a look-up settled some names. */
export const MAX_POSTS_PER_BATCH = 3;

export interface BatchContext {
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
export class StopSending extends Error {}

export function resolvedLines(report: RegistrationReport, batch: number): Set<number> {
  const s = new Set<number>();
  for (const r of report.registered) if (r.batch === batch) s.add(r.line);
  for (const r of report.skipped) if (r.batch === batch) s.add(r.line);
  return s;
}

export function errorInfo(e: unknown): { kind: string; code?: string; message: string } {
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
export async function runBatch(
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
