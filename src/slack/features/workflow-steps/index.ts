/**
 * The bot's operations as Workflow Builder custom steps (callback ids = the manifest's
 * `functions` keys). Each step is one declaration for the kit (src/slack/kit/functions.ts);
 * what it does is in src/ops/workflow-steps.ts; durable waits in ./waits.ts.
 *
 * - register_recipients: plans at once (same validation and duplicate detection as the modal),
 *   then runs in the background like the modal's confirm (progress and the final report in the
 *   requester's DM, the run resumed after a restart) and completes when the run ends, through a
 *   stored wait so a restart or another replica still completes it.
 * - job_status: answers at once.
 * - wait_for_job: answers at once when the job is finished already; otherwise stores a wait
 *   (deadline = now + timeout) that the job watcher serves (src/watch/job-waits.ts): the site is
 *   polled fast while the job is in flight, and the poll that sees it reach COMPLETED / ERROR
 *   completes the step (or the deadline fails it).
 * - request_trial_extension: `/drm plan trial`'s operation and role rule.
 */

import { newDraftId, startRun } from '../../../ops/watermarking/registration/records.js';
import { newReport, summariseReport } from '../../../ops/watermarking/registration/run.js';
import {
  jobStatus,
  parseJobId,
  parseTimeoutHours,
  planStepRegistration,
  requestTrialExtension,
  TRIAL_ROLE,
} from '../../../ops/workflow-steps.js';
import { addWait } from '../../../watch/job-waits.js';
import type { Feature } from '../../kit/features.js';
import { type StepDeclaration, StepRefusedError } from '../../kit/functions.js';
import { registerProgressMessage, registerReportMessage } from '../../kit/registration-report.js';
import { wakeWatchers } from '../../watch-runtime.js';
import { STEP_IDS } from './ids.js';
import { workflowWaitCompleter } from './waits.js';

export { STEP_IDS } from './ids.js';
export { workflowWaitCompleter, workflowWaitsPort } from './waits.js';

/** How long a registration step may take before it fails (the run itself goes on). */
export const REGISTRATION_WAIT_MS = 7 * 24 * 3_600_000;

const str = (v: unknown): string =>
  typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v);

export const WORKFLOW_STEPS: readonly StepDeclaration[] = [
  {
    callbackId: STEP_IDS.register,
    title: 'register the recipients',
    action: 'workflow.register',
    userInput: 'requested_by',
    needs: 'watermarking',
    async run({ ctx, inputs, executionId, workflowExecutionId, userId, client }) {
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
      );
      if (!created) {
        ctx.logger.info({ executionId }, 'workflow step event delivered again: ignored');
        return { later: true };
      }
      // Progress in the requester's DM, like the modal's run: a restart updates the same message.
      let channel: string | undefined;
      let ts: string | undefined;
      if (userId) {
        const first = registerProgressMessage(
          summariseReport(newReport(plan, siteId, reportId, new Date(ctx.deps.now()).toISOString())),
        );
        const posted = await client.chat
          .postMessage({
            channel: userId,
            text: first.text,
            ...(first.blocks ? { blocks: first.blocks } : {}),
          })
          .catch((err: unknown) => {
            ctx.logger.warn({ err }, 'could not post the registration progress message');
            return undefined;
          });
        channel = posted?.channel;
        ts = posted?.ts;
      }
      void (async () => {
        try {
          const report = await startRun(ctx.deps, ctx.workspace, wm, plan, {
            reportId,
            siteId,
            userId: userId ?? ctx.userId,
            ...(channel ? { channel } : {}),
            ...(ts ? { ts } : {}),
          });
          if (channel && ts) {
            const msg = registerReportMessage({
              summary: summariseReport(report),
              report,
              csvAttached: false,
              workspace: ctx.workspace,
            });
            await client.chat
              .update({ channel, ts, text: msg.text, ...(msg.blocks ? { blocks: msg.blocks } : {}) })
              .catch((err: unknown) => ctx.logger.warn({ err }, 'could not show the registration report'));
          }
        } catch (err) {
          // The run is stored: the registration resume at start continues it, and the wait
          // completes the step then.
          ctx.logger.error({ err, reportId }, 'workflow registration run stopped');
          return;
        }
        await workflowWaitCompleter(ctx.deps)
          .settle(ctx.workspace, executionId)
          .catch((err: unknown) => ctx.logger.error({ err, executionId }, 'could not complete the step'));
      })();
      return { later: true };
    },
  },
  {
    callbackId: STEP_IDS.jobStatus,
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
      );
      // The watcher of this process polls the site at once (others see it at their next listing).
      wakeWatchers(ctx.deps, ctx.workspace, siteId);
      return { later: true };
    },
    detail: (_s, o) => `job ${str(o.job_id)} was ${str(o.status)} already`,
  },
  {
    callbackId: STEP_IDS.trial,
    title: 'request a trial extension',
    action: 'workflow.plan-trial',
    userInput: 'requested_by',
    needs: 'service',
    async run({ ctx, inputs, userId }) {
      if (TRIAL_ROLE === 'admin' && (!userId || (await ctx.role()) !== 'admin')) {
        throw new StepRefusedError(
          'Couldn\'t request a trial extension: only workspace admins may. Set "Requested by" to an admin, or ask one to run /drm plan trial.',
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

/** The feature: no commands, the four custom steps (registered by the kit's registerFeatures). */
export const workflowSteps: Feature = { name: 'workflow-steps', functions: WORKFLOW_STEPS };
