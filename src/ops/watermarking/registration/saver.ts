/**
 * The report's durable saves for one runner: a coalescing writer whose `save()` says when the
 * caller's change is stored (the `sending` mark before a POST relies on it), and on an atomic
 * repo the ownership check of every save (a runner that was taken over neither overwrites the new
 * runner's progress nor sends more).
 */
import type { AtomicDocRepo, DocRepo } from '../../../store/types.js';
import type { RegistrationReport } from './report.js';

/** How long a stored report lives by default: 7 days. */
export const DEFAULT_TTL_MS = 7 * 24 * 3600 * 1000;

export function isAtomic<T>(repo: DocRepo<T>): repo is AtomicDocRepo<T> {
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
export class Saver {
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

export interface ReportSaverOptions {
  reportRepo: DocRepo<RegistrationReport> | undefined;
  workspaceKey: string | undefined;
  ttlMs: number;
  now: () => number;
  warn: (message: string, err: unknown) => void;
  /** Another runner owns the stored report now: this one must stop sending. */
  onTakenOver: () => void;
}

/** The Saver of a runner's report (updatedAt stamped on every save: the runner's lease). */
export function reportSaver(report: RegistrationReport, o: ReportSaverOptions): Saver {
  const { reportRepo, workspaceKey, ttlMs: ttl } = o;
  return new Saver(async () => {
    report.updatedAt = new Date(o.now()).toISOString();
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
          o.onTakenOver();
          return false;
        }
      } else {
        await reportRepo.put(workspaceKey, report.id, snapshot, ttl);
      }
      return true;
    } catch (e) {
      o.warn('could not store the registration report', e);
      return false;
    }
  });
}
