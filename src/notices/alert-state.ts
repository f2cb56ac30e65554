/**
 * The alert state of one subscription (document `notify-alert-state`) and its spike state machine,
 * all pure: when the window's numbers open a spike, update it, or end it (evaluateAlert), the
 * mute that silences an open alert, and the stable notice keys of every step (`alertKey`), from
 * which the notices of a spike, its update when muted and its final form when stopped are built.
 * See license-alerts.ts for the whole scheme.
 */
import { type NoticeEntry, newNotice } from './outbox.js';
import type { AlertSubscription, AlertThresholds, LicenseAlert, WindowStats } from './types.js';

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
