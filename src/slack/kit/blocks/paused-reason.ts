/**
 * Why something the background runtimes feed stopped, in the words they store and tell: a
 * subscription, alert subscription or digest paused because Slack refused its channel for good
 * (`pausedReason`, kept in the paused record and sent to its creator), a workspace's job watching
 * paused because the service refused its credentials (`pollingPausedReason`, kept in the settings
 * and sent to the admins). The job watcher and the
 * notifier compose these themselves, below the Slack layer, so they take them through their
 * options (`WatcherOptions.words`, `NotifierOptions.pausedReason`) from the runtimes here; the
 * step that resumes is a `NextStep` (src/next-step.ts), worded by `nextStepClause`.
 */
import type { NextStep } from '../../../next-step.js';
import { SHARED_CHANNEL, type WatchWords } from '../../../watch/types.js';
import { nextStepClause, nextStepCommand } from './next-step.js';

/**
 * User-facing reason for a paused subscription: what happened (Slack's refusal `code`) and how to
 * re-enable it (`step`; without one, "set it up again").
 */
export function pausedReason(code: string, step?: NextStep): string {
  const resume = step ? nextStepClause(step) : 'set it up again';
  switch (code) {
    case 'channel_not_found':
      return `The channel no longer exists or the app cannot see it. In a channel the app is in, ${resume}.`;
    case 'is_archived':
      return `The channel was archived. Unarchive it and ${resume}.`;
    case 'not_in_channel':
      return `The app was removed from the channel. Invite it back with /invite, then ${resume}.`;
    case 'missing_scope':
      return `The app is missing the chat:write permission. Ask an admin to reinstall the app, then ${resume}.`;
    case SHARED_CHANNEL:
      return `The channel is now shared with another organisation (Slack Connect), and notifications would show content ids, recipients and failures to them. Use a channel of your organisation only, or ask a drm-chatops admin to allow this one channel (${nextStepCommand({ do: 'allow-shared-channel' })}), then ${resume}.`;
    case 'restricted_action':
    case 'restricted_action_read_only_channel':
    case 'restricted_action_thread_only_channel':
      return `The channel does not let the app post (it is read-only, or posting is limited to some members or to threads). Ask a channel manager to let the app post, then ${resume}.`;
    case 'no_permission':
    case 'access_denied':
    case 'team_access_not_granted':
    case 'ekm_access_denied':
    case 'org_login_required':
    case 'enterprise_is_restricted':
      return `The workspace does not let the app post here (a workspace or organisation restriction). Ask a Slack admin to allow the app, then ${resume}.`;
    default:
      return `The app can no longer post in this workspace (its Slack token was revoked or the account is inactive). Ask an admin to reinstall the app, then ${resume}.`;
  }
}

/**
 * Why a workspace's job watching is paused: the service refused the saved credentials (HTTP 401,
 * `auth`) or the account may not use the API (HTTP 403, `permission`), and what an admin does.
 */
export function pollingPausedReason(reason: 'auth' | 'permission'): string {
  const setup = nextStepCommand({ do: 'setup' });
  return reason === 'auth'
    ? `The watermarking service refused the saved credentials (HTTP 401). Job watching is paused until an admin runs ${setup} with a valid account id and access key.`
    : `The watermarking account is not allowed to use the API (HTTP 403). Job watching is paused until an admin fixes the account permissions and runs ${setup} again.`;
}

/** The words the job watcher stores and tells (src/watch `WatchWords`). */
export const watchWords: WatchWords = { pausedReason, pollingPaused: pollingPausedReason };
