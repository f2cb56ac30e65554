/**
 * The step errors and input hints that name a slash command (where to look for a job number,
 * where to check the recipients), worded here in the Slack layer from the ops' results
 * (src/ops/workflow-steps.ts). A rename of a command touches the Slack layer only.
 */
import { StepInputError } from '../../../ops/workflow-steps.js';
import { nextStepCommand } from '../../kit/blocks/next-step.js';

/** A job id as a workflow gives it (text or number). */
export function parseJobId(raw: unknown): number {
  const s = String(raw ?? '').trim();
  if (!/^\d{1,15}$/.test(s) || Number(s) <= 0) {
    throw new StepInputError(
      `"${s.slice(0, 40)}" is not a job id.`,
      `Give the job number shown by ${nextStepCommand({ do: 'jobs' })} (digits only, e.g. 4812).`,
    );
  }
  return Number(s);
}

/** The step's error when its run ended on an unexpected error (the requester was told by DM). */
export function registrationStoppedError(siteId: string, refId: string, requester: boolean): string {
  return `Couldn't register all the recipients: the registration on site ${siteId} stopped because of an unexpected error (reference ${refId}). Batches already sent are kept and the rest is resumed when the bot restarts${requester ? '; the requester gets the report by direct message from the bot' : ''}. Check the recipients with ${nextStepCommand({ do: 'recipients', site: siteId })} before running the workflow again (names registered already are skipped).`;
}

/** The step's error when its registration report is gone (kept 7 days). */
export function registrationReportGoneError(siteId: string): string {
  return `The registration report on site ${siteId} is gone (kept 7 days), so the result cannot be given. Check the recipients with ${nextStepCommand({ do: 'recipients', site: siteId })}.`;
}
