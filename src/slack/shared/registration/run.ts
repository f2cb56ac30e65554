/**
 * One background registration for every front end that starts one (the register modal's confirm,
 * the Workflow Builder step) and the final report of any run (also a resumed one): the progress
 * message in the user's DM with the bot, updated in place with chat.update (chosen over the
 * response_url: a response_url lasts 30 minutes and 5 uses, too little for 10,000 names;
 * chat.postEphemeral cannot be updated; a DM message can be updated any time and its channel/ts
 * are stored with the run, so a restarted process updates the same message). Updates are
 * coalesced (at most one in flight, at most one a second); the final report always replaces the
 * progress (queued to the DM as a new message when the update fails), the full CSV follows in the
 * DM when it has more rows than a screenful, and the run is audited (`recipient.register`).
 *
 * Shared code of two features, hence in the kit (features never import each other).
 */
import type { WebClient } from '@slack/web-api';
import type { WatermarkingClient } from '../../../api/types.js';
import { audit } from '../../../ops/audit.js';
import type { RegistrationPlan } from '../../../ops/watermarking/registration/plan.js';
import { type RunRecord, reportRepo, startRun } from '../../../ops/watermarking/registration/records.js';
import {
  newReport,
  type RegistrationReport,
  type ReportSummary,
  reportCsv,
  summariseReport,
} from '../../../ops/watermarking/registration/run.js';
import type { WorkspaceKey } from '../../../store/types.js';
import { appSender } from '../../background-sender.js';
import type { AppDeps } from '../../deps.js';
import type { Message } from '../../kit/blocks/blocks.js';
import { SLACK_USER_ID_RE } from '../../kit/blocks/mrkdwn.js';
import { mirrorAuditLine } from '../../kit/context/channels/audit-mirror.js';
import { botIdsOf } from '../../kit/context/support.js';
import { uploadFile } from '../../kit/web/files.js';
import { registerProgressMessage, registerReportMessage } from './report.js';

/** The message with the registration report id, for the audit log. */
export function registerAuditDetail(s: ReportSummary): string {
  const c = s.counts;
  return `register on site ${s.siteId}: ${c.registered} registered, ${c.alreadyRegistered + c.duplicatesInInput + c.invalid + c.registeredMeanwhile} skipped, ${c.failed} failed (report ${s.id}, ${s.status})`;
}

/** Minimum time between two progress updates of the same message. */
export const PROGRESS_MIN_INTERVAL_MS = 1000;

export interface Logger {
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
    // Nothing sent for a second (the first update of a run): send now, not on a timer, so a
    // short run whose batches all end before the next timer tick still shows its progress once.
    if (wait === 0) {
      this.flush();
      return;
    }
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

export function updaterFor(client: WebClient, run: Pick<RunRecord, 'channel' | 'ts'>, logger: Logger) {
  return new ProgressUpdater(async (m) => {
    if (!run.channel || !run.ts) return;
    await client.chat.update({ channel: run.channel, ts: run.ts, text: m.text, blocks: m.blocks });
  }, logger);
}

/**
 * The bot's own user id in a workspace: what the app knows (`botIdsOf`), else auth.test.
 * Undefined when none answers.
 */
async function botUserIdOf(
  deps: AppDeps,
  client: WebClient,
  workspace: WorkspaceKey,
): Promise<string | undefined> {
  const known = (await botIdsOf(deps, workspace)).botUserId;
  if (known) return known;
  const r = await client.auth.test().catch(() => undefined);
  return typeof r?.user_id === 'string' ? r.user_id : undefined;
}

/**
 * Whose DM gets a run's progress and report: the run record's `dmUserId` (null: nobody). A record
 * written before that field: `userId` when its progress message was posted in a DM (a person
 * saw it); otherwise `userId` only when it is a user id and not the bot's own (a workflow run
 * without "Requested by" used to store the bot's user id there). Never the bot itself.
 */
export async function reportRecipient(
  deps: AppDeps,
  client: WebClient,
  workspace: WorkspaceKey,
  run: Pick<RunRecord, 'userId' | 'dmUserId' | 'channel' | 'ts'>,
): Promise<string | undefined> {
  if (run.dmUserId !== undefined) return run.dmUserId ?? undefined;
  if (!SLACK_USER_ID_RE.test(run.userId)) return undefined;
  if (run.channel && run.ts) return run.userId;
  const bot = await botUserIdOf(deps, client, workspace);
  return bot === undefined || bot === run.userId ? undefined : run.userId;
}

/**
 * Show the final report in place of the progress (or in a new DM message to the run's
 * recipient, `reportRecipient`), attach the CSV when long, audit. A run for nobody (a workflow
 * run that names no person) is audited only: the step's outputs carry its result.
 */
export async function finish(
  deps: AppDeps,
  client: WebClient,
  workspace: WorkspaceKey,
  run: RunRecord,
  report: RegistrationReport,
  logger: Logger,
): Promise<void> {
  const summary = summariseReport(report);
  // The full report (every line with its outcome and DWM ID) always follows as a file; the message
  // lists the registered rows too when they are few.
  const withFile = summary.rows > 0 && Boolean(run.channel);
  const msg = registerReportMessage({ summary, report, csvAttached: withFile, workspace });
  const to = await reportRecipient(deps, client, workspace, run).catch((err: unknown) => {
    logger.warn({ err, reportId: report.id }, 'could not tell whom to show the registration report');
    return undefined;
  });
  try {
    if (!to) {
      // Nothing to show: the report is stored (the step's outputs come from it) and audited.
    } else if (run.channel && run.ts) {
      await client.chat.update({
        channel: run.channel,
        ts: run.ts,
        text: msg.text,
        blocks: msg.blocks,
      });
    } else {
      await client.chat.postMessage({ channel: to, text: msg.text, blocks: msg.blocks });
    }
  } catch (err) {
    // The report is stored, but the user must see it: when the update still fails
    // after the client's retries, it goes to the user's DM as a new message through the paced
    // background queue (retried on 429 and transient errors).
    logger.warn(
      { err, reportId: report.id },
      'final registration report not shown in place: queued to the DM',
    );
    if (to)
      appSender(deps).send(
        workspace,
        to,
        { text: msg.text, ...(msg.blocks ? { blocks: msg.blocks } : {}) },
        () => client,
        'registration report',
      );
  }
  try {
    if (to && withFile && run.channel) {
      await uploadFile(
        client,
        run.channel,
        {
          filename: `registration-${report.siteId}-${report.id.slice(0, 8)}.csv`,
          content: reportCsv(report),
          title: `Registration report ${report.id.slice(0, 8)}`,
        },
        { deps, workspace },
      );
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
    // Queued and paced like every audit line.
    async (channel, e) => mirrorAuditLine(deps, workspace, channel, e, () => client),
  ).catch((err: unknown) => logger.error({ err }, 'could not audit the registration'));
}

/** True when the stored report now belongs to another runner than the one that returned `report`. */
async function takenOverElsewhere(
  deps: AppDeps,
  workspace: WorkspaceKey,
  report: RegistrationReport,
): Promise<boolean> {
  const stored = await reportRepo(deps)
    .get(workspace, report.id)
    .catch(() => undefined);
  return stored?.runId !== undefined && stored.runId !== report.runId;
}

/** What the requester is told when a run stops on an unexpected error (the modal's and a step's). */
export function registrationStoppedText(siteId: string, refId: string): string {
  return `:warning: The registration on site ${siteId} stopped because of an unexpected error (reference ${refId}). Batches already sent are kept; the rest will be resumed when the bot restarts.`;
}

/** One background registration: the modal's confirm and the Workflow Builder step both run this. */
/** The request a run starts from (a command's or a workflow step's context). */
export interface RunOrigin {
  workspace: WorkspaceKey;
  logger: Logger;
  /** Reference of the request, named in the error message and the logs. */
  refId: string;
}

export interface BackgroundRegistration {
  /** The workspace's bot client (usable long after the request that started the run). */
  client: WebClient;
  wm: WatermarkingClient;
  siteId: string;
  plan: RegistrationPlan;
  /** The report's id: chosen by the caller (a workflow step stores its wait on it first). */
  reportId: string;
  /** Who the run is for: the progress, the report and an error go to their DM; the audit names them. */
  userId: string;
  /**
   * false when `userId` is no person to write to (a workflow run that names nobody): nothing is
   * posted, also by a process that resumes the run after a restart (the run record stores
   * `dmUserId: null`); the report is stored and audited all the same. Default true.
   */
  dm?: boolean;
}

export type BackgroundOutcome = { ok: true; report: RegistrationReport } | { ok: false; error: unknown };

/**
 * Post the progress message in the user's DM, run the plan with progress updates in place, then
 * show the final report (CSV attached when long, queued to the DM when the update fails) and
 * audit it (`recipient.register`). On an unexpected error the user is told (DM) and the error is
 * returned. Resolves when the run ends (callers do not await it past the ack); never throws.
 */
export async function runRegistrationInBackground(
  deps: AppDeps,
  from: RunOrigin,
  r: BackgroundRegistration,
): Promise<BackgroundOutcome> {
  const { workspace, logger, refId } = from;
  const { client, siteId, reportId } = r;
  const dm = r.dm ?? true;
  try {
    let posted: { channel?: string | undefined; ts?: string | undefined } | undefined;
    if (dm) {
      const first = registerProgressMessage(
        summariseReport(newReport(r.plan, siteId, reportId, new Date(deps.now()).toISOString())),
      );
      // Without the progress message the run still goes on: the report is then posted as a new
      // message at the end.
      posted = await client.chat
        .postMessage({ channel: r.userId, text: first.text, blocks: first.blocks })
        .catch((err: unknown) => {
          logger.warn({ err, reportId }, 'could not post the registration progress message');
          return undefined;
        });
    }
    const run: RunRecord = {
      reportId,
      siteId,
      userId: r.userId,
      // Stored with the run: a process resuming it after a restart shows the report to the same
      // person (or to nobody), never to whoever `userId` happens to be (e.g. the bot itself).
      dmUserId: dm ? r.userId : null,
      ...(posted?.channel ? { channel: posted.channel } : {}),
      ...(posted?.ts ? { ts: posted.ts } : {}),
      startedAt: new Date(deps.now()).toISOString(),
    };
    const updater = updaterFor(client, run, logger);
    const report = await startRun(deps, workspace, r.wm, r.plan, run, {
      onProgress: (rep) => updater.push(registerProgressMessage(summariseReport(rep))),
      onWarning: (message, err) => logger.warn({ err, reportId }, message),
    });
    await updater.close();
    if (await takenOverElsewhere(deps, workspace, report)) {
      // Another runner (a replica or a restarted process that found the run stale) resumed it:
      // that runner shows the final report and audits it, once. This one's "stopped" copy must
      // neither replace the progress message nor write a second audit entry.
      logger.info({ reportId }, 'registration taken over by another runner: it shows the report');
      return { ok: true, report };
    }
    await finish(deps, client, workspace, run, report, logger);
    return { ok: true, report };
  } catch (error) {
    logger.error({ err: error, refId, reportId }, 'registration run failed');
    if (dm) {
      await client.chat
        .postMessage({ channel: r.userId, text: registrationStoppedText(siteId, refId) })
        .catch(() => undefined);
    }
    return { ok: false, error };
  }
}
