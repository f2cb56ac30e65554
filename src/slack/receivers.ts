/**
 * How Slack's requests reach the app, one reason to change: the receivers. Socket Mode
 * (SLACK_APP_TOKEN set): Bolt's Socket Mode receiver, its HTTP server serving the health routes
 * and OAuth, and its WebSocket client made quiet about a reconnection cut short by a stop. HTTP
 * mode: Bolt's HTTPReceiver behind the request gate (http-gate.ts: every request answered, nothing
 * stored before the signature is verified, a step event over the body limit failed with the
 * reason), serving the health routes and OAuth next to /slack/events.
 */
import type { App, AppOptions, SocketModeReceiver } from '@slack/bolt';
import { HTTPReceiver } from '@slack/bolt';
import type { AppDeps } from './deps.js';
import type { createHealth } from './health.js';
import { createRequestGate, DEFAULT_BODY_LIMIT } from './http-gate.js';
import type { OAuthOptions } from './oauth.js';
import { oversizedEventHandler } from './oversized-event.js';
import type { createSocketState } from './socket-state.js';

export interface ReceiverParts {
  socket: boolean;
  /** /healthz, /readyz, /metrics (health.ts). */
  routes: ReturnType<typeof createHealth>['routes'];
  oauth: OAuthOptions | undefined;
  clientOptions: AppOptions['clientOptions'];
  boltLogger: NonNullable<AppOptions['logger']>;
}

/** The App options of the receiver (Socket Mode), or the HTTPReceiver behind the request gate. */
export function receiverOptions(deps: AppDeps, p: ReceiverParts): Partial<AppOptions> {
  const { config } = deps;
  if (p.socket) {
    return {
      socketMode: true,
      appToken: config.slack.appToken,
      customRoutes: p.routes,
      // clientOptions: apps.connections.open goes to SLACK_API_URL too (the tests' fake Slack).
      installerOptions: { port: config.port, clientOptions: p.clientOptions },
      ...p.oauth,
    } as Partial<AppOptions>;
  }
  const receiver = new HTTPReceiver({
    signingSecret: config.slack.signingSecret ?? '',
    customRoutes: p.routes,
    processBeforeResponse: false,
    // The request gate below verifies every request to the Slack endpoint before Bolt sees it
    // (401, nothing stored, otherwise); a second HMAC, body decode and form parse in Bolt would
    // only repeat that work on the ack path. Bolt still answers ssl_check before any listener.
    signatureVerification: false,
    logger: p.boltLogger,
    ...p.oauth,
  });
  // Every request answered, nothing stored before the signature is verified (see http-gate.ts).
  const routes: Record<string, string[]> = {};
  for (const r of p.routes) routes[r.path] = Array.isArray(r.method) ? r.method : [r.method];
  if (p.oauth) {
    routes['/slack/install'] = ['GET'];
    routes['/slack/oauth_redirect'] = ['GET'];
  }
  receiver.requestListener = createRequestGate(receiver.requestListener, {
    signingSecret: config.slack.signingSecret ?? '',
    routes,
    claims: deps.store.leases,
    logger: deps.logger,
    now: deps.now,
    bodyLimit: DEFAULT_BODY_LIMIT,
    // A Workflow Builder step whose event is too large fails with the reason (not left waiting).
    onOversized: oversizedEventHandler(deps, DEFAULT_BODY_LIMIT),
  });
  return { receiver };
}

/**
 * Socket Mode: /readyz follows the WebSocket (socket-state.ts), and a reconnection cut short by a
 * stop ends quietly.
 */
export function watchSocketClient(
  app: App,
  socketState: ReturnType<typeof createSocketState>,
  logger: AppDeps['logger'],
): void {
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
