/**
 * The registration report, the document a run keeps up to date after every batch and stores so a
 * restart can resume (`wm-reports`): its shape (validated with zod when read back), the counts
 * every front end shows, and a fresh report for a plan. A change to what a report records lives
 * here.
 */
import { z } from 'zod';
import type { RegistrationPlan } from './plan.js';

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
