/**
 * Starting the app: a single workspace's token is checked once at start (auth.test, deferred from
 * Bolt's constructor so a refused or unreachable token is said in words, startup-check.ts, not an
 * unhandled rejection), then the receiver starts: HTTP listens on HOST:PORT, Socket Mode connects
 * and its health/OAuth server is bound to HOST too.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { App, AppOptions } from '@slack/bolt';
import type { Config } from '../config.js';
import type { AppDeps } from './deps.js';
import { botScopesOf } from './oauth.js';
import { describeSlackFailure, leastPrivilegeOnly, scopeReport, scopeWords } from './startup-check.js';

/**
 * A single workspace's token options. Without known ids Bolt would call auth.test in its
 * constructor and leave a refused or unreachable token as an unhandled rejection with a stack:
 * deferred instead (`deferred: true`), start() makes that call itself (`initialiseDeferred`).
 */
export function singleWorkspaceOptions(config: Config): { options: Partial<AppOptions>; deferred: boolean } {
  if (config.distribution !== 'single') return { options: {}, deferred: false };
  const options: Partial<AppOptions> = { token: config.slack.botToken };
  if (config.slack.botId && config.slack.botUserId) {
    // Known ids (tests, demo): skip the auth.test Bolt would otherwise make at first use.
    options.botId = config.slack.botId;
    options.botUserId = config.slack.botUserId;
    options.tokenVerificationEnabled = false;
    return { options, deferred: false };
  }
  options.deferInitialization = true;
  return { options, deferred: true };
}

/**
 * The start-up check of the bot token (deferred initialisation, above): auth.test once, its
 * failure said in words (the bot keeps running, /readyz not ready: health.ts asks again), the
 * granted scopes compared with what the bot asks for. Then Bolt is initialised without a second
 * call: with the ids auth.test gave, or (the token refused or Slack unreachable) resolving them at
 * the first request.
 */
export async function initialiseDeferred(app: App, deps: AppDeps, apiUrl: string): Promise<void> {
  const { config, logger } = deps;
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

/** Start receiving (HTTP: listen on HOST:PORT; Socket Mode: connect). Returns the bound port. */
export async function startReceiving(
  app: App,
  deps: AppDeps,
  o: { socket: boolean; apiUrl: string },
): Promise<{ port: number }> {
  const { config, logger } = deps;
  if (
    !config.dwmBaseUrl &&
    !config.serviceApiBaseUrl &&
    !config.envCredentials &&
    !config.upstream.allowedOrigins.length
  )
    logger.warn(
      'Neither DWM_BASE_URL nor SERVICE_API_BASE_URL is set: /dwm setup cannot save any credentials until they are (the URLs your service provider gives; npm run emulator prints local ones). Set them and restart.',
    );
  if (o.socket) {
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
      throw new Error(describeSlackFailure(e, 'SLACK_APP_TOKEN', o.apiUrl).words, { cause: e });
    }
    const port = bound ? await bound : config.port;
    logger.info(
      { mode: 'socket', distribution: config.distribution, host: config.host, port },
      'Slack app connected',
    );
    return { port };
  }
  const server = (await app.start({ port: config.port, host: config.host })) as Server;
  const port = (server.address() as AddressInfo).port;
  logger.info(
    { mode: 'http', distribution: config.distribution, host: config.host, port },
    'Slack app listening',
  );
  return { port };
}
