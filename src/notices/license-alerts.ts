/**
 * License-failure alerts. A channel subscribes to a site with thresholds (fail ratio, minimum
 * requests, window). Each poll of a site reads ONLY the window of the license list (endpoint 11):
 * `from`/`to` narrowed to the window's UTC days, pages of `pageUnit` in the list's detected order,
 * stopping at the first page entirely outside the window (see readLicenseWindow; a page cap bounds
 * the cost and a window not fully read is said). One read serves every subscription of the site
 * (the longest window is read; each subscription counts its own).
 *
 * Per subscription a small state machine (document `notify-alert-state`):
 *   quiet --(total >= min and ratio >= threshold)--> spike #n: ONE alert is posted
 *   spike --(numbers changed, still at/over the ratio)--> the alert is updated in place
 *   spike --(ratio < threshold, or no requests)--> a recovery reply in the alert's thread, and the
 *            alert itself is updated to "recovered"; the next spike is #n+1 (a new alert).
 * The spike counter makes every notice key stable (`alert:<sub>:s<n>:start|u<k>|recovered`): the
 * notices are written to the outbox BEFORE the state moves, and a re-run after a crash derives the
 * same keys (no second alert). Only the ratio ends a spike: a spike whose traffic falls under
 * `min` but still fails at the ratio stays open (choice: fewer requests is not a recovery).
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { LicenseRecord, ServiceClient } from '../api/types.js';
import type { Logger } from '../log.js';
import type { AtomicDocRepo, Store, WorkspaceKey } from '../store/types.js';
import { utcDay } from '../time.js';
import {
  type DeliverContext,
  type DeliverResult,
  type NoticeEntry,
  type NoticeHandler,
  type NoticeOutbox,
  newNotice,
} from './outbox.js';
import { FeatureRegistry } from './registry.js';
import type {
  AlertSubscription,
  AlertThresholds,
  LicenseAlert,
  NotifyEvent,
  Ranked,
  WindowStats,
} from './types.js';

export const ALERT_SUBS_NS = 'notify-alert-subs';
export const ALERT_STATE_NS = 'notify-alert-state';

/** Defaults of `/drm alerts watch` (issue: 20 %, 20 requests, 15 minutes). */
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

// ---------------------------------------------------------------------------------------------
// Reading the window
// ---------------------------------------------------------------------------------------------

export interface WindowRead {
  siteId: string;
  fromMs: number;
  toMs: number;
  /** Records inside [fromMs, toMs]. */
  records: LicenseRecord[];
  pages: number;
  /** True when the page cap stopped the read before the whole window was covered. */
  truncated: boolean;
  /** The list's order as detected on its first page. */
  order: 'newest-first' | 'oldest-first' | 'unknown';
}

export interface WindowReadOptions {
  /** Records per page. Default 200. */
  pageUnit?: number;
  /** Page cap per read (every call counts). Default 20. */
  maxPages?: number;
}

/**
 * The `from`/`to` days (`YYYY-MM-DD`) the license list is asked for to cover [fromMs, toMs]: the
 * UTC days with a day of margin on both sides (the zone of the service's days is not shown).
 */
export function licenseWindowDays(fromMs: number, toMs: number): { from: string; to: string } {
  return { from: utcDay(fromMs - 24 * 3600_000), to: utcDay(toMs + 24 * 3600_000) };
}

class PageCapReached extends Error {}

/**
 * The license records of [fromMs, toMs], at most `maxPages` calls.
 *
 * The spec says neither the list's order nor the zone of `reg_time`/`from`/`to`. Choices:
 * - `from`/`to` are UTC days (what the emulator and the sample use) with a day of margin on
 *   both sides, so a service counting days (or writing `reg_time`) in another zone up to a day
 *   off still returns the window; `reg_time` itself is read in SERVICE_LICENSE_TIME_ZONE (default UTC; src/api).
 * - The order is detected from the first page (its first and last record times), and the read
 *   goes in that direction until the window is covered:
 *   newest first: pages in order until one reaches past the window's start (a busy list costs
 *   one page per poll);
 *   oldest first: the window sits at the end, behind the margin's older records: the first page
 *   reaching the window is found by probing pages 2, 3, 5, 9… then halving (a few calls instead
 *   of reading every older page), then pages in order until one starts after the window;
 *   unknown (all times equal, or none): every page until a short one.
 * - When the cap stops the read before the window is covered, `truncated` says so: the counts
 *   are a floor, and `/drm alerts` says "window not fully read" instead of a silent 0 of 0.
 */
export async function readLicenseWindow(
  client: ServiceClient,
  siteId: string,
  fromMs: number,
  toMs: number,
  opts: WindowReadOptions = {},
): Promise<WindowRead> {
  const pageUnit = opts.pageUnit ?? 200;
  const maxPages = Math.max(1, opts.maxPages ?? 20);
  const out: WindowRead = {
    siteId,
    fromMs,
    toMs,
    records: [],
    pages: 0,
    truncated: false,
    order: 'unknown',
  };
  const { from, to } = licenseWindowDays(fromMs, toMs);
  const pages = new Map<number, LicenseRecord[]>();
  const read = async (i: number): Promise<LicenseRecord[]> => {
    const cached = pages.get(i);
    if (cached) return cached;
    if (out.pages >= maxPages) throw new PageCapReached();
    out.pages++;
    const p = await client.listLicenses(siteId, { from, to, pageUnit, pageIndex: i });
    pages.set(i, p.items);
    return p.items;
  };
  const times = (items: LicenseRecord[]) =>
    items.map((r) => r.regTime.epochMs).filter((t): t is number => t !== null);
  const full = (items: LicenseRecord[]) => items.length >= pageUnit;
  /** Entirely before the window (every dated record older than fromMs). */
  const before = (items: LicenseRecord[]) => {
    const t = times(items);
    return t.length > 0 && Math.max(...t) < fromMs;
  };
  /** Holds a record older than the window (newest first: every later page is older still). */
  const reachesBefore = (items: LicenseRecord[]) => {
    const t = times(items);
    return t.length > 0 && Math.min(...t) < fromMs;
  };
  const after = (items: LicenseRecord[]) => {
    const t = times(items);
    return t.length > 0 && Math.min(...t) > toMs;
  };
  try {
    const first = await read(1);
    const t = times(first);
    const a = t[0];
    const b = t[t.length - 1];
    out.order =
      a === undefined || b === undefined || a === b ? 'unknown' : a > b ? 'newest-first' : 'oldest-first';
    if (full(first)) {
      if (out.order === 'oldest-first') {
        // Find the first page that is not entirely before the window: gallop, then halve.
        let lo = 0; // the last page known to be entirely before the window (0: none)
        let hi: number | undefined; // the first page known not to be
        if (before(first)) {
          lo = 1;
          for (let step = 1; hi === undefined; step *= 2) {
            const i = lo + step;
            const items = await read(i);
            if (full(items) && before(items)) lo = i;
            else hi = i;
          }
          while (hi - lo > 1) {
            const mid = Math.floor((lo + hi) / 2);
            const items = await read(mid);
            if (full(items) && before(items)) lo = mid;
            else hi = mid;
          }
        }
        for (let i = lo + 1; ; i++) {
          const items = await read(i);
          if (!full(items) || after(items)) break;
        }
      } else {
        for (let i = 2; ; i++) {
          const prev = pages.get(i - 1) ?? [];
          if (out.order === 'newest-first' && reachesBefore(prev)) break;
          const items = await read(i);
          if (!full(items)) break;
        }
      }
    }
  } catch (e) {
    if (!(e instanceof PageCapReached)) throw e;
    out.truncated = true;
  }
  for (const i of [...pages.keys()].sort((x, y) => x - y)) {
    for (const r of pages.get(i) ?? []) {
      const ms = r.regTime.epochMs;
      if (ms !== null && ms >= fromMs && ms <= toMs) out.records.push(r);
    }
  }
  return out;
}

function top(counts: Map<string, number>, n = 5): Ranked[] {
  return [...counts]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, n)
    .map(([key, count]) => ({ key, count }));
}

/** Counts of the records at or after `fromMs` (pure). */
export function windowStats(read: WindowRead, fromMs: number): WindowStats {
  let total = 0;
  let failed = 0;
  const errors = new Map<string, number>();
  const content = new Map<string, number>();
  const devices = new Map<string, number>();
  for (const r of read.records) {
    const t = r.regTime.epochMs;
    if (t === null || t < fromMs) continue;
    total++;
    if (r.status !== 'fail') continue;
    failed++;
    const inc = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);
    inc(errors, r.errorCode || '(none)');
    inc(content, r.cid || '(none)');
    // The device model only, never the device id: an alert is posted in a channel every member
    // reads, and device ids are end viewers' personal data (admin-only: docs/security.md).
    inc(devices, r.deviceModel || '(model unknown)');
  }
  return {
    siteId: read.siteId,
    fromMs,
    toMs: read.toMs,
    total,
    failed,
    ratio: total > 0 ? failed / total : 0,
    topErrors: top(errors),
    topContent: top(content),
    topDevices: top(devices),
    truncated: read.truncated,
  };
}

// ---------------------------------------------------------------------------------------------
// The spike state machine
// ---------------------------------------------------------------------------------------------

export interface AlertState {
  subscriptionId: string;
  /** Spikes started so far (the current or last one is #spikes). */
  spikes: number;
  active?: {
    startedAt: number;
    peakRatio: number;
    failed: number;
    total: number;
    /** Updates enqueued for this spike. */
    updates: number;
    /** The numbers of the alert's latest form (for its final "stopped" form). */
    stats?: WindowStats;
  };
  lastCheckedAt?: number;
  /** Last numbers seen (App Home / debug; `truncated`: the window was not fully read). */
  last?: { total: number; failed: number; ratio: number; truncated?: boolean };
  /**
   * Muted (the alert's "Mute 1 h" button) until `until` (epoch ms) by `by`: the checks go on
   * (`last`, `lastCheckedAt`) but the spike does not move and nothing is posted or updated; the
   * first check at or after `until` clears it and evaluates as usual (an update if the numbers
   * changed, the recovery if the spike ended, a new alert if a new one started).
   */
  muted?: { until: number; by: string };
}

/** How long the alert's Mute button silences it. */
export const ALERT_MUTE_MS = 3600_000;

/** True while the state is muted at `now` (pure). */
export function isMuted(state: Pick<AlertState, 'muted'> | undefined, now: number): boolean {
  return state?.muted !== undefined && now < state.muted.until;
}

export interface AlertPayload {
  alert: LicenseAlert;
  /** Key of the spike's first alert (its tombstone holds the ts to update / reply to). */
  startKey: string;
  /** recovery: the alert message's final state (written over the alert). */
  rootUpdate?: LicenseAlert;
}

/**
 * Notice key of a spike's step. The subscription's creation time is part of it: a channel that
 * stops and later re-subscribes to a site gets the same subscription id, and its spike counter
 * starts again, so without it the new subscription's first alert would match the old one's
 * tombstone and never be posted.
 */
export function alertKey(
  sub: Pick<AlertSubscription, 'id' | 'createdAt'>,
  spike: number,
  step: string,
): string {
  const epoch = (Date.parse(sub.createdAt) || 0).toString(36);
  return `alert:${sub.id}:${epoch}:s${spike}:${step}`;
}

/** True when the stats cross the subscription's threshold (pure). */
export function isOver(sub: AlertThresholds, s: WindowStats): boolean {
  return s.total >= sub.minRequests && s.total > 0 && (s.failed * 100) / s.total >= sub.ratioPct;
}

export function isBelow(sub: AlertThresholds, s: WindowStats): boolean {
  return s.total === 0 || (s.failed * 100) / s.total < sub.ratioPct;
}

/** Next state and the notices it implies (pure). */
export function evaluateAlert(
  ws: string,
  sub: AlertSubscription,
  prev: AlertState | undefined,
  stats: WindowStats,
  now: number,
): { state: AlertState; entries: NoticeEntry[] } {
  const state: AlertState = prev
    ? { ...prev, ...(prev.active ? { active: { ...prev.active } } : {}) }
    : { subscriptionId: sub.id, spikes: 0 };
  state.lastCheckedAt = now;
  state.last = {
    total: stats.total,
    failed: stats.failed,
    ratio: stats.ratio,
    ...(stats.truncated ? { truncated: true } : {}),
  };
  const entries: NoticeEntry[] = [];
  if (isMuted(state, now)) return { state, entries };
  delete state.muted;
  const mk = (key: string, kind: NoticeEntry['kind'], payload: AlertPayload) =>
    newNotice({ key, workspace: ws, kind, lane: sub.channelId, payload }, now);
  if (!state.active) {
    if (!isOver(sub, stats)) return { state, entries };
    const n = state.spikes + 1;
    const alert: LicenseAlert = {
      kind: 'spike',
      subscription: sub,
      startedAt: now,
      stats,
      peakRatio: stats.ratio,
      state: 'ongoing',
    };
    const startKey = alertKey(sub, n, 'start');
    entries.push(mk(startKey, 'alert-start', { alert, startKey }));
    state.spikes = n;
    state.active = {
      startedAt: now,
      peakRatio: stats.ratio,
      failed: stats.failed,
      total: stats.total,
      updates: 0,
      stats,
    };
    return { state, entries };
  }
  const a = state.active;
  const n = state.spikes;
  const startKey = alertKey(sub, n, 'start');
  const peak = Math.max(a.peakRatio, stats.ratio);
  if (isBelow(sub, stats)) {
    const recovery: LicenseAlert = {
      kind: 'recovery',
      subscription: sub,
      startedAt: a.startedAt,
      recoveredAt: now,
      stats,
      peakRatio: peak,
    };
    const rootUpdate: LicenseAlert = {
      kind: 'spike',
      subscription: sub,
      startedAt: a.startedAt,
      stats,
      peakRatio: peak,
      state: 'recovered',
      recoveredAt: now,
    };
    entries.push(
      mk(alertKey(sub, n, 'recovered'), 'alert-recovery', { alert: recovery, startKey, rootUpdate }),
    );
    delete state.active;
    return { state, entries };
  }
  if (stats.failed !== a.failed || stats.total !== a.total) {
    const u = a.updates + 1;
    const alert: LicenseAlert = {
      kind: 'spike',
      subscription: sub,
      startedAt: a.startedAt,
      stats,
      peakRatio: peak,
      state: 'ongoing',
    };
    entries.push(mk(alertKey(sub, n, `u${u}`), 'alert-update', { alert, startKey }));
    state.active = { ...a, updates: u, peakRatio: peak, failed: stats.failed, total: stats.total, stats };
  }
  return { state, entries };
}

/** Prefix of every notice key of a subscription (all its spikes and steps). */
export function alertKeyPrefix(sub: Pick<AlertSubscription, 'id' | 'createdAt'>): string {
  return alertKey(sub, 0, '').replace(/s0:$/, '');
}

/**
 * The final update of an open spike's alert when its subscription is stopped (pure): "Alerts
 * stopped by <user>; this message is no longer updated", over the spike's last numbers. Its key
 * (`…:s<n>:stopped`) is stable, so a stop re-run after a crash queues it once.
 */
export function stoppedAlertEntry(
  ws: string,
  sub: AlertSubscription,
  state: AlertState | undefined,
  by: string,
  now: number,
): NoticeEntry | undefined {
  return finalFormEntry(ws, sub, state, now, 'stopped', { state: 'stopped', stoppedBy: by, stoppedAt: now });
}

/**
 * The update of an open spike's alert when it is muted (pure): the alert says until when and by
 * whom, since it is not updated meanwhile. Its key (`…:s<n>:m<until>`) is stable per mute.
 */
export function mutedAlertEntry(
  ws: string,
  sub: AlertSubscription,
  state: AlertState | undefined,
  by: string,
  until: number,
  now: number,
): NoticeEntry | undefined {
  return finalFormEntry(ws, sub, state, now, `m${until.toString(36)}`, {
    state: 'ongoing',
    mutedUntil: until,
    mutedBy: by,
  });
}

/** An update of the open spike's alert over its last numbers (none when no spike is open). */
function finalFormEntry(
  ws: string,
  sub: AlertSubscription,
  state: AlertState | undefined,
  now: number,
  step: string,
  over: Partial<Extract<LicenseAlert, { kind: 'spike' }>>,
): NoticeEntry | undefined {
  const a = state?.active;
  if (!state || !a) return undefined;
  const n = state.spikes;
  const stats: WindowStats = a.stats ?? {
    siteId: sub.siteId,
    fromMs: (state.lastCheckedAt ?? now) - sub.windowMinutes * 60_000,
    toMs: state.lastCheckedAt ?? now,
    total: a.total,
    failed: a.failed,
    ratio: a.total > 0 ? a.failed / a.total : 0,
    topErrors: [],
    topContent: [],
    topDevices: [],
    truncated: false,
  };
  const alert: LicenseAlert = {
    kind: 'spike',
    subscription: sub,
    startedAt: a.startedAt,
    stats,
    peakRatio: a.peakRatio,
    state: 'ongoing',
    ...over,
  };
  const startKey = alertKey(sub, n, 'start');
  const payload: AlertPayload = { alert, startKey };
  return newNotice(
    { key: alertKey(sub, n, step), workspace: ws, kind: 'alert-update', lane: sub.channelId, payload },
    now,
  );
}

export interface AlertPollInput {
  workspace: string;
  siteId: string;
  client: ServiceClient;
  subscriptions: AlertSubscriptions;
  outbox: NoticeOutbox;
  now: () => number;
  read?: WindowReadOptions;
}

export interface AlertPollResult {
  subscriptions: number;
  pages: number;
  notices: number;
  stats?: WindowStats;
}

/** One poll of a site: one window read, each subscription evaluated; notices first, then state. */
export async function pollAlerts(input: AlertPollInput): Promise<AlertPollResult> {
  const { workspace: ws, siteId } = input;
  const subs = (await input.subscriptions.list(ws, { siteId })).filter((s) => !s.paused);
  const res: AlertPollResult = { subscriptions: subs.length, pages: 0, notices: 0 };
  if (subs.length === 0) return res;
  const now = input.now();
  const longest = Math.max(...subs.map((s) => s.windowMinutes));
  const read = await readLicenseWindow(input.client, siteId, now - longest * 60_000, now, input.read);
  res.pages = read.pages;
  for (const sub of subs) {
    const stats = windowStats(read, now - sub.windowMinutes * 60_000);
    if (sub.windowMinutes === longest) res.stats = stats;
    const prev = await input.subscriptions.state.get(ws, sub.id);
    // Stopped while the window was read: no notice, and no state written back for it.
    if (!(await input.subscriptions.get(ws, sub.id))) continue;
    const { state, entries } = evaluateAlert(ws, sub, prev, stats, now);
    if (entries.length > 0) res.notices += await input.outbox.add(entries);
    // A mute clicked while the window was read is kept (the state read before it had none).
    await input.subscriptions.state.update(ws, sub.id, (cur) =>
      cur?.muted && isMuted(cur, now) && !state.muted ? { ...state, muted: cur.muted } : state,
    );
  }
  return res;
}

// ---------------------------------------------------------------------------------------------
// Delivery
// ---------------------------------------------------------------------------------------------

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
