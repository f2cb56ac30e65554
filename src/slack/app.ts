/**
 * Builds the Bolt app from the configuration:
 * - Socket Mode when SLACK_APP_TOKEN is set, otherwise HTTP mode (Bolt's HTTPReceiver) with
 *   /healthz, /readyz and /metrics next to /slack/events.
 * - Single workspace (SLACK_BOT_TOKEN) or OAuth distribution (install + redirect routes, the
 *   installation store over store.installations, workspace and org-wide installs).
 * - The Web API client points at SLACK_API_URL (the fake Slack in tests and the demo).
 * - Acks go out at once (processBeforeResponse false); a last-resort error handler logs with a
 *   reference id and tells the user that id; Bolt's own logs go through src/log.ts (redacted).
 */
import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { App, type AppOptions, HTTPReceiver, type SocketModeReceiver } from '@slack/bolt';
import type { RetryOptions } from '@slack/web-api';
import type { Config } from '../config.js';
import { StoreUnavailableError } from '../store/errors.js';
import type { AppDeps } from './deps.js';
import { createDrain } from './drain.js';
import { FEATURES } from './features/index.js';
import { createHealth, type ReadinessCheck } from './health.js';
import { createRequestGate, DEFAULT_BODY_LIMIT } from './http-gate.js';
import { createInstallationStore } from './installation-store.js';
import { handlerQueue } from './kit/commands/handler-queue.js';
import { registerFeatures } from './kit/features.js';
import { keepFormOpen, STORE_DOWN_INLINE } from './kit/interactions/form-errors.js';
import { boltLogger } from './kit/web/bolt-logger.js';
import { boltClientOptions, newWebClient, slackApiUrl } from './kit/web/client.js';
import { createLifecycle, type Lifecycle, registerLifecycle } from './lifecycle.js';
import { createSingleUseStateStore } from './oauth-state.js';
import { oversizedEventHandler } from './oversized-event.js';
import { createSocketState } from './socket-state.js';
import {
  describeSlackFailure,
  HISTORY_SCOPES,
  leastPrivilegeOnly,
  OPTIONAL_SCOPES,
  scopeReport,
  scopeWords,
} from './startup-check.js';
import { withWelcome } from './welcome.js';

/** Every bot scope (SLACK_BOT_SCOPES=full); keep in sync with manifest.yml. */
export const BOT_SCOPES = [
  'commands',
  'chat:write',
  'users:read',
  'usergroups:read',
  'channels:read',
  'groups:read',
  'channels:history',
  'groups:history',
  // Watches in a direct message or group DM: conversations.info (can the bot post there?) and
  // conversations.history (a card already posted is found again after a crash) need these.
  'im:read',
  'im:history',
  'mpim:read',
  'mpim:history',
  'files:read',
  'files:write',
  'im:write',
];

/** The scopes the bot asks for at install and expects at start-up (SLACK_BOT_SCOPES). */
export function botScopesOf(config: Pick<Config, 'slack'>): string[] {
  const set = config.slack.scopeSet ?? 'full';
  if (set === 'full') return [...BOT_SCOPES];
  const left = new Set<string>(set === 'minimal' ? OPTIONAL_SCOPES : HISTORY_SCOPES);
  return BOT_SCOPES.filter((x) => !left.has(x));
}

export type RegisterFn = (app: App, deps: AppDeps, ctx: { lifecycle: Lifecycle }) => void | Promise<void>;

export interface SlackAppOptions {
  /** Registers the listeners. Default: every feature of ./features/index.ts (registerFeatures). */
  register?: RegisterFn;
  /** Shutdown hooks shared with main.ts; one is created when omitted. */
  lifecycle?: Lifecycle;
  /** Web API retry policy (default: SLACK_RETRY_POLICY of kit/web-client.ts; tests pass { retries: 0 }). */
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

/** How long an event id is remembered: Slack retries an event 3 times within about 5 minutes. */
export const EVENT_ONCE_MS = 10 * 60_000;

/**
 * True the first time an Events API event id is seen (a lease in the store, shared by replicas).
 * When the store does not answer within 500 ms the event runs (availability first, as the
 * request gate's replay claim): a store outage may then let a redelivery run twice.
 */
function eventOnce(deps: AppDeps): (eventId: string) => Promise<boolean> {
  // A holder per delivery: the same holder would re-acquire (renew) its own lease.
  const prefix = randomBytes(6).toString('hex');
  let seq = 0;
  return async (eventId) => {
    const holder = `${prefix}-${++seq}`;
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        deps.store.leases.acquire(`event-once:${eventId}`, holder, EVENT_ONCE_MS),
        new Promise<boolean>((resolve) => {
          timer = setTimeout(() => resolve(true), 500);
        }),
      ]);
    } catch (err) {
      deps.logger.warn({ err, eventId }, 'could not record the event id; handling it');
      return true;
    } finally {
      if (timer) clearTimeout(timer);
    }
  };
}

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

export function createSlackApp(deps: AppDeps, opts: SlackAppOptions = {}): SlackAppHandle {
  const { config, logger } = deps;
  const lifecycle = opts.lifecycle ?? createLifecycle();
  const apiUrl = slackApiUrl(config);
  // The interactive policy of kit/web-client.ts (SLACK_API_URL, SLACK_RETRY_POLICY unless a test
  // overrides it); Bolt gives its clients its own (redacting) logger.
  const clientOptions = boltClientOptions(deps, opts.retryConfig ? { retryConfig: opts.retryConfig } : {});
  const c = config.slack;
  const bLogger = boltLogger(
    logger,
    [c.botToken, c.appToken, c.signingSecret, c.clientSecret, c.stateSecret].filter((x): x is string => !!x),
  );
  const socket = config.mode === 'socket';

  const base: AppOptions = {
    logger: bLogger,
    clientOptions,
    processBeforeResponse: false,
    extendedErrorHandler: true,
    ignoreSelf: true,
    // Conversation state is not used; skip Bolt's in-memory store (it would grow per conversation).
    convoStore: false,
  };

  // Socket Mode: /readyz also needs the WebSocket to Slack to be up (see socket-state.ts).
  const socketState = createSocketState();

  // The health client: the bot token in single mode (auth.test), none with OAuth (api.test).
  let app: App;
  const healthClient = () => app.client;
  const health = createHealth(deps, {
    get client() {
      return healthClient();
    },
    extraChecks: [
      ...(socket ? [() => Promise.resolve(socketState.check())] : []),
      ...(opts.readinessChecks ?? []),
    ],
    ...(opts.readyOkTtlMs !== undefined ? { okTtlMs: opts.readyOkTtlMs } : {}),
  });

  const oauth =
    config.distribution === 'oauth'
      ? {
          clientId: config.slack.clientId,
          clientSecret: config.slack.clientSecret,
          stateSecret: config.slack.stateSecret,
          scopes: botScopesOf(config),
          installationStore: withWelcome(
            createInstallationStore(deps.store, logger),
            deps,
            botScopesOf(config),
          ),
          installerOptions: {
            directInstall: true,
            stateVerification: true,
            // Signed like Bolt's own, and single-use on the server (oauth-state.ts).
            stateStore: createSingleUseStateStore(config.slack.stateSecret ?? '', deps.store.leases),
            // Slack's authorize page lives next to its API (https://slack.com/oauth/v2/authorize);
            // the same rule points installs at the fake Slack in the demo.
            authorizationUrl: new URL('../oauth/v2/authorize', apiUrl).href,
            clientOptions,
            ...(socket ? { port: config.port } : {}),
          },
        }
      : undefined;

  let receiver: HTTPReceiver | undefined;
  if (socket) {
    Object.assign(base, {
      socketMode: true,
      appToken: config.slack.appToken,
      customRoutes: health.routes,
      // clientOptions: apps.connections.open goes to SLACK_API_URL too (the tests' fake Slack).
      installerOptions: { port: config.port, clientOptions },
      ...oauth,
    });
  } else {
    receiver = new HTTPReceiver({
      signingSecret: config.slack.signingSecret ?? '',
      customRoutes: health.routes,
      processBeforeResponse: false,
      // The request gate below verifies every request to the Slack endpoint before Bolt sees it
      // (401, nothing stored, otherwise); a second HMAC, body decode and form parse in Bolt would
      // only repeat that work on the ack path. Bolt still answers ssl_check before any listener.
      signatureVerification: false,
      logger: bLogger,
      ...oauth,
    });
    // Every request answered, nothing stored before the signature is verified (see http-gate.ts).
    const routes: Record<string, string[]> = {};
    for (const r of health.routes) routes[r.path] = Array.isArray(r.method) ? r.method : [r.method];
    if (oauth) {
      routes['/slack/install'] = ['GET'];
      routes['/slack/oauth_redirect'] = ['GET'];
    }
    receiver.requestListener = createRequestGate(receiver.requestListener, {
      signingSecret: config.slack.signingSecret ?? '',
      routes,
      claims: deps.store.leases,
      logger,
      now: deps.now,
      bodyLimit: DEFAULT_BODY_LIMIT,
      // A Workflow Builder step whose event is too large fails with the reason (not left waiting).
      onOversized: oversizedEventHandler(deps, DEFAULT_BODY_LIMIT),
    });
    base.receiver = receiver;
  }

  // Single workspace without known ids: Bolt would call auth.test in its constructor and leave a
  // refused or unreachable token as an unhandled rejection with a stack. Deferred instead: start()
  // makes that call itself and says in words what is wrong (./startup-check.ts).
  let deferred = false;
  if (config.distribution === 'single') {
    base.token = config.slack.botToken;
    if (config.slack.botId && config.slack.botUserId) {
      // Known ids (tests, demo): skip the auth.test Bolt would otherwise make at first use.
      base.botId = config.slack.botId;
      base.botUserId = config.slack.botUserId;
      base.tokenVerificationEnabled = false;
    } else {
      base.deferInitialization = true;
      deferred = true;
    }
  }

  app = new App(base);
  // A form submitted while the store is down can fail in Bolt's authorize (the installation is in
  // the store); Bolt then acks with nothing, which closes the form and loses what was typed, and a
  // submission has no response_url to explain it. app.error (below) marks such a submission, and
  // its ack keeps the form open with the reason under the first field instead.
  const storeDownForms = new WeakSet<object>();
  const processEvent = app.processEvent.bind(app);
  const firstDelivery = eventOnce(deps);
  app.processEvent = async (event) => {
    const body = event.body as {
      type?: unknown;
      event_id?: unknown;
      view?: Parameters<typeof keepFormOpen>[0];
    };
    // An Events API event Slack delivers again (Socket Mode: retry_attempt > 0; HTTP:
    // X-Slack-Retry-Num) runs once: acked, nothing done the second time.
    if (body?.type === 'event_callback' && typeof body.event_id === 'string') {
      if (!(await firstDelivery(body.event_id))) {
        logger.info(
          { eventId: body.event_id, retryNum: event.retryNum },
          'event delivered again: handled once',
        );
        await event.ack();
        return;
      }
    }
    if (body?.type !== 'view_submission') return processEvent(event);
    return processEvent({
      ...event,
      ack: (r) =>
        event.ack(
          r === undefined && storeDownForms.has(body) ? (keepFormOpen(body.view, STORE_DOWN_INLINE) ?? r) : r,
        ),
    });
  };
  // First middleware: counts the requests in flight for the drain at shutdown.
  const drain = createDrain(logger);
  app.use(drain.middleware);
  if (socket) {
    const client = (app as unknown as { receiver: SocketModeReceiver }).receiver.client;
    socketState.attach(client, logger);
    // @slack/socket-mode 3.x reconnects with `start().then(...)` and no catch: a stop while a
    // reconnection waits for Slack's hello rejects that start with `undefined`, an unhandled
    // rejection at every such shutdown. A start that fails because the client is shutting down
    // ends quietly; every other failure still reaches its caller (app.start() at start-up).
    const sm = client as unknown as { start: () => Promise<unknown>; shuttingDown?: boolean };
    const startClient = sm.start.bind(sm);
    sm.start = () =>
      startClient().catch((err: unknown) => {
        if (sm.shuttingDown) return undefined;
        throw err;
      });
  }

  app.error(async (args) => {
    const { error, body } = args as unknown as {
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
    // A Workflow Builder step that could not run (no response_url): ended with the reason, with
    // the token the event carries, so the workflow does not wait on it until Slack gives up.
    const ev = (b.event ?? {}) as {
      type?: unknown;
      function_execution_id?: unknown;
      bot_access_token?: unknown;
    };
    if (
      storeDown &&
      ev.type === 'function_executed' &&
      typeof ev.function_execution_id === 'string' &&
      typeof ev.bot_access_token === 'string'
    ) {
      await newWebClient(deps, ev.bot_access_token, { retryConfig: { retries: 0 } })
        .functions.completeError({ function_execution_id: ev.function_execution_id, error: STORE_DOWN_STEP })
        .catch((err: unknown) => logger.warn({ ref, err }, 'could not end the workflow step'));
    }
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
  });

  registerLifecycle(app, deps);
  const registered = Promise.resolve(
    opts.register ? opts.register(app, deps, { lifecycle }) : void registerFeatures(app, deps, FEATURES),
  );
  // Surface a failing registration at start(), not as an unhandled rejection.
  registered.catch(() => undefined);

  let started = false;
  let stopped: Promise<void> | undefined;

  /**
   * The start-up check of the bot token (deferred initialisation, above): auth.test once, its
   * failure said in words (the bot keeps running, /readyz not ready: health.ts asks again), the
   * granted scopes compared with what the bot asks for. Then Bolt is initialised without a second
   * call: with the ids auth.test gave, or (the token refused or Slack unreachable) resolving them at
   * the first request.
   */
  async function initialise(): Promise<void> {
    const boltApp = app as unknown as {
      tokenVerificationEnabled: boolean;
      argAuthorization?: { botId?: string; botUserId?: string; botToken?: string };
    };
    try {
      const r = await app.client.auth.test();
      boltApp.argAuthorization = {
        botToken: config.slack.botToken as string,
        botId: r.bot_id as string,
        botUserId: r.user_id as string,
      };
      const granted = r.response_metadata?.scopes;
      if (granted) {
        const report = scopeReport(granted, botScopesOf(config));
        if (report.missing.length) {
          logger[leastPrivilegeOnly(report) ? 'info' : 'warn'](
            { missing: report.missing },
            scopeWords(
              report,
              "Add them under the app's OAuth & Permissions (npm run manifest prints them all) and reinstall.",
            ),
          );
        } else logger.info({ scopes: granted.length }, 'Slack granted every scope the bot asks for');
      }
    } catch (e) {
      const f = describeSlackFailure(e, 'SLACK_BOT_TOKEN', apiUrl);
      logger.error({ code: f.code }, f.words);
    }
    boltApp.tokenVerificationEnabled = false;
    await app.init();
  }

  return {
    app,
    lifecycle,
    readiness: health.readiness,
    async start() {
      await registered;
      if (deferred) await initialise();
      if (
        !config.dwmBaseUrl &&
        !config.serviceApiBaseUrl &&
        !config.envCredentials &&
        !config.upstream.allowedOrigins.length
      )
        logger.warn(
          'Neither DWM_BASE_URL nor SERVICE_API_BASE_URL is set: /dwm setup cannot save any credentials until they are (the URLs your service provider gives; npm run emulator prints local ones). Set them and restart.',
        );
      if (socket) {
        // Bolt's Socket Mode receiver serves the health, metrics and OAuth routes on its own HTTP
        // server, listening on a port only (every interface): bound to HOST here, as in HTTP mode.
        const srv = (app as unknown as { receiver: { httpServer?: Server } }).receiver.httpServer;
        let bound: Promise<number> | undefined;
        if (srv) {
          const listen = srv.listen.bind(srv) as (port: number, host: string) => Server;
          srv.listen = ((port: number) => listen(port, config.host)) as Server['listen'];
          bound = new Promise<number>((resolve, reject) => {
            srv.once('listening', () => resolve((srv.address() as AddressInfo).port));
            srv.once('error', reject);
          });
        }
        try {
          await app.start();
        } catch (e) {
          // Slack refused the app-level token, or could not be reached: said in words.
          throw new Error(describeSlackFailure(e, 'SLACK_APP_TOKEN', apiUrl).words, { cause: e });
        }
        const port = bound ? await bound : config.port;
        started = true;
        logger.info(
          { mode: 'socket', distribution: config.distribution, host: config.host, port },
          'Slack app connected',
        );
        return { port };
      }
      const server = (await app.start({ port: config.port, host: config.host })) as Server;
      started = true;
      const port = (server.address() as AddressInfo).port;
      logger.info(
        { mode: 'http', distribution: config.distribution, host: config.host, port },
        'Slack app listening',
      );
      return { port };
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
