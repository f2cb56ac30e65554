/**
 * Builds the Bolt app from the configuration (the wiring; each part lives beside it):
 * - Socket Mode when SLACK_APP_TOKEN is set, otherwise HTTP mode (Bolt's HTTPReceiver) with
 *   /healthz, /readyz and /metrics next to /slack/events (receivers.ts, health.ts; start.ts).
 * - Single workspace (SLACK_BOT_TOKEN) or OAuth distribution (install + redirect routes, the
 *   installation store over store.installations, workspace and org-wide installs: oauth.ts).
 * - The Web API client points at SLACK_API_URL (the fake Slack in tests and the demo).
 * - Acks go out at once (processBeforeResponse false); a redelivered event runs once
 *   (event-delivery.ts); a last-resort error handler logs with a reference id and tells the user
 *   that id (error-handler.ts); Bolt's own logs go through src/log.ts (redacted).
 */
import { App, type AppOptions } from '@slack/bolt';
import type { RetryOptions } from '@slack/web-api';
import type { AppDeps } from './deps.js';
import { createDrain } from './drain.js';
import { lastResortErrorHandler } from './error-handler.js';
import { guardDeliveries } from './event-delivery.js';
import { FEATURES } from './features/index.js';
import { createHealth, type ReadinessCheck } from './health.js';
import { handlerQueue } from './kit/commands/handler-queue.js';
import { registerFeatures } from './kit/features.js';
import { boltLogger } from './kit/web/bolt-logger.js';
import { boltClientOptions, slackApiUrl } from './kit/web/client.js';
import { createLifecycle, type Lifecycle, registerLifecycle } from './lifecycle.js';
import { oauthOptions } from './oauth.js';
import { receiverOptions, watchSocketClient } from './receivers.js';
import { createSocketState } from './socket-state.js';
import { initialiseDeferred, singleWorkspaceOptions, startReceiving } from './start.js';

export type RegisterFn = (app: App, deps: AppDeps, ctx: { lifecycle: Lifecycle }) => void | Promise<void>;

export interface SlackAppOptions {
  /** Registers the listeners. Default: every feature of ./features/index.ts (registerFeatures). */
  register?: RegisterFn;
  /** Shutdown hooks shared with main.ts; one is created when omitted. */
  lifecycle?: Lifecycle;
  /** Web API retry policy (default: SLACK_RETRY_POLICY of kit/web/client.ts; tests pass { retries: 0 }). */
  retryConfig?: RetryOptions;
  /** Extra /readyz checks. */
  readinessChecks?: Array<() => Promise<ReadinessCheck>>;
  /** Cache of the Slack readiness check (ms); default 60 s. */
  readyOkTtlMs?: number;
}

export interface SlackAppHandle {
  app: App;
  lifecycle: Lifecycle;
  readiness(): Promise<{ ready: boolean; checks: ReadinessCheck[] }>;
  /** Start receiving (HTTP: listen on HOST:PORT; Socket Mode: connect). Returns the bound port. */
  start(): Promise<{ port: number }>;
  /**
   * Stop taking new work and let the requests in flight finish (at most `ms`); those still running
   * then are told the bot is restarting (drain.ts). Call before stop().
   */
  drain(ms: number): Promise<{ finished: number; unfinished: number }>;
  /** Stop receiving. Safe to call twice. */
  stop(): Promise<void>;
}

export function createSlackApp(deps: AppDeps, opts: SlackAppOptions = {}): SlackAppHandle {
  const { config, logger } = deps;
  const lifecycle = opts.lifecycle ?? createLifecycle();
  const apiUrl = slackApiUrl(config);
  // The interactive policy of kit/web/client.ts (SLACK_API_URL, SLACK_RETRY_POLICY unless a test
  // overrides it); Bolt gives its clients its own (redacting) logger.
  const clientOptions = boltClientOptions(deps, opts.retryConfig ? { retryConfig: opts.retryConfig } : {});
  const c = config.slack;
  const bLogger = boltLogger(
    logger,
    [c.botToken, c.appToken, c.signingSecret, c.clientSecret, c.stateSecret].filter((x): x is string => !!x),
  );
  const socket = config.mode === 'socket';

  // Socket Mode: /readyz also needs the WebSocket to Slack to be up (see socket-state.ts).
  const socketState = createSocketState();
  // The health client: the bot token in single mode (auth.test), none with OAuth (api.test).
  let app: App;
  const health = createHealth(deps, {
    get client() {
      return app.client;
    },
    extraChecks: [
      ...(socket ? [() => Promise.resolve(socketState.check())] : []),
      ...(opts.readinessChecks ?? []),
    ],
    ...(opts.readyOkTtlMs !== undefined ? { okTtlMs: opts.readyOkTtlMs } : {}),
  });

  const oauth = oauthOptions(deps, { apiUrl, clientOptions, socket });
  const single = singleWorkspaceOptions(config);
  const base: AppOptions = {
    logger: bLogger,
    clientOptions,
    processBeforeResponse: false,
    extendedErrorHandler: true,
    ignoreSelf: true,
    // Conversation state is not used; skip Bolt's in-memory store (it would grow per conversation).
    convoStore: false,
    ...receiverOptions(deps, { socket, routes: health.routes, oauth, clientOptions, boltLogger: bLogger }),
    ...single.options,
  };
  app = new App(base);

  // A form submitted while the store is down can fail in Bolt's authorize (the installation is in
  // the store); Bolt then acks with nothing, which closes the form and loses what was typed, and a
  // submission has no response_url to explain it. The error handler marks such a submission, and
  // its ack keeps the form open with the reason under the first field instead.
  const storeDownForms = new WeakSet<object>();
  guardDeliveries(app, deps, storeDownForms);
  // First middleware: counts the requests in flight for the drain at shutdown.
  const drain = createDrain(logger);
  app.use(drain.middleware);
  if (socket) watchSocketClient(app, socketState, logger);
  app.error(lastResortErrorHandler(deps, apiUrl, storeDownForms));

  registerLifecycle(app, deps);
  const registered = Promise.resolve(
    opts.register ? opts.register(app, deps, { lifecycle }) : void registerFeatures(app, deps, FEATURES),
  );
  // Surface a failing registration at start(), not as an unhandled rejection.
  registered.catch(() => undefined);

  let started = false;
  let stopped: Promise<void> | undefined;
  return {
    app,
    lifecycle,
    readiness: health.readiness,
    async start() {
      await registered;
      if (single.deferred) await initialiseDeferred(app, deps, apiUrl);
      const bound = await startReceiving(app, deps, { socket, apiUrl });
      started = true;
      return bound;
    },
    drain: (ms: number) => drain.drain(ms, () => handlerQueue(deps).close()),
    stop() {
      stopped ??= (async () => {
        if (started) await app.stop();
      })();
      return stopped;
    },
  };
}
