/**
 * The ONE place a Slack Web API client is made from a bot token.
 *
 * - API URL: SLACK_API_URL (the fake Slack in tests and the demo), else Slack's.
 * - Logger: Bolt's adapter over our pino logger, with the token itself redacted from every line.
 * - Retries, per use (two policies, nothing else):
 *   - interactive (default): `SLACK_RETRY_POLICY`, 2 quick retries (0.5-3 s), 429s waited for as
 *     Slack says. Bolt's own client (replies, views.open, the requests' calls: `boltClientOptions`,
 *     used by ../../app.ts; tests may pass { retries: 0 }) and `webClients(deps).forWorkspace(ws)`
 *     (Home publishes, the workflow steps' completions, audit lines).
 *   - queued (`{ queued: true }`): no SDK retries, rate-limited calls rejected at once, 15 s per
 *     call. For the background queues that pace and retry on their own, keeping their order: the
 *     watcher's and the notifier's posters and the runtimes' DMs (../../poster.ts
 *     `createPosterFactory`, ../../background-sender.ts). Letting the SDK retry too would multiply
 *     the retries and could post twice.
 * - Cache: ONE per app, a client per workspace and policy (`webClients(deps).forWorkspace(ws, o)`),
 *   rebuilt when the token (or SLACK_API_URL) changes, at most WEB_CLIENTS_MAX workspaces per policy
 *   (least recently used evicted), forgotten on uninstall (../../lifecycle.ts). The cache belongs to
 *   the app's configuration object (a WeakMap key), so two apps in one process (tests) never share
 *   clients and nothing needs resetting; the token is read through the caller's store (requests:
 *   the bounded one; background work: the unbounded one).
 */
import { type RetryOptions, WebClient, type WebClientOptions } from '@slack/web-api';
import { z } from 'zod';
import type { Config } from '../../../config.js';
import type { Logger } from '../../../log.js';
import { LruMap } from '../../../lru.js';
import type { Store, WorkspaceKey } from '../../../store/types.js';
import { appState } from '../app-state.js';
import { boltLogger } from './bolt-logger.js';

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

/** The WebClient options for `token` (Bolt's own client: `boltClientOptions`). */
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

/**
 * Bolt's `clientOptions` (its `app.client`, the per-request clients and the OAuth installer's):
 * the interactive policy of `webClientOptions` without a logger, since Bolt sets its own logger
 * on its clients (the app's, which redacts the Slack secrets).
 */
export function boltClientOptions(
  deps: ConfigDeps & { logger: Logger },
  o: Pick<ClientOptions, 'retryConfig'> = {},
): WebClientOptions {
  const { logger: _bolt, ...options } = webClientOptions(deps, undefined, o);
  return options;
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
  /**
   * The workspace's bot client (`queued: true`: the background queues' policy, see the file
   * header); undefined when the app is not installed there (no token).
   */
  forWorkspace(ws: WorkspaceKey, o?: { queued?: boolean }): Promise<WebClient | undefined>;
  /** Drop the cached clients of a workspace (uninstalled, tokens revoked), or of all. */
  forget(ws?: WorkspaceKey): void;
  /** Cached clients, every policy (tests). */
  readonly size: number;
}

type Cached = { key: string; client: WebClient };

/** The app's clients: one LRU per policy (kit/app-state.ts). */
const cacheOf = appState(() => ({
  interactive: new LruMap<WorkspaceKey, Cached>(WEB_CLIENTS_MAX),
  queued: new LruMap<WorkspaceKey, Cached>(WEB_CLIENTS_MAX),
}));

/** The bot clients of the app `deps` belongs to (one cache per app, tokens read with `deps`). */
export function webClients(
  deps: ConfigDeps & { store: Pick<Store, 'installations'>; logger: Logger },
): WebClients {
  const caches = cacheOf(deps);
  return {
    async forWorkspace(ws, o = {}) {
      const cache = o.queued ? caches.queued : caches.interactive;
      const token = await botToken(deps, ws);
      if (!token) {
        cache.delete(ws);
        return undefined;
      }
      const key = `${slackApiUrl(deps.config)}\u0000${token}`;
      const hit = cache.get(ws);
      if (hit && hit.key === key) return hit.client;
      const client = newWebClient(deps, token, o.queued ? { queued: true, component: 'watch-slack' } : {});
      cache.set(ws, { key, client });
      return client;
    },
    forget(ws) {
      for (const cache of [caches.interactive, caches.queued]) {
        if (ws === undefined) cache.clear();
        else cache.delete(ws);
      }
    },
    get size() {
      return caches.interactive.size + caches.queued.size;
    },
  };
}
