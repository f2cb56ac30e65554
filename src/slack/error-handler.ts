/**
 * The last-resort error handler (app.error): a request that failed outside the kit's own error
 * replies is logged with a short reference id, and the user is told, through a response URL that
 * is Slack's, what happened: the store is down (and a form submitted then is marked so its ack
 * keeps it open, event-delivery.ts), the workspace has no installation any more, or something
 * went wrong (with the reference). A Workflow Builder step that could not run is ended with the
 * reason, so the workflow does not wait on it.
 */
import { randomBytes } from 'node:crypto';
import { StoreUnavailableError } from '../store/errors.js';
import type { AppDeps } from './deps.js';
import { newWebClient } from './kit/web/client.js';

/** Short reference id shown to users and written in the log with the error. */
export function newErrorRef(): string {
  return randomBytes(4).toString('hex');
}

/** The error of a workflow step that could not run because the store is down. */
const STORE_DOWN_STEP =
  "DRM ChatOps could not run this step: the bot's storage is unavailable right now. Run the workflow again in a few minutes; if it keeps happening, tell the team that runs the bot.";

/** Only answer the user through response URLs that are Slack's (or the configured fake's). */
function trustedResponseUrl(url: unknown, apiUrl: string): url is string {
  if (typeof url !== 'string') return false;
  try {
    const u = new URL(url);
    return u.origin === 'https://hooks.slack.com' || u.origin === new URL(apiUrl).origin;
  } catch {
    return false;
  }
}

/** True when the error, or what it wraps (Bolt: `original`; others: `cause`), is a store outage. */
function causedByStoreOutage(err: unknown): boolean {
  let e: unknown = err;
  for (let depth = 0; depth < 6 && e && typeof e === 'object'; depth++) {
    if (e instanceof StoreUnavailableError) return true;
    const o = e as { original?: unknown; cause?: unknown };
    e = o.original ?? o.cause;
  }
  return false;
}

/** The handler given to app.error; submissions refused for a store outage go to `storeDownForms`. */
export function lastResortErrorHandler(deps: AppDeps, apiUrl: string, storeDownForms: WeakSet<object>) {
  const { logger } = deps;
  return async (args: unknown): Promise<void> => {
    const { error, body } = args as {
      error: Error & { code?: string; original?: unknown };
      body?: unknown;
    };
    const ref = newErrorRef();
    const b = (body ?? {}) as Record<string, unknown>;
    const team =
      typeof b.team_id === 'string' ? b.team_id : ((b.team as { id?: string } | undefined)?.id ?? undefined);
    const kind =
      typeof b.type === 'string' ? b.type : typeof b.command === 'string' ? 'slash_command' : undefined;
    const storeDown = causedByStoreOutage(error);
    const notInstalled = !storeDown && error.code === 'slack_bolt_authorization_error';
    if (storeDown) {
      if (kind === 'view_submission' && typeof body === 'object' && body !== null) storeDownForms.add(body);
      logger.warn({ ref, team, kind, err: error }, 'request not run: the store is unavailable');
    } else if (notInstalled) {
      // No installation for the workspace (uninstalled, or the store lost it): nothing ran.
      logger.warn({ ref, team, kind }, 'request from a workspace without an installation');
    } else {
      logger.error(
        { ref, code: error.code, err: error.original instanceof Error ? error.original : error, kind, team },
        'unhandled error while handling a Slack request',
      );
    }
    if (storeDown) await endStep(deps, b, ref);
    // Tell the user, with the reference, when Slack gave us a way to.
    if (trustedResponseUrl(b.response_url, apiUrl)) {
      const text = storeDown
        ? ":red_circle: The bot's storage is unavailable right now, so the request was not run. Try again in a minute; if it keeps happening, tell the team that runs the bot."
        : notInstalled
          ? ':red_circle: DRM ChatOps is not installed in this workspace any more, so the request was not run. Ask a workspace admin to install the app again.'
          : `:red_circle: Something went wrong on our side and the request did not complete. Try again; if it keeps failing, give your admin the reference \`${ref}\`.`;
      try {
        await fetch(b.response_url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ response_type: 'ephemeral', replace_original: false, text }),
          signal: AbortSignal.timeout(3000),
        });
      } catch {
        logger.warn({ ref }, 'could not tell the user about the error');
      }
    }
  };
}

/**
 * A Workflow Builder step that could not run (no response_url): ended with the reason, with the
 * token the event carries, so the workflow does not wait on it until Slack gives up.
 */
async function endStep(deps: AppDeps, b: Record<string, unknown>, ref: string): Promise<void> {
  const ev = (b.event ?? {}) as {
    type?: unknown;
    function_execution_id?: unknown;
    bot_access_token?: unknown;
  };
  if (
    ev.type === 'function_executed' &&
    typeof ev.function_execution_id === 'string' &&
    typeof ev.bot_access_token === 'string'
  ) {
    await newWebClient(deps, ev.bot_access_token, { retryConfig: { retries: 0 } })
      .functions.completeError({ function_execution_id: ev.function_execution_id, error: STORE_DOWN_STEP })
      .catch((err: unknown) => deps.logger.warn({ ref, err }, 'could not end the workflow step'));
  }
}
