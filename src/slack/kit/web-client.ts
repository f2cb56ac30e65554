/**
 * The ONE place a Slack Web API client is made from a bot token.
 *
 * - API URL: SLACK_API_URL (the fake Slack in tests and the demo), else Slack's.
 * - Logger: Bolt's adapter over our pino logger, with the token itself redacted from every line.
 * - Retries: one policy, `SLACK_RETRY_POLICY` (2 quick retries, 0.5-3 s, 429s waited for as Slack
 *   says). Background queues that pace and retry on their own (the watcher's poster, the
 *   background sender) ask for `queued: true`: the SDK then does not retry and rejects rate-limited
 *   calls at once, so retries are not multiplied and the queue's pacing decides (see
 *   ../background-sender.ts and ../poster.ts).
 * - Cache: one client per workspace (`webClients(deps).forWorkspace(ws)`), rebuilt when the token
 *   rotates, at most WEB_CLIENTS_MAX workspaces (least recently used evicted), forgotten on
 *   uninstall (../lifecycle.ts). The cache belongs to the app's configuration object (a WeakMap
 *   key), so two apps in one process (tests) never share clients and nothing needs resetting.
 */
import { type RetryOptions, WebClient, type WebClientOptions } from '@slack/web-api';
import { z } from 'zod';
import type { Config } from '../../config.js';
import type { Logger } from '../../log.js';
import type { Store, WorkspaceKey } from '../../store/types.js';
import { appState } from './app-state.js';
import { boltLogger } from './bolt-logger.js';
import { LruMap } from './lru.js';

export const DEFAULT_SLACK_API_URL = 'https://slack.com/api/';

/** The Web API retry policy of every client that is not driven by a background queue. */
export const SLACK_RETRY_POLICY: RetryOptions = { retries: 2, factor: 2, minTimeout: 500, maxTimeout: 3000 };

/** Workspaces whose clients are kept. */
export const WEB_CLIENTS_MAX = 500;

/** Timeout of one Web API call of a queued (background) client. */
const QUEUED_TIMEOUT_MS = 15_000;

type ConfigDeps = { config: Pick<Config, 'distribution' | 'slack'> };

/** SLACK_API_URL, else Slack's own. */
export function slackApiUrl(config: Pick<Config, 'slack'>): string {
  return config.slack.apiUrl ?? DEFAULT_SLACK_API_URL;
}

export interface ClientOptions {
  /** A background queue retries and paces this client's calls: no SDK retries, 429s rejected. */
  queued?: boolean;
  /** Log component name (default 'slack-web'). */
  component?: string;
  /** Replace the retry policy (tests that script failures pass { retries: 0 }). */
  retryConfig?: RetryOptions;
}

/** The WebClient options for `token` (also used for Bolt's own client: see ../app.ts). */
export function webClientOptions(
  deps: ConfigDeps & { logger: Logger },
  token: string | undefined,
  o: ClientOptions = {},
): WebClientOptions {
  return {
    slackApiUrl: slackApiUrl(deps.config),
    retryConfig: o.retryConfig ?? (o.queued ? { retries: 0 } : SLACK_RETRY_POLICY),
    ...(o.queued ? { rejectRateLimitedCalls: true, timeout: QUEUED_TIMEOUT_MS } : {}),
    logger: boltLogger(deps.logger.child({ component: o.component ?? 'slack-web' }), token ? [token] : []),
  };
}

/** A new client for `token` (prefer `webClients(deps).forWorkspace`, which caches). */
export function newWebClient(deps: ConfigDeps & { logger: Logger }, token: string, o: ClientOptions = {}) {
  return new WebClient(token, webClientOptions(deps, token, o));
}

const storedBot = z.looseObject({ bot: z.looseObject({ token: z.string().min(1) }).optional() });

/** The workspace's bot token: SLACK_BOT_TOKEN (single) or the stored installation's (OAuth). */
export async function botToken(
  deps: ConfigDeps & { store: Pick<Store, 'installations'> },
  ws: WorkspaceKey,
): Promise<string | undefined> {
  if (deps.config.distribution === 'single') return deps.config.slack.botToken;
  const parsed = storedBot.safeParse(await deps.store.installations.get(ws));
  return parsed.success ? parsed.data.bot?.token : undefined;
}

export interface WebClients {
  /** The workspace's bot client; undefined when the app is not installed there (no token). */
  forWorkspace(ws: WorkspaceKey): Promise<WebClient | undefined>;
  /** Drop the cached client of a workspace (uninstalled, tokens revoked), or of all. */
  forget(ws?: WorkspaceKey): void;
  /** Cached clients (tests). */
  readonly size: number;
}

function createWebClients(
  deps: ConfigDeps & { store: Pick<Store, 'installations'>; logger: Logger },
): WebClients {
  const cache = new LruMap<WorkspaceKey, { key: string; client: WebClient }>(WEB_CLIENTS_MAX);
  const clients: WebClients = {
    async forWorkspace(ws) {
      const token = await botToken(deps, ws);
      if (!token) {
        cache.delete(ws);
        return undefined;
      }
      const key = `${slackApiUrl(deps.config)}\u0000${token}`;
      const hit = cache.get(ws);
      if (hit && hit.key === key) return hit.client;
      const client = newWebClient(deps, token);
      cache.set(ws, { key, client });
      return client;
    },
    forget(ws) {
      if (ws === undefined) cache.clear();
      else cache.delete(ws);
    },
    get size() {
      return cache.size;
    },
  };
  return clients;
}

/** The bot clients of the app `deps` belongs to (one cache per app: kit/app-state.ts). */
export const webClients = appState(createWebClients);
