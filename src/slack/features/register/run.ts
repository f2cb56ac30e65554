/**
 * Running a confirmed registration in the background, and resuming runs after a restart.
 *
 * Progress goes to a message in the user's DM with the bot, updated in place with chat.update
 * (chosen over the response_url: a response_url lasts 30 minutes and 5 uses, too little for
 * 10,000 names; chat.postEphemeral cannot be updated; a DM message can be updated any time and
 * its channel/ts are stored with the run, so a restarted process updates the same message).
 * Updates are coalesced (at most one in flight, at most one a second); the final report always
 * replaces the progress, and when it has more rows than a screenful the full CSV follows in the DM.
 *
 * The report itself is the runner's (`wm-reports`), stored after every batch; the run record
 * (`wm-reg-runs`) says where to show it, and the pending index lets `resumePendingRegistrations`
 * find unfinished runs at start.
 */
import type { WebClient } from '@slack/web-api';
import { audit } from '../../../ops/audit.js';
import type { RegistrationPlan } from '../../../ops/watermarking/registration/plan.js';
import {
  listPending,
  loadRun,
  markPending,
  newDraftId,
  type RunRecord,
  reportRepo,
  resumeRun,
  startRun,
} from '../../../ops/watermarking/registration/records.js';
import {
  newReport,
  type RegistrationReport,
  reportCsv,
  summariseReport,
} from '../../../ops/watermarking/registration/run.js';
import { workspaceClients } from '../../../ops/workspace.js';
import type { WorkspaceKey } from '../../../store/types.js';
import { appSender } from '../../background-sender.js';
import type { AppDeps } from '../../deps.js';
import type { Message } from '../../kit/blocks.js';
import { auditLine, type CommandContext } from '../../kit/context.js';
import { uploadFile } from '../../kit/files.js';
import { botClientFor } from '../../kit/support.js';
import type { Lifecycle } from '../../lifecycle.js';
import { registerAuditDetail, registerProgressMessage, registerReportMessage } from './render.js';

/** Minimum time between two progress updates of the same message. */
export const PROGRESS_MIN_INTERVAL_MS = 1000;

interface Logger {
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

/** Coalescing chat.update: the latest state wins; close() waits so the final report lands last. */
class ProgressUpdater {
  private latest: Message | undefined;
  private timer: NodeJS.Timeout | undefined;
  private inflight: Promise<void> | undefined;
  private last = 0;
  private closed = false;
  constructor(
    private readonly send: (m: Message) => Promise<void>,
    private readonly logger: Logger,
  ) {}
  push(m: Message): void {
    if (this.closed) return;
    this.latest = m;
    this.schedule();
  }
  private schedule(): void {
    if (this.timer || this.inflight || this.closed) return;
    const wait = Math.max(0, this.last + PROGRESS_MIN_INTERVAL_MS - Date.now());
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.flush();
    }, wait);
    this.timer.unref?.();
  }
  private flush(): void {
    if (this.closed || !this.latest) return;
    const m = this.latest;
    this.latest = undefined;
    this.last = Date.now();
    this.inflight = this.send(m)
      .catch((err: unknown) => this.logger.warn({ err }, 'registration progress update failed'))
      .finally(() => {
        this.inflight = undefined;
        if (this.latest) this.schedule();
      });
  }
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.inflight;
  }
}

function updaterFor(client: WebClient, run: Pick<RunRecord, 'channel' | 'ts'>, logger: Logger) {
  return new ProgressUpdater(async (m) => {
    if (!run.channel || !run.ts) return;
    await client.chat.update({ channel: run.channel, ts: run.ts, text: m.text, blocks: m.blocks });
  }, logger);
}

/** Show the final report in place of the progress, attach the CSV when long, audit. */
async function finish(
  deps: AppDeps,
  client: WebClient,
  workspace: WorkspaceKey,
  run: RunRecord,
  report: RegistrationReport,
  logger: Logger,
): Promise<void> {
  const summary = summariseReport(report);
  const msg = registerReportMessage({ summary, report, csvAttached: summary.needsCsv, workspace });
  try {
    if (run.channel && run.ts) {
      await client.chat.update({
        channel: run.channel,
        ts: run.ts,
        text: msg.text,
        blocks: msg.blocks,
      });
    } else {
      await client.chat.postMessage({ channel: run.userId, text: msg.text, blocks: msg.blocks });
    }
  } catch (err) {
    // The report is stored, but the user must see it: when the update still fails
    // after the client's retries, it goes to the user's DM as a new message through the paced
    // background queue (retried on 429 and transient errors).
    logger.warn(
      { err, reportId: report.id },
      'final registration report not shown in place: queued to the DM',
    );
    appSender(deps).send(
      workspace,
      run.userId,
      { text: msg.text, ...(msg.blocks ? { blocks: msg.blocks } : {}) },
      () => client,
      'registration report',
    );
  }
  try {
    if (summary.needsCsv && run.channel) {
      await uploadFile(client, run.channel, {
        filename: `registration-${report.siteId}-${report.id.slice(0, 8)}.csv`,
        content: reportCsv(report),
        title: `Registration report ${report.id.slice(0, 8)}`,
      });
    }
  } catch (err) {
    logger.error({ err, reportId: report.id }, 'could not deliver the registration report');
  }
  await audit(
    { ...deps, logger: deps.logger },
    workspace,
    {
      userId: run.userId,
      action: 'recipient.register',
      detail: registerAuditDetail(summary),
      result: summary.status === 'completed' && summary.counts.failed === 0 ? 'ok' : 'error',
      siteId: report.siteId,
    },
    async (channel, e) => {
      // Queued and paced like every audit line.
      appSender(deps).send(workspace, channel, { text: auditLine(e) }, () => client, `audit ${e.action}`);
    },
  ).catch((err: unknown) => logger.error({ err }, 'could not audit the registration'));
}

/**
 * Post the progress message in the user's DM, then run the plan. Resolves when the run ends
 * (callers do not await it past the ack). Never throws.
 */
export async function startBackgroundRegistration(
  deps: AppDeps,
  ctx: CommandContext,
  client: WebClient,
  siteId: string,
  plan: RegistrationPlan,
): Promise<RegistrationReport | undefined> {
  const logger = ctx.logger;
  try {
    const c = await ctx.clients();
    const wm = c.watermarking();
    const reportId = newDraftId();
    const first = registerProgressMessage(
      summariseReport(newReport(plan, siteId, reportId, new Date(deps.now()).toISOString())),
    );
    const posted = await client.chat.postMessage({
      channel: ctx.userId,
      text: first.text,
      blocks: first.blocks,
    });
    const run: RunRecord = {
      reportId,
      siteId,
      userId: ctx.userId,
      ...(posted.channel ? { channel: posted.channel } : {}),
      ...(posted.ts ? { ts: posted.ts } : {}),
      startedAt: new Date(deps.now()).toISOString(),
    };
    const updater = updaterFor(client, run, logger);
    const report = await startRun(deps, ctx.workspace, wm, plan, run, {
      onProgress: (r) => updater.push(registerProgressMessage(summariseReport(r))),
      onWarning: (message, err) => logger.warn({ err, reportId }, message),
    });
    await updater.close();
    await finish(deps, client, ctx.workspace, run, report, logger);
    return report;
  } catch (err) {
    logger.error({ err, refId: ctx.refId }, 'registration run failed');
    await client.chat
      .postMessage({
        channel: ctx.userId,
        text: `:warning: The registration on site ${siteId} stopped because of an unexpected error (reference ${ctx.refId}). Batches already sent are kept; the rest will be resumed when the bot restarts.`,
      })
      .catch(() => undefined);
    return undefined;
  }
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
