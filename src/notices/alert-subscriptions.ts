/**
 * The alert subscriptions store: a channel's subscription to a site's license failures with its
 * thresholds (document `notify-alert-subs`, one per channel and site), the defaults and bounds of
 * `alerts watch`, and the subscription's alert state next to it (document `notify-alert-state`,
 * see alert-state.ts: a reset of the open spike, a mute). The workspaces with subscriptions are
 * listed in the feature registry (registry.ts), the runtime's work list.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { AtomicDocRepo, Store, WorkspaceKey } from '../store/types.js';
import type { AlertState } from './alert-state.js';
import { FeatureRegistry } from './registry.js';
import type { AlertSubscription, AlertThresholds } from './types.js';

export const ALERT_SUBS_NS = 'notify-alert-subs';
export const ALERT_STATE_NS = 'notify-alert-state';

/** Defaults of a channel's alert subscription (issue: 20 %, 20 requests, 15 minutes). */
export const ALERT_DEFAULTS: Readonly<AlertThresholds> = { ratioPct: 20, minRequests: 20, windowMinutes: 15 };
/** Bounds accepted for the thresholds. */
export const ALERT_LIMITS = {
  ratioPct: { min: 1, max: 100 },
  minRequests: { min: 1, max: 100_000 },
  windowMinutes: { min: 5, max: 24 * 60 },
} as const;

export const alertSubscriptionSchema = z.object({
  id: z.string().min(1),
  workspace: z.string().min(1),
  channelId: z.string().min(1),
  siteId: z.string().min(1),
  ratioPct: z.number().min(ALERT_LIMITS.ratioPct.min).max(ALERT_LIMITS.ratioPct.max),
  minRequests: z.number().int().min(ALERT_LIMITS.minRequests.min).max(ALERT_LIMITS.minRequests.max),
  windowMinutes: z.number().int().min(ALERT_LIMITS.windowMinutes.min).max(ALERT_LIMITS.windowMinutes.max),
  createdBy: z.string(),
  createdAt: z.string(),
  updatedAt: z.string().optional(),
  updatedBy: z.string().optional(),
  paused: z.object({ reason: z.string(), code: z.string(), at: z.string() }).optional(),
});

export function alertSubscriptionId(channelId: string, siteId: string): string {
  return `alrt_${createHash('sha256').update(`${channelId}|${siteId}`).digest('hex').slice(0, 16)}`;
}

export class AlertSubscriptions {
  readonly docs: AtomicDocRepo<AlertSubscription>;
  private readonly registry: FeatureRegistry;
  readonly state: AtomicDocRepo<AlertState>;

  constructor(store: Store) {
    this.docs = store.docs<AlertSubscription>(ALERT_SUBS_NS, alertSubscriptionSchema as never);
    this.state = store.docs<AlertState>(ALERT_STATE_NS);
    this.registry = new FeatureRegistry(store);
  }

  async get(ws: WorkspaceKey, id: string): Promise<AlertSubscription | undefined> {
    return this.docs.get(ws, id);
  }

  async put(ws: WorkspaceKey, sub: AlertSubscription): Promise<void> {
    await this.docs.put(ws, sub.id, alertSubscriptionSchema.parse(sub) as AlertSubscription);
    await this.registry.add('alerts', ws);
  }

  async list(
    ws: WorkspaceKey,
    f: { channelId?: string; siteId?: string } = {},
  ): Promise<AlertSubscription[]> {
    const out: AlertSubscription[] = [];
    for (const id of await this.docs.list(ws)) {
      try {
        const s = await this.docs.get(ws, id);
        if (!s) continue;
        if (f.channelId && s.channelId !== f.channelId) continue;
        if (f.siteId && s.siteId !== f.siteId) continue;
        out.push(s);
      } catch {
        // unreadable record: skipped
      }
    }
    return out.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
  }

  /**
   * Forget the open spike (thresholds changed, or the subscription resumed): the next poll over
   * the threshold posts a new alert. The spike counter stays, so keys never repeat.
   */
  async resetSpike(ws: WorkspaceKey, id: string): Promise<void> {
    await this.state.update(ws, id, (old) => {
      if (!old?.active) return old;
      const { active: _a, ...rest } = old;
      return rest;
    });
  }

  /**
   * Mute the subscription's alert until `until` (a later mute moves it). The state is created
   * when there is none yet, so a mute before the first check holds too.
   */
  async mute(ws: WorkspaceKey, id: string, until: number, by: string): Promise<AlertState> {
    const out = await this.state.update(ws, id, (old) => ({
      ...(old ?? { subscriptionId: id, spikes: 0 }),
      muted: { until, by },
    }));
    return out as AlertState;
  }

  async remove(ws: WorkspaceKey, id: string): Promise<void> {
    await this.docs.delete(ws, id);
    await this.state.delete(ws, id);
  }

  async pause(ws: WorkspaceKey, id: string, paused: { reason: string; code: string; at: string }) {
    return this.docs.update(ws, id, (old) => (old && !old.paused ? { ...old, paused } : old));
  }

  async workspaces(): Promise<string[]> {
    return this.registry.workspaces('alerts');
  }
}
