/**
 * The Slack words of a `NextStep` (src/next-step.ts): the command a person runs, as plain text
 * (a caller puts it in code where it wants).
 */
import type { NextStep, StepSentence } from '../../../next-step.js';

/** The command that takes the step, as typed in Slack (no leading verb). */
export function nextStepCommand(step: NextStep): string {
  switch (step.do) {
    case 'setup':
      return '/dwm setup';
    case 'watch':
    case 'watch-again':
      return '/dwm watch';
    case 'digest-daily-again':
      return '/dwm digest daily';
    case 'digest-now':
      return '/dwm digest now';
    case 'alerts-watch-again':
      return '/drm alerts watch';
    case 'jobs':
      return '/dwm jobs';
    case 'job':
      return `/dwm job ${step.job} site:${step.site}`;
    case 'recipients':
      return `/dwm recipients site:${step.site}`;
    case 'members':
      return '/drm members';
    case 'plan':
      return '/drm plan';
    case 'packaging':
      return '/drm packaging';
    case 'allow-shared-channel':
      return '/dwm setup shared-channel allow #channel';
  }
}

/** "run /dwm watch again (or press Resume)" and the like: the step as a clause of a sentence. */
export function nextStepClause(step: NextStep): string {
  const cmd = nextStepCommand(step);
  switch (step.do) {
    case 'watch-again':
      return `run ${cmd} again (or press Resume)`;
    case 'digest-daily-again':
    case 'alerts-watch-again':
      return `run ${cmd} again`;
    default:
      return `run ${cmd}`;
  }
}

/** A sentence naming a step's command, in words (a plain string is already worded). */
export function stepSentenceText(s: string | StepSentence): string {
  return typeof s === 'string' ? s : `${s.before}${nextStepCommand(s.step)}${s.after}`;
}

/** A ValidationError issue in words: its `sentence` when it names a step (src/ops/service/common.ts). */
export function issueText(issue: { message: string; sentence?: StepSentence }): string {
  return issue.sentence ? stepSentenceText(issue.sentence) : issue.message;
}
