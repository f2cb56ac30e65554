/**
 * What a person can do next, named by the action and never by a slash command. The layers below
 * Slack (api, store, watch, notices, ops) return or hold a `NextStep`; the Slack layer words it
 * (`src/slack/kit/blocks/next-step.ts`: the command to run, in the reader's words). A rename of a command
 * then touches the Slack layer only.
 */
export type NextStep =
  /** An admin saves the service credentials (the setup form). */
  | { do: 'setup' }
  /** Subscribe this channel to job notifications again (or press Resume). */
  | { do: 'watch-again' }
  /** Subscribe a channel to job notifications. */
  | { do: 'watch' }
  /** Turn the channel's daily digest on again. */
  | { do: 'digest-daily-again' }
  /** Post the digest now, to try again. */
  | { do: 'digest-now' }
  /** Subscribe the channel to license-failure alerts again. */
  | { do: 'alerts-watch-again' }
  /** List the jobs (the job number is shown there). */
  | { do: 'jobs' }
  /** Look at one job. */
  | { do: 'job'; site: string; job: string }
  /** List a site's recipients. */
  | { do: 'recipients'; site: string }
  /** List the sub-members (their numbers are shown there). */
  | { do: 'members' }
  /** Show the plan and the latest change request. */
  | { do: 'plan' }
  /** List the packaging history again. */
  | { do: 'packaging' }
  /** An admin allows one channel shared with another organisation. */
  | { do: 'allow-shared-channel' };

/**
 * A sentence that names the command of a step: the words before and after it. The Slack layer
 * puts the command between (`stepSentenceText` in src/slack/kit/blocks/next-step.ts), so the layers below
 * keep their sentence whole without naming a command.
 */
export interface StepSentence {
  before: string;
  step: NextStep;
  after: string;
}
