/**
 * Which token completes a Workflow Builder step (functions.completeSuccess / completeError), for
 * every path: a step answered at once (./steps.ts), a stored wait the watcher or a finished
 * registration completes (features/workflow-steps/waits.ts).
 *
 * First the workspace's bot token: Slack documents bot tokens as accepted by both methods (no
 * scope), and it outlives the event: a wait may last 720 hours, a registration days, and a
 * restart or another replica may complete it, while the event's own token (`bot_access_token`,
 * xwfp-…) is short-lived and only ever in the memory of the process that received the event.
 * When Slack refuses the bot token naming the token type (`not_allowed_token_type`), the call is
 * made once more with the event's token, if this process still holds it (kept in memory, per
 * execution, never stored or logged: it is a secret; dropped once the step is completed). When
 * only the event's token is at hand (no bot token for the workspace), the same rule applies the
 * other way. Any other refusal is the caller's to handle.
 */
import { type WebClient, ErrorCode as WebErrorCode } from '@slack/web-api';
import { LruMap } from '../../../lru.js';
import type { AppDeps } from '../../deps.js';
import { appState } from '../app-state.js';
import { newWebClient } from '../web/client.js';

/** Slack's errors naming the token type a method does not take. */
export const TOKEN_TYPE_ERRORS: ReadonlySet<string> = new Set(['not_allowed_token_type']);

/** Steps in flight per process whose event token is kept (the oldest is dropped beyond). */
const EVENT_TOKENS_MAX = 10_000;

const eventTokens = appState(() => new LruMap<string, string>(EVENT_TOKENS_MAX));

/** The Slack platform error code of a Web API error (`invalid_auth`, …), if it is one. */
export function slackErrorCode(err: unknown): string | undefined {
  if (
    err &&
    typeof err === 'object' &&
    'code' in err &&
    err.code === WebErrorCode.PlatformError &&
    'data' in err &&
    err.data &&
    typeof err.data === 'object' &&
    'error' in err.data
  ) {
    return String(err.data.error);
  }
  return undefined;
}

/** Keep the event's token of a step execution (in memory) for the fallback above. */
export function rememberEventToken(deps: AppDeps, executionId: string, token: string | undefined): void {
  if (token) eventTokens(deps).set(executionId, token);
}

/** Drop it (the step is completed, or Slack refused it). */
export function forgetEventToken(deps: AppDeps, executionId: string): void {
  eventTokens(deps).delete(executionId);
}

/**
 * Make a completion call for `executionId` with the workspace's bot client (`workspace`), and once
 * more with the event's token when Slack refuses the first naming the token type (see the file
 * header). `eventClient` is a client already holding the event's token (Bolt's, in the listener);
 * otherwise the kept token is used.
 */
export async function callWithStepToken<T>(
  deps: AppDeps,
  o: { executionId: string; workspace: WebClient | undefined; eventClient?: WebClient },
  call: (c: WebClient) => Promise<T>,
): Promise<T> {
  const kept = eventTokens(deps).get(o.executionId);
  const eventClient =
    o.eventClient ?? (kept ? newWebClient(deps, kept, { retryConfig: { retries: 0 } }) : undefined);
  const clients = [o.workspace, eventClient].filter((c): c is WebClient => c !== undefined);
  if (clients.length === 0) throw new Error('no token to complete the workflow step with (app uninstalled?)');
  try {
    const r = await call(clients[0]!);
    forgetEventToken(deps, o.executionId);
    return r;
  } catch (err) {
    const code = slackErrorCode(err);
    const other = clients[1];
    if (!code || !TOKEN_TYPE_ERRORS.has(code) || !other) throw err;
    deps.logger.warn(
      {
        executionId: o.executionId,
        error: code,
        retryWith: other === eventClient ? 'event token' : 'bot token',
      },
      'Slack refused the token type completing a workflow step: trying the other token once',
    );
    const r = await call(other);
    forgetEventToken(deps, o.executionId);
    return r;
  }
}
