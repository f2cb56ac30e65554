/**
 * Running a confirmed registration in the background, and resuming runs after a restart.
 *
 * The run itself, its progress in the user's DM and its final report (CSV, fallback DM, audit)
 * are the kit's (shared/registration/run.ts), shared with the Workflow Builder step: here are the
 * modal's start, the Resume / Retry failed button and the resume at start.
 *
 * The report itself is the runner's (`wm-reports`), stored after every batch; the run record
 * (`wm-reg-runs`) says where to show it, and the pending index lets `resumePendingRegistrations`
 * find unfinished runs at start.
 */
import type { WebClient } from '@slack/web-api';
import type { WatermarkingClient } from '../../../api/types.js';
import type { RegistrationPlan } from '../../../ops/watermarking/registration/plan.js';
import {
  listPending,
  loadRun,
  markPending,
  newDraftId,
  reportRepo,
  resumeRun,
} from '../../../ops/watermarking/registration/records.js';
import { type RegistrationReport, summariseReport } from '../../../ops/watermarking/registration/run.js';
import { workspaceClients } from '../../../ops/workspace.js';
import type { AppDeps } from '../../deps.js';
import type { CommandContext } from '../../kit/context/context.js';
import { botClientFor } from '../../kit/context/support.js';
import type { Lifecycle } from '../../lifecycle.js';
import { registerProgressMessage } from '../../shared/registration/report.js';
import {
  finish,
  registrationStoppedText,
  runRegistrationInBackground,
  updaterFor,
} from '../../shared/registration/run.js';

export { PROGRESS_MIN_INTERVAL_MS } from '../../shared/registration/run.js';

/** The modal's confirm: the workspace's watermarking client, then the shared background run. */
export async function startBackgroundRegistration(
  deps: AppDeps,
  ctx: CommandContext,
  client: WebClient,
  siteId: string,
  plan: RegistrationPlan,
): Promise<RegistrationReport | undefined> {
  let wm: WatermarkingClient;
  try {
    wm = (await ctx.clients()).watermarking();
  } catch (err) {
    ctx.logger.error({ err, refId: ctx.refId }, 'registration run failed');
    await client.chat
      .postMessage({ channel: ctx.userId, text: registrationStoppedText(siteId, ctx.refId) })
      .catch(() => undefined);
    return undefined;
  }
  const r = await runRegistrationInBackground(deps, ctx, {
    client,
    wm,
    siteId,
    plan,
    reportId: newDraftId(),
    userId: ctx.userId,
  });
  return r.ok ? r.report : undefined;
}

/**
 * The Resume / Retry failed button of a report (the run's own user or an admin): claims the
 * stored report (a second click while it runs is refused by the claim: a report saved less than
 * two minutes ago and still running is not taken over), marks it pending (a restart mid-way
 * resumes it), sends what is left (`retryFailed`: the failed batches too, each reconciled first so
 * a name the service registered meanwhile is not sent twice), and shows progress and the final
 * report in place of the message the button was on (the run's DM message). Resolves when it
 * ends; never throws. Returns why nothing ran, if it did not.
 */
export async function resumeFromButton(
  deps: AppDeps,
  ctx: CommandContext,
  client: WebClient,
  reportId: string,
  retryFailed: boolean,
): Promise<{ ok: true; report: RegistrationReport } | { ok: false; message: string }> {
  const logger = ctx.logger;
  try {
    const run = await loadRun(deps, ctx.workspace, reportId);
    if (!run)
      return { ok: false, message: 'This registration report has expired (reports are kept for 7 days).' };
    if (run.userId !== ctx.userId && (await ctx.role()) !== 'admin') {
      return {
        ok: false,
        message: `Only <@${run.userId}>, who started this registration, or an admin can resume it.`,
      };
    }
    const wm = (await ctx.clients()).watermarking();
    await markPending(deps, ctx.workspace, reportId);
    const updater = updaterFor(client, run, logger);
    const r = await resumeRun(deps, ctx.workspace, wm, reportId, {
      retryFailed,
      onProgress: (rep) => updater.push(registerProgressMessage(summariseReport(rep))),
      onWarning: (message, err) => logger.warn({ err, reportId }, message),
    });
    await updater.close();
    if (!r.ok) return { ok: false, message: r.message };
    await finish(deps, client, ctx.workspace, run, r.report, logger);
    return { ok: true, report: r.report };
  } catch (err) {
    logger.error({ err, refId: ctx.refId, reportId }, 'registration resume failed');
    return {
      ok: false,
      message: `The registration could not be resumed because of an unexpected error (reference ${ctx.refId}). Batches already sent are kept.`,
    };
  }
}

export interface ResumeSummary {
  resumed: string[];
  skipped: Array<{ reportId: string; reason: string }>;
  /** Still running elsewhere (or saved moments ago): retried once after the stale time. */
  deferred: string[];
}

/**
 * Resume every registration left unfinished by a previous process (call once at start, after
 * the store is open). Runs one after the other; resolves when all have ended. Reports still
 * marked `running` that were saved less than `staleAfterMs` ago may belong to another replica:
 * they are retried once after that time (timer unref'd, so it never keeps the process alive, and
 * cleared by `opts.lifecycle`'s stop).
 */
export async function resumePendingRegistrations(
  deps: AppDeps,
  opts: {
    staleAfterMs?: number;
    retryDeferred?: boolean;
    /** Where the retry timer registers its stop (main.ts passes the app's lifecycle). */
    lifecycle?: Pick<Lifecycle, 'onStop'>;
  } = {},
): Promise<ResumeSummary> {
  const out: ResumeSummary = { resumed: [], skipped: [], deferred: [] };
  const logger = deps.logger.child({ component: 'registration-resume' });
  const staleAfterMs = opts.staleAfterMs ?? 120_000;
  let pending: Array<{ workspace: string; reportId: string }>;
  try {
    pending = await listPending(deps);
  } catch (err) {
    logger.error({ err }, 'could not read the pending registrations');
    return out;
  }
  for (const p of pending) {
    try {
      const run = await loadRun(deps, p.workspace, p.reportId);
      const client = await botClientFor(deps, p.workspace);
      if (!run || !client) {
        out.skipped.push({ reportId: p.reportId, reason: !run ? 'no run record' : 'no bot token' });
        continue;
      }
      const wm = (await workspaceClients(deps, p.workspace)).watermarking();
      const updater = updaterFor(client, run, logger);
      const r = await resumeRun(deps, p.workspace, wm, p.reportId, {
        staleAfterMs,
        onProgress: (rep) => updater.push(registerProgressMessage(summariseReport(rep))),
        onWarning: (message, err) => logger.warn({ err, reportId: p.reportId }, message),
      });
      await updater.close();
      if (r.ok) {
        out.resumed.push(p.reportId);
        await finish(deps, client, p.workspace, run, r.report, logger);
      } else if (r.reason === 'running') {
        out.deferred.push(p.reportId);
      } else {
        out.skipped.push({ reportId: p.reportId, reason: r.reason });
        // A run that ended (or whose report is gone) still owes the user its final report.
        const report =
          r.reason === 'finished' ? await reportRepo(deps).get(p.workspace, p.reportId) : undefined;
        if (report) await finish(deps, client, p.workspace, run, report, logger);
      }
    } catch (err) {
      logger.error({ err, reportId: p.reportId }, 'could not resume a registration');
      out.skipped.push({ reportId: p.reportId, reason: 'error' });
    }
  }
  if (out.deferred.length > 0 && opts.retryDeferred !== false) {
    // Cleared on stop when a lifecycle is given: no work against a closed store.
    let unregister: (() => void) | undefined;
    const t = setTimeout(() => {
      unregister?.();
      void resumePendingRegistrations(deps, { ...opts, retryDeferred: false });
    }, staleAfterMs + 1000);
    t.unref?.();
    unregister = opts.lifecycle?.onStop('registration resume retry', () => clearTimeout(t));
  }
  logger.info(
    { resumed: out.resumed.length, skipped: out.skipped.length, deferred: out.deferred.length },
    'pending registrations checked',
  );
  return out;
}
