/**
 * The bot's operations as Workflow Builder custom steps (callback ids = the manifest's
 * `functions` keys). Each step is one declaration for the kit (src/slack/kit/interactions/steps.ts);
 * what it does is in src/ops/workflow-steps.ts; durable waits in ./waits.ts.
 *
 * - register_recipients: plans at once (same validation and duplicate detection as the modal),
 *   then runs in the background on the modal's own run path (shared/registration/run.ts
 *   `runRegistrationInBackground`: progress and the final report with its CSV in the requester's
 *   DM, the `recipient.register` audit entry, the run resumed after a restart) and completes when
 *   the run ends, through a stored wait so a restart or another replica still completes it. A run
 *   that stops before the end (interrupted, or an unexpected error) fails the step: a workflow
 *   must not go on as if the whole list were registered.
 * - job_status: answers at once.
 * - wait_for_job: answers at once when the job is finished already; otherwise stores a wait
 *   (deadline = now + timeout) that the job watcher serves (src/watch/job-waits.ts): the site is
 *   polled fast while the job is in flight, and the poll that sees it reach COMPLETED / ERROR
 *   completes the step (or the deadline fails it).
 * - request_trial_extension: `/drm plan trial`'s operation and role rule.
 */

import { newDraftId } from '../../../ops/watermarking/registration/records.js';
import {
  jobStatus,
  parseTimeoutHours,
  planStepRegistration,
  requestTrialExtension,
  TRIAL_ROLE,
} from '../../../ops/workflow-steps.js';
import { addWait, KEEP_DONE_MS } from '../../../watch/job-waits.js';
import { DEFAULT_WORKSPACE_LIMITS } from '../../../watch/limits.js';
import type { Feature } from '../../kit/features.js';
import { type StepDeclaration, StepRefusedError } from '../../kit/interactions/steps.js';
import { wakeWatchers } from '../../kit/runtime/hooks.js';
import { runRegistrationInBackground } from '../../shared/registration/run.js';
import { STEP_IDS } from './ids.js';
import { STEP_MANIFEST } from './manifest.js';
import { parseJobId, registrationStoppedError } from './step-words.js';
import { workflowWaitCompleter, workflowWaitsPort } from './waits.js';

export { STEP_IDS } from './ids.js';
export { workflowWaitCompleter, workflowWaitsPort } from './waits.js';

/** How long a registration step may take before it fails (the run itself goes on). */
export const REGISTRATION_WAIT_MS = 7 * 24 * 3_600_000;

/** A step's manifest inputs (types and titles): the kit refuses a value of another type. */
const inputsOf = (id: string) => STEP_MANIFEST[id]?.input_parameters.properties ?? {};

const str = (v: unknown): string =>
  typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v);

export const WORKFLOW_STEPS: readonly StepDeclaration[] = [
  {
    callbackId: STEP_IDS.register,
    effect: 'write',
    inputs: inputsOf(STEP_IDS.register),
    title: 'register the recipients',
    action: 'workflow.register',
    userInput: 'requested_by',
    needs: 'watermarking',
    async run({ ctx, inputs, executionId, workflowExecutionId, userId: requester, workflowUserId, client }) {
      // Who gets the progress and the report: "Requested by", else the workflow's own user (the
      // event's); nobody when neither names a person (the step's outputs only, also after a
      // restart: the run record stores it).
      const userId = requester ?? workflowUserId;
      const clients = await ctx.clients();
      const siteId = clients.site(str(inputs.site).trim() || undefined);
      const wm = clients.watermarking();
      const plan = await planStepRegistration(wm, siteId, str(inputs.recipients));
      const reportId = newDraftId();
      // The wait first: from here on, a restart or another replica completes the step. A
      // redelivered event (same execution id) finds it and starts nothing.
      const created = await addWait(
        ctx.deps.store,
        {
          executionId,
          workspace: ctx.workspace,
          siteId,
          kind: 'registration',
          target: reportId,
          deadline: ctx.deps.now() + REGISTRATION_WAIT_MS,
          ...(userId ? { userId } : {}),
          ...(workflowExecutionId ? { workflowExecutionId } : {}),
        },
        ctx.deps.now,
        KEEP_DONE_MS,
        ctx.deps.config.workspaceLimits?.waits ?? DEFAULT_WORKSPACE_LIMITS.waits,
      );
      if (!created) {
        ctx.logger.info({ executionId }, 'workflow step event delivered again: ignored');
        return { later: true };
      }
      // The modal's run path: progress in the requester's DM (updated in place), the final
      // report with the CSV when long, the fallback DM, the `recipient.register` audit entry.
      const runs = runRegistrationInBackground(ctx.deps, ctx, {
        client,
        wm,
        siteId,
        plan,
        reportId,
        userId: userId ?? ctx.userId,
        dm: userId !== undefined,
      });
      void runs
        .then(async (outcome) => {
          // Through the wait's lease and claim (the watcher may find the same result): once.
          const completer = workflowWaitCompleter(ctx.deps);
          if (outcome.ok) {
            // The stored report decides: completed -> outputs; interrupted -> an error; still
            // running (another runner took it over) -> the watcher completes it when it ends.
            await completer.settle(ctx.workspace, executionId);
          } else {
            await completer.finish(ctx.workspace, executionId, {
              ok: false,
              error: registrationStoppedError(siteId, ctx.refId, userId !== undefined),
            });
          }
        })
        .catch((err: unknown) => ctx.logger.error({ err, executionId }, 'could not complete the step'));
      return { later: true };
    },
  },
  {
    callbackId: STEP_IDS.jobStatus,
    effect: 'read',
    inputs: inputsOf(STEP_IDS.jobStatus),
    title: 'read the job status',
    action: 'workflow.job-status',
    userInput: 'requested_by',
    needs: 'watermarking',
    async run({ ctx, inputs }) {
      const clients = await ctx.clients();
      const siteId = clients.site(str(inputs.site).trim() || undefined);
      const r = await jobStatus(clients.watermarking(), siteId, parseJobId(inputs.job_id));
      return { outputs: r.outputs };
    },
    detail: (_s, o) => `job ${str(o.job_id)} is ${str(o.status)}`,
  },
  {
    callbackId: STEP_IDS.waitForJob,
    effect: 'read',
    inputs: inputsOf(STEP_IDS.waitForJob),
    title: 'wait for the job',
    action: 'workflow.wait-job',
    userInput: 'requested_by',
    needs: 'watermarking',
    async run({ ctx, inputs, executionId, workflowExecutionId, userId }) {
      const clients = await ctx.clients();
      const siteId = clients.site(str(inputs.site).trim() || undefined);
      const jobId = parseJobId(inputs.job_id);
      const hours = parseTimeoutHours(inputs.timeout_hours);
      // The job must exist (a typo fails now, not after the timeout); a finished one answers now.
      const now = await jobStatus(clients.watermarking(), siteId, jobId);
      if (now.finished) return { outputs: now.outputs };
      await addWait(
        ctx.deps.store,
        {
          executionId,
          workspace: ctx.workspace,
          siteId,
          kind: 'job',
          target: String(jobId),
          deadline: ctx.deps.now() + Math.round(hours * 3_600_000),
          ...(userId ? { userId } : {}),
          ...(workflowExecutionId ? { workflowExecutionId } : {}),
        },
        ctx.deps.now,
        KEEP_DONE_MS,
        ctx.deps.config.workspaceLimits?.waits ?? DEFAULT_WORKSPACE_LIMITS.waits,
      );
      // The watcher of this process polls the site at once (others see it at their next listing).
      wakeWatchers(ctx.deps, ctx.workspace, siteId);
      return { later: true };
    },
    detail: (_s, o) => `job ${str(o.job_id)} was ${str(o.status)} already`,
  },
  {
    callbackId: STEP_IDS.trial,
    effect: 'write',
    inputs: inputsOf(STEP_IDS.trial),
    title: 'request a trial extension',
    action: 'workflow.plan-trial',
    userInput: 'requested_by',
    needs: 'service',
    async run({ ctx, inputs, userId }) {
      // "Requested by" is whatever the workflow's builder put there, not proof of who runs it:
      // it names the user in the audit log, never grants a role. Were trial requests admin-only,
      // the step would be refused outright (the command checks the signed user instead).
      if (TRIAL_ROLE === 'admin') {
        throw new StepRefusedError(
          "Couldn't request a trial extension: only workspace admins may, and a workflow step cannot show who runs it. Ask an admin to run /drm plan trial.",
        );
      }
      const clients = await ctx.clients();
      const siteId = clients.site(str(inputs.site).trim() || undefined);
      const message = str(inputs.message).trim();
      return {
        outputs: await requestTrialExtension(
          clients.service(),
          siteId,
          str(inputs.service),
          message || undefined,
          // The person it runs for hears the provider's decision (notify runtime), as with the command.
          userId ? { deps: ctx.deps, ws: ctx.workspace, requestedBy: userId } : undefined,
        ),
      };
    },
    detail: (_s, o) => `trial extension request ${str(o.request_id)} (${str(o.status)})`,
  },
];

/**
 * The feature: no commands, the four custom steps (registered by the kit's registerFeatures), and
 * the port the job watcher completes the stored waits through (the watch runtime takes it).
 */
export const workflowSteps: Feature = {
  name: 'workflow-steps',
  functions: WORKFLOW_STEPS,
  jobWaits: workflowWaitsPort,
};
