/**
 * Background messages nobody waits on (the watch runtime's direct messages, audit mirror lines):
 * a small paced queue per workspace and channel, and a bounded LRU map for per-process caches.
 * Kept free of app.ts/listener imports so context.ts can use it without an import cycle.
 */
import type { WebClient } from '@slack/web-api';
import type { Logger } from '../log.js';
import type { Store, WorkspaceKey } from '../store/types.js';
import { systemClock } from '../watch/clock.js';
import { classifyDeliveryError } from '../watch/delivery-errors.js';
import { ChannelPacer, storeSlots } from '../watch/pacer.js';
import type { Clock } from '../watch/types.js';
import { appState } from './kit/app-state.js';

// -------------------------------------------------------------------------------------------------
// Background messages (direct messages of the watch runtime, audit mirror lines)
// -------------------------------------------------------------------------------------------------

/** A message sent in the background: the notification text and optional blocks. */
export interface BackgroundMessage {
  text: string;
  blocks?: unknown[];
}

/** The client a queued message is posted with (resolved when its turn comes). */
export type ClientSource = () => WebClient | Promise<WebClient>;

export interface BackgroundSenderOptions {
  logger: Logger;
  /** Timers and time (tests: FakeClock). Default real time. */
  clock?: Clock;
  /** Least time between two posts in one channel (Slack allows about 1 message/s per channel). */
  channelGapMs?: number;
  /**
   * The process's shared per-channel pacer (`appChannelPacer`): a channel that also gets job
   * cards or notices sees one post per gap in all. Default one of its own.
   */
  pacer?: ChannelPacer;
  /** Tries per message before it is dropped (logged). Default 5. */
  maxAttempts?: number;
  /** Messages waiting per channel; beyond it the newest is dropped (logged). Default 200. */
  maxQueued?: number;
}

export interface SendOptions {
  /**
   * Asked when the message's turn comes, before it is posted (with its client): false drops it
   * (the check says why in its own log). A throw counts as a failed post (retried when transient).
   */
  mayPost?: (client: WebClient) => Promise<boolean>;
}

export interface BackgroundSender {
  /**
   * Queue `msg` for `channel` (a channel id, or a user id for a direct message) of workspace `ws`.
   * Never throws and never waits for Slack: the caller (a user's request) goes on at once.
   */
  send(
    ws: WorkspaceKey,
    channel: string,
    msg: BackgroundMessage,
    client: ClientSource,
    label?: string,
    o?: SendOptions,
  ): void;
  /** Resolves when no post is in flight (messages waiting for a timer stay queued). */
  idle(): Promise<void>;
  /** Messages queued or in flight. */
  pending(): number;
  /** Stop: timers cleared, what is still queued is dropped (logged with the count). */
  stop(): Promise<void>;
}

interface Queued {
  msg: BackgroundMessage;
  mayPost?: SendOptions['mayPost'];
  client: ClientSource;
  label: string;
  attempts: number;
}

interface Lane {
  ws: WorkspaceKey;
  channel: string;
  items: Queued[];
  busy: boolean;
  timer: unknown;
  notBefore: number;
  /** The head item holds a slot of the shared pacer (booked, waiting for it). */
  booked: boolean;
  /** Its booking is on its way (the pacer answers asynchronously). */
  booking: boolean;
}

/**
 * A small paced queue per workspace and channel for messages nobody waits on:
 * - one post at a time per channel, at least `channelGapMs` apart (1 message/s per channel);
 * - a 429 waits Retry-After (at least the gap) and tries again; a transient failure (5xx, network,
 *   Slack's internal errors, an error of unknown shape) backs off 1 s, 2 s, 4 s…; after
 *   `maxAttempts` tries, or on a permanent error (channel_not_found, not_in_channel, invalid_auth…),
 *   the message is dropped and logged;
 * - every wait is a `clock.setTimer`, so `stop()` clears them (no work after stop) and tests run on
 *   a virtual clock. Real timers are unref'd: a queue never keeps the process alive.
 * Posts are `chat.postMessage` with the client given for that message (the request's client for
 * the audit mirror, the background client for the watch runtime's DMs).
 */
export function createBackgroundSender(o: BackgroundSenderOptions): BackgroundSender {
  const clock = o.clock ?? systemClock;
  const gap = o.channelGapMs ?? 1000;
  const pacer = o.pacer ?? new ChannelPacer();
  const maxAttempts = o.maxAttempts ?? 5;
  const maxQueued = o.maxQueued ?? 200;
  const log = o.logger.child({ component: 'background-sender' });
  const lanes = new Map<string, Lane>();
  const inflight = new Set<Promise<void>>();
  let stopped = false;

  const setTimer = (fn: () => void, ms: number): unknown => {
    const h = clock.setTimer(fn, ms);
    (h as { unref?: () => void } | undefined)?.unref?.();
    return h;
  };

  async function attempt(lane: Lane, item: Queued): Promise<void> {
    item.attempts++;
    try {
      const src = item.client();
      const c = src instanceof Promise ? await src : src;
      if (item.mayPost && !(await item.mayPost(c))) {
        lane.items.shift();
        lane.notBefore = clock.now();
        return;
      }
      await c.chat.postMessage({
        channel: lane.channel,
        text: item.msg.text,
        ...(item.msg.blocks ? { blocks: item.msg.blocks } : {}),
        unfurl_links: false,
        unfurl_media: false,
      });
      lane.items.shift();
      lane.notBefore = clock.now() + gap;
    } catch (e) {
      const c = classifyDeliveryError(e);
      const retry = c.type === 'rate' || c.type === 'transient' || c.type === 'unknown';
      const meta = { workspace: lane.ws, channel: lane.channel, what: item.label, attempts: item.attempts };
      if (!retry || item.attempts >= maxAttempts) {
        lane.items.shift();
        lane.notBefore = clock.now() + gap;
        log.warn(
          { ...meta, err: e, error: c.type === 'permanent' || c.type === 'rejected' ? c.code : c.type },
          'background message dropped',
        );
        return;
      }
      const backoff = gap * 2 ** (item.attempts - 1);
      const wait =
        c.type === 'rate'
          ? Math.max(c.retryAfterMs, gap)
          : Math.max(c.type === 'transient' ? (c.retryAfterMs ?? 0) : 0, backoff);
      lane.notBefore = clock.now() + wait;
      log.info({ ...meta, waitMs: wait, error: c.type }, 'background message will be retried');
    }
  }

  function pump(key: string): void {
    const lane = lanes.get(key);
    if (!lane || stopped || lane.busy || lane.booking || lane.timer !== undefined) return;
    const item = lane.items[0];
    if (!item) {
      lanes.delete(key);
      return;
    }
    const wait = lane.notBefore - clock.now();
    if (wait > 0) {
      lane.timer = setTimer(() => {
        lane.timer = undefined;
        pump(key);
      }, wait);
      return;
    }
    if (!lane.booked) {
      // The channel's next slot over every sender of the process (job cards, notices, this queue)
      // and, on a shared store, of every replica: booked first (a store round trip then), then
      // the lane waits for it.
      lane.booked = true;
      lane.booking = true;
      const b: Promise<void> = pacer
        .reserve(lane.ws, lane.channel, gap, clock.now())
        .then((slot) => {
          lane.booking = false;
          inflight.delete(b);
          if (slot > 0 && !stopped) {
            lane.timer = setTimer(() => {
              lane.timer = undefined;
              pump(key);
            }, slot);
          } else pump(key);
        })
        .catch((err: unknown) => {
          // reserve() never rejects; a throw in the step above must not stall the lane silently.
          lane.booking = false;
          inflight.delete(b);
          log.error(
            { err, workspace: lane.ws, channel: lane.channel },
            'background sender: pacing step failed',
          );
        });
      inflight.add(b);
      return;
    }
    lane.booked = false;
    lane.busy = true;
    const p: Promise<void> = attempt(lane, item).finally(() => {
      lane.busy = false;
      inflight.delete(p);
      pump(key);
    });
    inflight.add(p);
  }

  return {
    send(ws, channel, msg, client, label = 'message', o = {}) {
      if (stopped) {
        log.warn({ workspace: ws, channel, what: label }, 'background message after stop: dropped');
        return;
      }
      const key = `${ws}\u0000${channel}`;
      let lane = lanes.get(key);
      if (!lane) {
        lane = {
          ws,
          channel,
          items: [],
          busy: false,
          timer: undefined,
          notBefore: 0,
          booked: false,
          booking: false,
        };
        lanes.set(key, lane);
      }
      if (lane.items.length >= maxQueued) {
        log.warn(
          { workspace: ws, channel, what: label, queued: lane.items.length },
          'background queue full: message dropped',
        );
        return;
      }
      lane.items.push({ msg, client, label, attempts: 0, ...(o.mayPost ? { mayPost: o.mayPost } : {}) });
      pump(key);
    },
    async idle() {
      while (inflight.size) await Promise.all([...inflight]);
    },
    pending() {
      let n = 0;
      for (const l of lanes.values()) n += l.items.length;
      return n;
    },
    async stop() {
      stopped = true;
      let dropped = 0;
      for (const l of lanes.values()) {
        if (l.timer !== undefined) clock.clearTimer(l.timer);
        l.timer = undefined;
        dropped += l.items.length - (l.busy ? 1 : 0);
      }
      await Promise.all([...inflight]);
      lanes.clear();
      if (dropped) log.warn({ dropped }, 'background messages not sent before stop');
    },
  };
}

/** The app's per-channel pacers, one per clock (real time in production; tests' fake clocks). */
const pacersOf = appState(() => new Map<Clock, ChannelPacer>());

/** How long a shared slot booking may take before the pacer books in the process instead. */
export const SHARED_SLOT_TIMEOUT_MS = 2000;
/** A failing shared booking is logged at most this often (an outage fails every message). */
const SHARED_SLOT_WARN_EVERY_MS = 60_000;

/**
 * The ONE per-channel pacer of the app on `clock` (watch/pacer.ts), shared by the job deliverer,
 * the notices deliverer and the background senders, so that together they keep to about one
 * message per second per channel. On a Redis store (replicas) the real-time pacer books its slots
 * in the store, so the replicas keep to it together (watch/pacer.ts `storeSlots`); a booking that
 * takes longer than SHARED_SLOT_TIMEOUT_MS is made in the process. Callers on another clock (a
 * test's fake clock) get their own, in the process.
 */
export function appChannelPacer(
  deps: { config: object; store?: Store; logger?: Logger },
  clock: Clock = systemClock,
): ChannelPacer {
  const pacers = pacersOf(deps);
  let p = pacers.get(clock);
  if (!p) {
    const store = deps.store;
    if (store?.backend === 'redis' && clock === systemClock) {
      let warnedAt = Number.NEGATIVE_INFINITY;
      p = new ChannelPacer({
        shared: storeSlots(store.bounded(SHARED_SLOT_TIMEOUT_MS)),
        onSharedError: (err) => {
          const now = Date.now();
          if (now - warnedAt < SHARED_SLOT_WARN_EVERY_MS) return;
          warnedAt = now;
          deps.logger?.warn(
            { err },
            'channel pacing: the store could not book a slot; pacing in this process only',
          );
        },
      });
    } else p = new ChannelPacer();
    pacers.set(clock, p);
  }
  return p;
}

/** The app's sender slot (kit/app-state.ts): empty until first use and again after stop. */
const senderOf = appState((): { sender?: BackgroundSender } => ({}));

/**
 * The app's sender (one per app, whichever `AppDeps` of it asks: main.ts's request deps and its
 * background deps `{ ...deps, store }` reach the same one), used by the audit mirror and the
 * registration report fallback. Created on first use with real time; `stopAppSender(deps)`
 * (registered on the lifecycle by main.ts) stops it.
 */
export function appSender(deps: { config: object; logger: Logger; store?: Store }): BackgroundSender {
  const slot = senderOf(deps);
  slot.sender ??= createBackgroundSender({ logger: deps.logger, pacer: appChannelPacer(deps) });
  return slot.sender;
}

/** Stop the app's sender (no-op when none was created); a later `appSender` starts a new one. */
export async function stopAppSender(deps: { config: object; logger: Logger }): Promise<void> {
  const slot = senderOf(deps);
  const s = slot.sender;
  if (!s) return;
  slot.sender = undefined;
  await s.stop();
}
