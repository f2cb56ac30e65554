/**
 * Delivery of outbox entries to Slack channels through an injected `ChannelPoster`.
 *
 * Exactly-once, even with kill -9 between posting and marking delivered:
 *  1. Before posting, the entry is saved as `sending` with the message key and the time.
 *  2. Every posted message carries Slack message metadata
 *     `{ event_type: 'drm_chatops_delivery', event_payload: { key } }`.
 *  3. After posting, a tombstone is written and the entry deleted (outbox.finish).
 *  If the process dies after 2 and before 3, the entry is still `sending` on the next drain (this
 *  process or another replica after the lease moves): we ask `findByMetadata(channel, key, since)`
 *  first and, when Slack already has the message, record its ts instead of posting again. A crash
 *  before 2 finds nothing and posts. Card edits (`chat.update`) are idempotent and need no check.
 *
 * Ordering and pacing: entries of one channel go out in creation order, at most one Slack call
 * per second per channel (a per-channel scheduler; channels proceed in parallel). Across replicas
 * a site's entries are drained only by the replica holding that site's poll lease.
 *
 * Errors: 429/ratelimited waits Retry-After and retries (never drops; after a few inline retries
 * the entry is deferred to the next drain, keeping order); 5xx/network retries with exponential
 * backoff the same way; permanent errors (channel_not_found, is_archived, not_in_channel,
 * account_inactive, token_revoked, missing_scope, invalid_auth, a channel that does not let the app
 * post: PERMANENT_DELIVERY_ERRORS) pause the channel's subscriptions with the reason and emit
 * `subscription-paused`; other Slack rejections (invalid_blocks, msg_too_long: a rendering bug)
 * are sent once more as plain text (delivery-errors.ts `withPlainTextRetry`: no blocks, the text
 * cut to 3,000 characters), and dropped with a log line only when that is refused too. Errors of
 * unknown shape leave the entry as it is (it may have been posted) and stop the channel until the
 * next drain, which goes through the metadata check above.
 */
import pLimit from 'p-limit';
import type { Logger } from '../log.js';
import { notifications } from '../metrics.js';
import { classifyDeliveryError, retryWaitMs, withPlainTextRetry } from './delivery-errors.js';
import { deliveryKey, type Outbox, type OutboxEntry, PARENT_TTL_MS, parentId } from './outbox.js';
import { ChannelPacer } from './pacer.js';
import type { Subscriptions } from './subscriptions.js';
import {
  type ChannelMessage,
  type ChannelPoster,
  type Clock,
  DELIVERY_EVENT_TYPE,
  type PausedReason,
  type Subscription,
  type ThreadUpdate,
  type WatchEvents,
  type WatchRenderer,
} from './types.js';

export interface DelivererOptions {
  outbox: Outbox;
  subscriptions: Subscriptions;
  renderer: WatchRenderer;
  poster: (ws: string) => ChannelPoster;
  clock: Clock;
  logger: Logger;
  emit: WatchEvents;
  /** Why a subscription is paused, in the Slack layer's words. */
  pausedReason: PausedReason;
  /** Minimum gap between two Slack calls in one channel. Default 1000 ms (Slack's 1 msg/s/channel). */
  channelIntervalMs?: number;
  /** The process's shared per-channel pacer (watch/pacer.ts); default one of its own. */
  pacer?: ChannelPacer;
  /** Retries inside one drain before deferring the entry to the next drain. Default 5. */
  maxInlineAttempts?: number;
  backoffBaseMs?: number;
  backoffCapMs?: number;
  /** Channels drained in parallel. Default 8. */
  channelConcurrency?: number;
  /** Slack clock skew allowance for the metadata search window. Default 120 s. */
  recoveryWindowMs?: number;
}

export interface DrainResult {
  delivered: number;
  deferred: number;
  dropped: number;
  remaining: number;
}

type Step = 'ok' | 'stop';

export class Deliverer {
  private readonly o: Required<
    Omit<
      DelivererOptions,
      | 'outbox'
      | 'subscriptions'
      | 'renderer'
      | 'poster'
      | 'clock'
      | 'logger'
      | 'emit'
      | 'pacer'
      | 'pausedReason'
    >
  >;
  private readonly pacer: ChannelPacer;
  private readonly locks = new Map<string, Promise<unknown>>();

  constructor(private readonly d: DelivererOptions) {
    this.pacer = d.pacer ?? new ChannelPacer();
    this.o = {
      channelIntervalMs: d.channelIntervalMs ?? 1000,
      maxInlineAttempts: d.maxInlineAttempts ?? 5,
      backoffBaseMs: d.backoffBaseMs ?? 1000,
      backoffCapMs: d.backoffCapMs ?? 60_000,
      channelConcurrency: d.channelConcurrency ?? 8,
      recoveryWindowMs: d.recoveryWindowMs ?? 120_000,
    };
  }

  /** Deliver what is due for a workspace (optionally one site's entries). */
  async drain(ws: string, siteId?: string): Promise<DrainResult> {
    const res: DrainResult = { delivered: 0, deferred: 0, dropped: 0, remaining: 0 };
    const entries = await this.d.outbox.pending(ws, siteId);
    const byChannel = new Map<string, OutboxEntry[]>();
    for (const e of entries) {
      const list = byChannel.get(e.channelId) ?? [];
      list.push(e);
      byChannel.set(e.channelId, list);
    }
    const limit = pLimit(this.o.channelConcurrency);
    const poster = this.d.poster(ws);
    await Promise.all(
      [...byChannel].map(([channel, list]) =>
        limit(() => this.withLock(`${ws}|${channel}`, () => this.drainChannel(ws, list, poster, res))),
      ),
    );
    // Nothing of this site to deliver (most polls): the workspace's size is what pending() just
    // counted; after deliveries it is counted again.
    res.remaining = byChannel.size === 0 ? this.d.outbox.knownSize(ws) : await this.d.outbox.refreshSize(ws);
    return res;
  }

  private async withLock<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.locks.get(key) ?? Promise.resolve();
    const run = prev.then(fn, fn);
    const tail = run.catch(() => undefined);
    this.locks.set(key, tail);
    try {
      return await run;
    } finally {
      if (this.locks.get(key) === tail) this.locks.delete(key);
    }
  }

  private async drainChannel(ws: string, list: OutboxEntry[], poster: ChannelPoster, res: DrainResult) {
    const handled = new Set<string>();
    for (const e of list) {
      if (handled.has(e.key)) continue;
      if (e.nextAttemptAt !== undefined && e.nextAttemptAt > this.d.clock.now()) break; // keep order
      // Tombstoned but still live: the process died between outbox.finish's two writes. It was
      // delivered (or dropped) already: finish the delete and never post it again. Without this the
      // Slack metadata search is the only guard, and it misses when Slack's clock or history lags.
      const tomb = await this.d.outbox.tombstone(ws, e.key);
      if (tomb) {
        await this.d.outbox.discard(ws, e.key);
        handled.add(e.key);
        // A digest is one message for its whole group: the members not yet tombstoned when the
        // process died were delivered by the same post.
        if (e.kind === 'digest' && e.messageKey && tomb.outcome === 'delivered') {
          for (const x of list) {
            if (handled.has(x.key) || x.kind !== 'digest' || x.group !== e.group) continue;
            if (x.state !== 'sending' || x.messageKey !== e.messageKey) continue;
            await this.d.outbox.finish(x, tomb);
            handled.add(x.key);
          }
        }
        continue;
      }
      const sub = await this.d.subscriptions.get(ws, e.subscriptionId);
      // A paused subscription's pending notifications are dropped (counted as failed), not kept
      // for a resume: the channel could not receive them (archived, bot removed, token revoked)
      // and may stay so for days; replaying stale cards into it after a resume would flood it,
      // and the polls skip paused subscriptions anyway, so a replay would still miss what changed
      // while paused. The creator's "paused" message says so and points to the job list.
      if (!sub || sub.paused) {
        await this.d.outbox.finish(e, {
          outcome: 'dropped',
          at: this.d.clock.now(),
          reason: sub ? `subscription paused: ${sub.paused?.code}` : 'unsubscribed',
        });
        handled.add(e.key);
        res.dropped++;
        continue;
      }
      const group =
        e.kind === 'digest'
          ? list.filter((x) => x.kind === 'digest' && x.group === e.group && !handled.has(x.key))
          : [e];
      const step = await this.deliverWithRetry(ws, sub, group, list, poster, res);
      for (const g of group) handled.add(g.key);
      if (step === 'stop') break;
    }
  }

  private async deliverWithRetry(
    ws: string,
    sub: Subscription,
    group: OutboxEntry[],
    list: OutboxEntry[],
    poster: ChannelPoster,
    res: DrainResult,
  ): Promise<Step> {
    const e = group[0] as OutboxEntry;
    const sender = withPlainTextRetry(poster, (code) =>
      this.d.logger.error(
        { channel: e.channelId, key: e.key, code },
        'Slack rejected a notification; sending it as plain text',
      ),
    );
    for (let attempt = 1; ; attempt++) {
      try {
        const ts = await this.deliverOne(ws, sub, group, sender);
        for (const g of group) {
          await this.d.outbox.finish(g, {
            outcome: 'delivered',
            at: this.d.clock.now(),
            ...(ts ? { ts } : {}),
          });
        }
        res.delivered += group.length;
        notifications.inc({ outcome: 'delivered' }, group.length);
        if (ts) {
          this.d.emit({
            type: 'delivered',
            workspace: ws,
            channelId: e.channelId,
            key: e.messageKey ?? e.key,
            jobIds: group.map((g) => g.jobId),
            ts,
          });
        }
        return 'ok';
      } catch (err) {
        const c = classifyDeliveryError(err);
        if (c.type === 'rate' || c.type === 'transient') {
          notifications.inc({ outcome: 'retried' });
          // A 429 of chat.postMessage was not processed by Slack: the message was not posted. A
          // 429 of the lookup (history reads are limited to one a minute for some apps) says
          // nothing of the earlier post: the entries stay in doubt ('sending') and are looked up
          // again, never posted blind (that would post them twice).
          if (c.type === 'rate' && !LOOKUP_ERRORS.has(err as object))
            for (const g of group) g.state = 'pending';
          const wait = retryWaitMs(c, attempt, this.o);
          if (attempt >= this.o.maxInlineAttempts) {
            for (const g of group) {
              g.attempts += 1;
              g.nextAttemptAt = this.d.clock.now() + wait;
              await this.d.outbox.save(g);
            }
            res.deferred += group.length;
            this.d.logger.warn({ channel: e.channelId, key: e.key, kind: c.type }, 'delivery deferred');
            return 'stop';
          }
          await this.d.clock.sleep(wait);
          continue;
        }
        if (c.type === 'permanent') {
          await this.pauseChannel(ws, e.channelId, c.code);
          for (const g of group) {
            await this.d.outbox.finish(g, { outcome: 'dropped', at: this.d.clock.now(), reason: c.code });
          }
          res.dropped += group.length;
          notifications.inc({ outcome: 'failed' }, group.length);
          // The rest of the channel's entries are dropped by the paused check in drainChannel.
          void list;
          return 'ok';
        }
        if (c.type === 'rejected') {
          this.d.logger.error(
            { channel: e.channelId, key: e.key, code: c.code },
            'Slack rejected a notification',
          );
          for (const g of group) {
            await this.d.outbox.finish(g, { outcome: 'dropped', at: this.d.clock.now(), reason: c.code });
          }
          res.dropped += group.length;
          notifications.inc({ outcome: 'failed' }, group.length);
          return 'ok';
        }
        this.d.logger.error(
          { channel: e.channelId, key: e.key, err },
          'delivery failed with an unexpected error; will retry next cycle',
        );
        return 'stop';
      }
    }
  }

  /** Pause the channel's subscriptions not paused yet, with the reason; emits subscription-paused for each. */
  async pauseChannel(ws: string, channelId: string, code: string): Promise<void> {
    const reason = this.d.pausedReason(code, { do: 'watch-again' });
    const subs = await this.d.subscriptions.list(ws, { channelId });
    for (const s of subs) {
      if (s.paused) continue;
      const paused = await this.d.subscriptions.pause(ws, s.id, { reason, code });
      if (paused)
        this.d.emit({
          type: 'subscription-paused',
          workspace: ws,
          subscription: paused,
          code,
          message: reason,
        });
    }
  }

  private async throttle(ws: string, channel: string): Promise<void> {
    const wait = await this.pacer.reserve(ws, channel, this.o.channelIntervalMs, this.d.clock.now());
    if (wait > 0) await this.d.clock.sleep(wait);
  }

  /** Performs the Slack call(s) of one entry (or digest group); returns the posted ts, if any. */
  private async deliverOne(
    ws: string,
    sub: Subscription,
    group: OutboxEntry[],
    poster: ChannelPoster,
  ): Promise<string | undefined> {
    const e = group[0] as OutboxEntry;
    const channel = e.channelId;
    const pid = parentId(channel, e.jobId);
    if (e.kind === 'digest') {
      const messageKey = deliveryKey(ws, channel, 'digest', e.group ?? e.key);
      const jobs = group.map((g) => g.summary);
      const msg = this.d.renderer.renderDigest(
        {
          siteId: e.siteId,
          jobs,
          completed: jobs.filter((j) => j.status === 'DM500').length,
          failed: jobs.filter((j) => j.status === 'DM600').length,
        },
        sub,
      );
      return this.postOnce(ws, group, messageKey, msg, poster, {});
    }
    const parent = await this.d.outbox.parents.get(ws, pid);
    if (e.kind === 'card') {
      const msg = this.d.renderer.renderJobCard(e.summary, sub);
      if (parent) {
        await this.throttle(ws, channel);
        await poster.update(channel, parent.ts, msg);
        return undefined;
      }
      if (e.quiet) return undefined;
      const ts = await this.postOnce(ws, group, e.key, msg, poster, {});
      await this.d.outbox.parents.put(
        ws,
        pid,
        { ts, postedStatus: e.summary.status, siteId: e.siteId },
        PARENT_TTL_MS,
      );
      return ts;
    }
    // thread
    const t = e.thread ?? { kind: 'progress' };
    let update: ThreadUpdate;
    let broadcast = false;
    if (t.kind === 'final') {
      const failed = e.summary.status === 'DM600';
      // A card first posted in its final state already is the channel notification.
      const cardIsNotice = !parent || parent.postedStatus === e.summary.status;
      broadcast = !cardIsNotice && (sub.mode === 'all' || failed);
      update = { kind: 'final', summary: e.summary, broadcast };
    } else if (t.kind === 'status') {
      update = { kind: 'status', summary: e.summary, previous: t.previous };
    } else if (t.kind === 'task-failed') {
      update = { kind: 'task-failed', summary: e.summary, failure: t.failure };
    } else {
      update = { kind: 'progress', summary: e.summary };
    }
    const msg = this.d.renderer.renderThreadUpdate(update, sub);
    return this.postOnce(ws, group, e.key, msg, poster, {
      ...(parent ? { threadTs: parent.ts } : {}),
      ...(parent && broadcast ? { broadcast: true } : {}),
    });
  }

  private async postOnce(
    ws: string,
    group: OutboxEntry[],
    messageKey: string,
    msg: ChannelMessage,
    poster: ChannelPoster,
    opts: { threadTs?: string; broadcast?: boolean },
  ): Promise<string> {
    const channel = (group[0] as OutboxEntry).channelId;
    const sending = group.filter((g) => g.state === 'sending' && g.messageKey === messageKey);
    if (sending.length > 0) {
      // Recovery: we may have posted before dying. Look for the message carrying this key.
      const since = Math.min(...sending.map((g) => g.sendingAt ?? 0)) - this.o.recoveryWindowMs;
      let found: { ts: string } | undefined;
      try {
        found = await poster.findByMetadata(channel, messageKey, toSlackTs(since), opts.threadTs);
      } catch (e) {
        if (e !== null && typeof e === 'object') LOOKUP_ERRORS.add(e);
        throw e;
      }
      if (found) {
        this.d.logger.info({ channel, key: messageKey }, 'recovered a delivery already posted');
        return found.ts;
      }
    }
    for (const g of group) {
      g.state = 'sending';
      g.sendingAt = this.d.clock.now();
      g.messageKey = messageKey;
      await this.d.outbox.save(g);
    }
    await this.throttle(ws, channel);
    const { ts } = await poster.post(channel, msg, {
      ...opts,
      metadata: { event_type: DELIVERY_EVENT_TYPE, event_payload: { key: messageKey } },
    });
    return ts;
  }
}

/** Errors thrown by the recovery lookup (findByMetadata), told apart from those of the post. */
const LOOKUP_ERRORS = new WeakSet<object>();

/** Epoch ms -> Slack ts string ("seconds.micros"). */
export function toSlackTs(ms: number): string {
  const v = Math.max(0, ms);
  return `${Math.floor(v / 1000)}.${String((v % 1000) * 1000).padStart(6, '0')}`;
}
