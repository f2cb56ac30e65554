/**
 * A Slack event over the request gate's body limit (./http-gate.ts answers it 413 and hands over
 * the body's two ends). A Workflow Builder step whose `function_executed` event is that large
 * (inputs of megabytes) would otherwise wait until Slack gives up on the workflow: when Slack
 * signed the body and its ends name the step's execution, the step is completed with an error
 * (functions.completeError with the workspace's bot token) that says why and what to do. Otherwise
 * the workflow and execution ids that could be read are logged (marked unverified when the body
 * was not signed: nothing is done for an unsigned request).
 *
 * The ids are read with literal-led patterns whose quantifiers never overlap on at most 2 x 64 KB (linear).
 * In Slack's envelope the workspace (`team_id`) and the event `type` come first, the step's
 * `function_execution_id` and `workflow_execution_id` after its `inputs`, near the end: both
 * ends are searched. A key inside a JSON string value has escaped quotes and is never matched.
 */
import type { AppDeps } from './deps.js';
import type { OversizedRequest } from './http-gate.js';
import { botClientFor } from './kit/context/support.js';

export interface OversizedEventIds {
  type?: string;
  teamId?: string;
  enterpriseId?: string;
  isEnterpriseInstall: boolean;
  functionExecutionId?: string;
  workflowExecutionId?: string;
  callbackId?: string;
}

function last(re: RegExp, ...texts: string[]): string | undefined {
  let found: string | undefined;
  for (const t of texts) for (const m of t.matchAll(re)) found = m[1];
  return found;
}

function first(re: RegExp, ...texts: string[]): string | undefined {
  for (const t of texts) {
    const m = re.exec(t);
    if (m) return m[1];
  }
  return undefined;
}

/** The ids the two ends of an oversized event body name. */
export function oversizedEventIds(head: string, tail: string): OversizedEventIds {
  const ends = tail ? [head, tail] : [head];
  const fx = last(/"function_execution_id"\s*:\s*"([A-Za-z0-9]{1,64})"/g, ...ends);
  const wx = last(/"workflow_execution_id"\s*:\s*"([A-Za-z0-9]{1,64})"/g, ...ends);
  const type =
    first(/"event"\s*:\s*\{\s*"type"\s*:\s*"([a-z_]{1,64})"/, head) ??
    (/"type"\s*:\s*"function_executed"/.test(head) || /"type"\s*:\s*"function_executed"/.test(tail)
      ? 'function_executed'
      : undefined);
  const teamId = first(/"team_id"\s*:\s*"([A-Z0-9]{1,32})"/, head, tail);
  const enterpriseId = first(/"enterprise_id"\s*:\s*"(E[A-Z0-9]{1,31})"/, head, tail);
  const callbackId = first(/"callback_id"\s*:\s*"([A-Za-z0-9_]{1,64})"/, head, tail);
  return {
    ...(type ? { type } : {}),
    ...(teamId ? { teamId } : {}),
    ...(enterpriseId ? { enterpriseId } : {}),
    isEnterpriseInstall:
      /"is_enterprise_install"\s*:\s*true/.test(head) || /"is_enterprise_install"\s*:\s*true/.test(tail),
    ...(fx ? { functionExecutionId: fx } : {}),
    ...(wx ? { workflowExecutionId: wx } : {}),
    ...(callbackId ? { callbackId } : {}),
  };
}

/** The step's error (plain text, as Workflow Builder shows it). */
export function oversizedStepText(size: number, limit: number): string {
  const mb = (n: number) => `${(n / (1024 * 1024)).toFixed(1)} MB`;
  return `Couldn't run this step: its event from Slack was ${mb(size)}, over the ${mb(limit)} the bot accepts (the step's inputs are too large). Make the inputs smaller, e.g. split a long recipient list over several runs, then run the workflow again.`;
}

/** The gate's `onOversized`: fail the step when the body is Slack's and names it; log otherwise. */
export function oversizedEventHandler(deps: AppDeps, limit: number): (r: OversizedRequest) => Promise<void> {
  return async (r) => {
    const ids = oversizedEventIds(r.head, r.tail);
    const logIds = {
      path: r.path,
      bytes: r.size,
      signed: r.signed,
      type: ids.type,
      teamId: ids.teamId,
      functionExecutionId: ids.functionExecutionId,
      workflowExecutionId: ids.workflowExecutionId,
      callbackId: ids.callbackId,
    };
    const step = ids.type === 'function_executed' || ids.functionExecutionId !== undefined;
    if (!step) return;
    if (!r.signed || !ids.functionExecutionId) {
      deps.logger.warn(
        logIds,
        r.signed
          ? 'a workflow step event over the body limit names no execution: the step was not completed'
          : 'an unverified workflow step event over the body limit (not signed, or not read to its end): ids as read, nothing done',
      );
      return;
    }
    const workspace = ids.isEnterpriseInstall && ids.enterpriseId ? ids.enterpriseId : (ids.teamId ?? '');
    const client = workspace ? await botClientFor(deps, workspace).catch(() => undefined) : undefined;
    if (!client) {
      deps.logger.error(
        logIds,
        'a workflow step event over the body limit: no bot token for its workspace, the step was not completed',
      );
      return;
    }
    try {
      await client.functions.completeError({
        function_execution_id: ids.functionExecutionId,
        error: oversizedStepText(r.size, limit),
      });
      deps.logger.warn(
        logIds,
        'a workflow step event over the body limit: the step was failed with the reason',
      );
    } catch (err) {
      deps.logger.error(
        { ...logIds, err },
        'a workflow step event over the body limit: functions.completeError failed',
      );
    }
  };
}
