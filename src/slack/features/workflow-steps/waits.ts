/**
 * The Slack side of durable workflow waits: the port the job watcher completes them through
 * (src/watch/job-waits.ts: a pending wait is a consumer of the watcher; the watch runtime takes
 * this port from the feature's `jobWaits`).
 * - complete / fail: functions.completeSuccess / functions.completeError with the workspace's
 *   BOT token and the stored function_execution_id (Slack allows bot tokens to call them without
 *   a scope, so a step completes after a restart or on another replica, when the event's
 *   short-lived function token is gone); refused naming the token type, once more with the
 *   event's token while this process holds it (kit/interactions/step-completion.ts);
 * - jobOutputs: a finished job's outputs, worded as the job status step's (ops layer);
 * - check: a registration wait's stored report (its DM report message gives the report link);
 * - timeoutMessage: the step's error when a wait reaches its deadline (what / why / next);
 * - onFinished: the audit entry naming the workflow and the user it ran for.
 */
import type { WebClient } from '@slack/web-api';
import { audit } from '../../../ops/audit.js';
import { loadRun } from '../../../ops/watermarking/registration/records.js';
import { checkRegistrationWait, jobStatusOutputs } from '../../../ops/workflow-steps.js';
import type { WorkspaceKey } from '../../../store/types.js';
import {
  type CompletionOutcome,
  type CompletionPort,
  createWaitCompleter,
  type JobWait,
  type WaitCheck,
  type WaitCompleter,
  type WaitsPort,
} from '../../../watch/job-waits.js';
import type { AppDeps } from '../../deps.js';
import { nextStepCommand } from '../../kit/blocks/next-step.js';
import { mirrorAuditLine } from '../../kit/context/channels/audit-mirror.js';
import { botClientFor } from '../../kit/context/support.js';
import { callWithStepToken, slackErrorCode } from '../../kit/interactions/step-completion.js';
import { auditWho } from '../../kit/interactions/steps.js';
import { registrationReportGoneError } from './step-words.js';

/**
 * Errors of functions.complete* meaning the execution is already finished (completed earlier,
 * by a previous process that died before recording it, or cancelled by its workflow): nothing
 * is left to send, so the wait is done.
 */
const FINISHED_ERRORS = new Set(['function_execution_not_found', 'execution_not_in_running_state']);

export function completionPort(deps: AppDeps): CompletionPort {
  const send = async (
    wait: JobWait,
    call: (c: WebClient) => Promise<unknown>,
  ): Promise<CompletionOutcome> => {
    // The workspace's bot token; the event's once more if Slack refuses its type (kit/interactions/step-completion.ts).
    const workspace = await botClientFor(deps, wait.workspace);
    try {
      await callWithStepToken(deps, { executionId: wait.executionId, workspace }, call);
      return 'sent';
    } catch (err) {
      const code = slackErrorCode(err);
      if (code && FINISHED_ERRORS.has(code)) return 'alreadyCompleted';
      throw err;
    }
  };
  return {
    complete: (wait, outputs) =>
      send(wait, (c) => c.functions.completeSuccess({ function_execution_id: wait.executionId, outputs })),
    fail: (wait, error) =>
      send(wait, (c) => c.functions.completeError({ function_execution_id: wait.executionId, error })),
  };
}

/** Permalink of a registration's DM report message ('' when it has none). */
async function reportLink(deps: AppDeps, wait: JobWait): Promise<string> {
  const run = await loadRun(deps, wait.workspace as WorkspaceKey, wait.target);
  if (!run?.channel || !run.ts) return '';
  const client = await botClientFor(deps, wait.workspace);
  const r = await client?.chat
    .getPermalink({ channel: run.channel, message_ts: run.ts })
    .catch(() => undefined);
  return r?.permalink ?? '';
}

/** A registration wait: finished when its stored report says so (with the report link). */
async function checkWait(deps: AppDeps, wait: JobWait): Promise<WaitCheck> {
  if (wait.kind !== 'registration') return { done: false };
  const r = await checkRegistrationWait(deps, wait);
  if (r.done && !r.ok && 'reportGone' in r)
    return { done: true, ok: false, error: registrationReportGoneError(wait.siteId) };
  if (r.done && r.ok) return { ...r, outputs: { ...r.outputs, report_link: await reportLink(deps, wait) } };
  return r;
}

/** Audit entry of a finished wait, naming the workflow and the user it ran for. */
async function auditFinished(deps: AppDeps, wait: JobWait, outcome: CompletionOutcome): Promise<void> {
  const ok = wait.result?.ok === true;
  const what =
    wait.kind === 'job' ? `wait for job ${wait.target}` : `register recipients (report ${wait.target})`;
  const detail = `${what}, ${auditWho(wait)}: ${ok ? 'completed' : `failed: ${wait.result && !wait.result.ok ? wait.result.error.slice(0, 200) : ''}`}${outcome === 'alreadyCompleted' ? ' (Slack had it already)' : ''}`;
  await audit(
    { ...deps },
    wait.workspace as WorkspaceKey,
    {
      userId: wait.userId ?? 'workflow',
      action: wait.kind === 'job' ? 'workflow.wait-job' : 'workflow.register',
      detail,
      result: ok ? 'ok' : 'error',
      siteId: wait.siteId,
    },
    async (channel, e) => {
      const client = await botClientFor(deps, wait.workspace);
      if (client) mirrorAuditLine(deps, wait.workspace, channel, e, () => client);
    },
  );
}

/** Message of a wait that reached its deadline (what / why / next). */
export function waitTimeoutMessage(
  wait: Pick<JobWait, 'kind' | 'target' | 'siteId' | 'deadline' | 'createdAt'>,
): string {
  const hours = Math.round(((wait.deadline - wait.createdAt) / 3_600_000) * 10) / 10;
  const within = `${hours} hour${hours === 1 ? '' : 's'}`;
  if (wait.kind === 'job') {
    const look = nextStepCommand({ do: 'job', job: wait.target, site: wait.siteId });
    return `Job ${wait.target} on site ${wait.siteId} did not finish within ${within}, so the wait step stopped. The job itself keeps running: check it with ${look}, and give the step a longer timeout if jobs take longer.`;
  }
  return `The registration on site ${wait.siteId} did not finish within ${within}, so the step stopped. The registration itself goes on and its report is sent to the requester by direct message.`;
}

/** The port the job watcher serves workflow waits through (`Feature.jobWaits`, see ./index.ts). */
export function workflowWaitsPort(deps: AppDeps): WaitsPort {
  return {
    ...completionPort(deps),
    jobOutputs: jobStatusOutputs,
    check: (wait) => checkWait(deps, wait),
    timeoutMessage: waitTimeoutMessage,
    onFinished: (wait, outcome) => auditFinished(deps, wait, outcome),
  };
}

/**
 * Completes a wait from a step in this process (a registration that just ended), through the
 * same per-wait lease and claim as the watcher's items: never a second completion.
 */
export function workflowWaitCompleter(deps: AppDeps): WaitCompleter {
  return createWaitCompleter({
    store: deps.store,
    port: workflowWaitsPort(deps),
    onError: (message, err, wait) =>
      deps.logger.warn({ err, executionId: wait?.executionId, workspace: wait?.workspace }, message),
  });
}
