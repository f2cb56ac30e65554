/**
 * The watch core's `ChannelPoster` over Slack's Web API, one per workspace.
 *
 * - The bot token comes from the environment (single-workspace distribution, SLACK_BOT_TOKEN) or
 *   from the stored installation of the workspace (OAuth distribution, the same record the
 *   installation store reads).
 * - The client is the workspace's queued client of the app's ONE client cache
 *   (kit/web/client.ts `webClients(deps).forWorkspace(ws, { queued: true })`): the SDK's own
 *   retries are OFF and rate-limited calls are rejected at once (`rejectRateLimitedCalls`): the
 *   watch core paces 1 message/s per channel, waits Retry-After and retries itself, keeping the
 *   outbox order. Letting the SDK retry too would double-post.
 * - Every Slack failure is re-thrown as a `DeliveryError` (code, Retry-After, HTTP status) so the
 *   core can tell rate limits, transient errors and permanent ones apart (src/watch/types.ts).
 * - `findByMetadata` reads `conversations.history` (top level) or `conversations.replies` (a
 *   thread) with `include_all_metadata` and looks for the `drm_chatops_delivery` key: the core's
 *   exactly-once check after a crash between posting and recording.
 */
import type { KnownBlock } from '@slack/types';
import type { WebClient } from '@slack/web-api';
import type { Logger } from '../log.js';
import { slackCallErrors } from '../metrics.js';
import type { Store, WorkspaceKey } from '../store/types.js';
import {
  type ChannelMessage,
  type ChannelPoster,
  DELIVERY_EVENT_TYPE,
  DeliveryError,
  type PostOptions,
  SHARED_CHANNEL,
} from '../watch/types.js';
import type { AppDeps } from './deps.js';
import { sharedAndNotAllowed } from './kit/context/channels/access.js';
import { newWebClient, webClients } from './kit/web/client.js';

/**
 * Map a Web API failure to a DeliveryError (already one: returned as is). An error of unknown
 * shape is returned unchanged: the core then keeps the entry and retries on the next drain
 * through its metadata check (it may have been posted), instead of dropping it.
 */
export function toDeliveryError(e: unknown): unknown {
  if (e instanceof DeliveryError) return e;
  const x = (e ?? {}) as {
    code?: unknown;
    retryAfter?: unknown;
    data?: { error?: unknown };
    statusCode?: unknown;
  };
  if (x.code === 'slack_webapi_rate_limited_error') {
    const s = typeof x.retryAfter === 'number' && x.retryAfter >= 0 ? x.retryAfter : 1;
    return new DeliveryError('ratelimited', { retryAfterMs: s * 1000, httpStatus: 429 });
  }
  if (x.code === 'slack_webapi_platform_error' && typeof x.data?.error === 'string') {
    return new DeliveryError(x.data.error);
  }
  if (x.code === 'slack_webapi_http_error' && typeof x.statusCode === 'number') {
    return new DeliveryError(`http_${x.statusCode}`, { httpStatus: x.statusCode });
  }
  if (x.code === 'slack_webapi_request_error') return new DeliveryError('network');
  return e;
}

interface HistoryMessage {
  ts?: string;
  thread_ts?: string;
  metadata?: { event_type?: string; event_payload?: { key?: unknown } };
}

const HISTORY_PAGE = 200;
/** Pages read when looking for a delivery (200 messages each); the window is minutes wide. */
const HISTORY_MAX_PAGES = 10;

/**
 * The watch core (src/watch) carries a message's blocks opaquely (it knows nothing of Slack);
 * they were built by the watch feature's renderer (features/watch/render-card.ts) with the typed
 * Block Kit builders, so they are Block Kit here.
 */
function slackBlocks(blocks: unknown[]): KnownBlock[] {
  return blocks as KnownBlock[];
}

export interface PosterOptions {
  /**
   * The history scope of a conversation is not granted (a least-privilege install,
   * `npm run manifest -- --minimal-scopes`): the lookup answers "not found", so a notification
   * whose posting a crash left in doubt is posted again (at-least-once) instead of failing.
   */
  onNoHistoryScope?: (channel: string) => void;
}

/** A ChannelPoster over one WebClient (a client per workspace; see `createPosterFactory`). */
export function createPoster(client: () => Promise<WebClient>, po: PosterOptions = {}): ChannelPoster {
  const call = async <T>(fn: (c: WebClient) => Promise<T>): Promise<T> => {
    try {
      return await fn(await client());
    } catch (e) {
      const err = toDeliveryError(e);
      const code = err instanceof DeliveryError && /^[a-z0-9_]{1,40}$/.test(err.code) ? err.code : 'other';
      slackCallErrors.inc({ code });
      throw err;
    }
  };
  return {
    async post(channel: string, message: ChannelMessage, opts: PostOptions) {
      const base = {
        channel,
        text: message.text,
        ...(message.blocks ? { blocks: slackBlocks(message.blocks) } : {}),
        metadata: opts.metadata,
        unfurl_links: false,
        unfurl_media: false,
      };
      const r = await call((c) =>
        c.chat.postMessage(
          !opts.threadTs
            ? base
            : opts.broadcast
              ? { ...base, thread_ts: opts.threadTs, reply_broadcast: true }
              : { ...base, thread_ts: opts.threadTs },
        ),
      );
      // Unknown shape on purpose: the core re-checks by metadata on the next drain.
      if (typeof r.ts !== 'string') throw new Error('chat.postMessage returned no ts');
      return { ts: r.ts };
    },
    async update(channel: string, ts: string, message: ChannelMessage) {
      await call((c) =>
        c.chat.update({
          channel,
          ts,
          text: message.text,
          ...(message.blocks ? { blocks: slackBlocks(message.blocks) } : {}),
        }),
      );
    },
    async findByMetadata(channel: string, deliveryKey: string, sinceTs: string, threadTs?: string) {
      try {
        return await findIn(channel, deliveryKey, sinceTs, threadTs);
      } catch (e) {
        if (!(e instanceof DeliveryError && e.code === 'missing_scope')) throw e;
        po.onNoHistoryScope?.(channel);
        return undefined;
      }
    },
  };

  async function findIn(
    channel: string,
    deliveryKey: string,
    sinceTs: string,
    threadTs?: string,
  ): Promise<{ ts: string } | undefined> {
    let cursor: string | undefined;
    for (let page = 0; page < HISTORY_MAX_PAGES; page++) {
      const r = await call((c) =>
        threadTs
          ? c.conversations.replies({
              channel,
              ts: threadTs,
              oldest: sinceTs,
              inclusive: true,
              include_all_metadata: true,
              limit: HISTORY_PAGE,
              ...(cursor ? { cursor } : {}),
            })
          : c.conversations.history({
              channel,
              oldest: sinceTs,
              inclusive: true,
              include_all_metadata: true,
              limit: HISTORY_PAGE,
              ...(cursor ? { cursor } : {}),
            }),
      );
      for (const m of (r.messages ?? []) as HistoryMessage[]) {
        if (
          m.metadata?.event_type === DELIVERY_EVENT_TYPE &&
          m.metadata.event_payload?.key === deliveryKey &&
          typeof m.ts === 'string' &&
          // replies() returns the parent too: it is the card, never this thread message.
          !(threadTs && m.ts === threadTs)
        ) {
          return { ts: m.ts };
        }
      }
      cursor = r.response_metadata?.next_cursor || undefined;
      if (!r.has_more || !cursor) return undefined;
    }
    return undefined;
  }
}

/**
 * A new (uncached) WebClient with the background policy: no SDK retries, rate limits rejected,
 * logs through pino. The runtimes use the cached one (`createPosterFactory`).
 */
export function backgroundClient(
  deps: { config: AppDeps['config']; logger: Logger },
  token: string,
): WebClient {
  return newWebClient(deps, token, { queued: true, component: 'watch-slack' });
}

export interface PosterFactory {
  /** The poster of a workspace (what `createWatcher({ poster })` takes). */
  poster(ws: WorkspaceKey): ChannelPoster;
  /** The background WebClient of a workspace; DeliveryError('token_revoked') when not installed. */
  client(ws: WorkspaceKey): Promise<WebClient>;
  /** Forget cached clients (after a reinstall the token changes; after an uninstall). */
  forget(ws?: WorkspaceKey): void;
}

/**
 * Posters per workspace over the app's cached queued clients (kit/web/client.ts: one cache per
 * app, shared by the watcher and the notifier). A poster holds no client: each call asks the cache,
 * so a rotated token is picked up at once. A workspace without a token (uninstalled, or the
 * installation lost) fails with `token_revoked`: the core pauses its subscriptions and tells the
 * creator to reinstall, which is the right advice.
 */
export function createPosterFactory(deps: {
  config: AppDeps['config'];
  store: Store;
  logger: Logger;
  now?: () => number;
}): PosterFactory {
  const clients = webClients(deps);
  async function client(ws: WorkspaceKey): Promise<WebClient> {
    const c = await clients.forWorkspace(ws, { queued: true });
    if (!c)
      throw new DeliveryError('token_revoked', { message: `No Slack installation for workspace ${ws}` });
    return c;
  }
  const checkDeps = { config: deps.config, store: deps.store, now: deps.now ?? Date.now };
  // Said once per workspace: every lookup there would say the same.
  const toldNoHistory = new Set<WorkspaceKey>();
  return {
    client,
    poster: (ws) =>
      guardSharedChannels(
        createPoster(() => client(ws), {
          onNoHistoryScope: (channel) => {
            if (toldNoHistory.has(ws)) return;
            toldNoHistory.add(ws);
            deps.logger.info(
              { workspace: ws, channel },
              'No history scope granted: a notification whose posting a crash left in doubt is posted again (at-least-once) instead of looked for.',
            );
          },
        }),
        (channel) => sharedAndNotAllowed(checkDeps, ws, () => client(ws), channel),
      ),
    forget: (ws) => clients.forget(ws),
  };
}

/**
 * The delivery-time rule of channels shared with another organisation (Slack Connect): before a
 * post or an edit in a channel (never a DM), `refused(channel)` (kit/context/channels/access.ts, cached) is
 * asked; a channel shared since its subscriptions were made, and not allowed by an admin, fails
 * with the permanent `DeliveryError(SHARED_CHANNEL)`: the core pauses that channel's job
 * subscriptions, alerts and digest once, with the reason, and their creators are told.
 */
export function guardSharedChannels(
  poster: ChannelPoster,
  refused: (channel: string) => Promise<boolean>,
): ChannelPoster {
  const check = async (channel: string) => {
    if (channel.startsWith('D')) return;
    let no: boolean;
    try {
      no = await refused(channel);
    } catch (e) {
      throw toDeliveryError(e);
    }
    if (no)
      throw new DeliveryError(SHARED_CHANNEL, {
        message: `Channel ${channel} is shared with another organisation`,
      });
  };
  return {
    async post(channel, message, opts) {
      await check(channel);
      return poster.post(channel, message, opts);
    },
    async update(channel, ts, message) {
      await check(channel);
      return poster.update(channel, ts, message);
    },
    findByMetadata: (...a) => poster.findByMetadata(...a),
  };
}
