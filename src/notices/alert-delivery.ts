/**
 * The outbox handlers of the three alert notice kinds (`alert-start`, `alert-update`,
 * `alert-recovery`): post the alert, update it in place, reply the recovery in its thread; a
 * notice of a stopped subscription is not delivered (except its final "stopped" form); a channel
 * Slack refuses for good pauses the subscription and tells its creator (`notify-paused`).
 */
import { z } from 'zod';
import type { Logger } from '../log.js';
import type { AlertPayload } from './alert-state.js';
import { type AlertSubscriptions, alertSubscriptionSchema } from './alert-subscriptions.js';
import type { DeliverContext, DeliverResult, NoticeEntry, NoticeHandler } from './outbox.js';
import type { AlertSubscription, NotifyEvent } from './types.js';

const alertPayloadSchema = z.object({
  alert: z
    .object({ kind: z.enum(['spike', 'recovery']), subscription: alertSubscriptionSchema })
    .passthrough(),
  startKey: z.string(),
  rootUpdate: z
    .object({ kind: z.literal('spike') })
    .passthrough()
    .optional(),
});

function spikePrefix(key: string): string {
  const i = key.lastIndexOf(':');
  return key.slice(0, i);
}

export interface AlertHandlerDeps {
  subscriptions: AlertSubscriptions;
  emit: (e: NotifyEvent) => void;
  logger?: Logger;
}

/** Handlers of the three alert notice kinds. */
export function alertHandlers(
  d: AlertHandlerDeps,
): Record<'alert-start' | 'alert-update' | 'alert-recovery', NoticeHandler> {
  const onPermanent = async (entry: NoticeEntry, code: string, message: string) => {
    const p = entry.payload as AlertPayload;
    const sub = p.alert.subscription;
    const paused = await d.subscriptions.pause(entry.workspace, sub.id, {
      reason: message,
      code,
      at: new Date().toISOString(),
    });
    if (paused) {
      d.emit({
        type: 'notify-paused',
        workspace: entry.workspace,
        feature: 'alerts',
        channelId: sub.channelId,
        createdBy: sub.createdBy,
        code,
        message,
      });
    }
  };

  const isStopped = (p: AlertPayload) => p.alert.kind === 'spike' && p.alert.state === 'stopped';
  /**
   * The subscription still exists (the same one: a re-subscription has a new creation time). A
   * notice of a stopped subscription (a poll racing the stop) is not delivered, except its final
   * "stopped" update.
   */
  async function live(ws: string, sub: AlertSubscription): Promise<boolean> {
    const cur = await d.subscriptions.get(ws, sub.id);
    return cur !== undefined && cur.createdAt === sub.createdAt;
  }

  /** The alert message of the spike: posted (its ts), not yet (wait), or never (dropped). */
  async function root(entry: NoticeEntry, ctx: DeliverContext, startKey: string) {
    const tomb = await ctx.outbox.tombstone(entry.workspace, startKey);
    if (tomb)
      return tomb.outcome === 'delivered' && tomb.ts && tomb.channel
        ? { channel: tomb.channel, ts: tomb.ts }
        : null;
    const live = await ctx.outbox.get(entry.workspace, startKey);
    if (live) return live.steps.post ?? 'wait';
    return null;
  }

  const start: NoticeHandler = {
    onPermanent,
    resumeStep: { do: 'alerts-watch-again' },
    async deliver(entry, ctx): Promise<DeliverResult> {
      const p = alertPayloadSchema.parse(entry.payload) as unknown as AlertPayload;
      const ch = p.alert.subscription.channelId;
      if (!entry.steps.post && !entry.sending && !(await live(entry.workspace, p.alert.subscription)))
        return { done: true };
      const main = await ctx.postOnce('post', { channel: ch }, (key) =>
        ctx.ports.postAlert(ch, p.alert, { key }),
      );
      return { done: true, main };
    },
  };
  const update: NoticeHandler = {
    onPermanent,
    resumeStep: { do: 'alerts-watch-again' },
    // The "stopped" update is final: nothing supersedes it.
    supersededBy: (e, later) =>
      !e.key.endsWith(':stopped') &&
      (later.kind === 'alert-update' || later.kind === 'alert-recovery') &&
      spikePrefix(later.key) === spikePrefix(e.key),
    async deliver(entry, ctx): Promise<DeliverResult> {
      const p = alertPayloadSchema.parse(entry.payload) as unknown as AlertPayload;
      if (!isStopped(p) && !(await live(entry.workspace, p.alert.subscription))) return { done: true };
      const r = await root(entry, ctx, p.startKey);
      if (r === 'wait') return { done: false, reason: 'the alert is not posted yet' };
      if (!r) return { done: true };
      await ctx.tryCall(() => ctx.ports.updateAlert(r.channel, r.ts, p.alert));
      return { done: true };
    },
  };
  const recovery: NoticeHandler = {
    onPermanent,
    resumeStep: { do: 'alerts-watch-again' },
    async deliver(entry, ctx): Promise<DeliverResult> {
      const p = alertPayloadSchema.parse(entry.payload) as unknown as AlertPayload;
      if (!entry.steps.reply && !entry.sending && !(await live(entry.workspace, p.alert.subscription)))
        return { done: true };
      const r = await root(entry, ctx, p.startKey);
      if (r === 'wait') return { done: false, reason: 'the alert is not posted yet' };
      // The alert never reached the channel: a recovery alone would be noise.
      if (!r) return { done: true };
      const main = await ctx.postOnce('reply', { channel: r.channel, threadTs: r.ts }, (key) =>
        ctx.ports.postAlert(r.channel, p.alert, { key, threadTs: r.ts }),
      );
      const rootUpdate = p.rootUpdate;
      if (rootUpdate) await ctx.tryCall(() => ctx.ports.updateAlert(r.channel, r.ts, rootUpdate));
      return { done: true, main };
    },
  };
  return { 'alert-start': start, 'alert-update': update, 'alert-recovery': recovery };
}
