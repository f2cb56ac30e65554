/**
 * License-failure alerts, the user side (`/drm alerts ...`):
 *
 *   /drm alerts watch [site:ID] [ratio:PCT] [min:N] [window:MIN]   subscribeAlerts
 *   /drm alerts                                                   listAlerts
 *   /drm alerts stop [site:ID]                                    stopAlerts
 *
 * One subscription per channel + site; subscribing again changes its thresholds. Rules (data, the
 * Slack layer passes who asks): a member subscribes a channel they are in; changing thresholds
 * someone else set, or stopping someone else's alerts, takes an admin. Every change is audited.
 * The watcher side is src/notices/license-alerts.ts.
 */
import { ValidationError, type ValidationIssue } from '../api/errors.js';
import { checkSiteId, optionTokens, passes } from '../api/validate.js';
import {
  ALERT_MUTE_MS,
  type AlertState,
  alertKeyPrefix,
  isMuted,
  mutedAlertEntry,
  stoppedAlertEntry,
} from '../notices/alert-state.js';
import {
  ALERT_DEFAULTS,
  ALERT_LIMITS,
  AlertSubscriptions,
  alertSubscriptionId,
} from '../notices/alert-subscriptions.js';
import { NoticeOutbox } from '../notices/outbox.js';
import type { AlertSubscription, AlertThresholds } from '../notices/types.js';
import type { WorkspaceKey } from '../store/types.js';
import { checkLimit, DEFAULT_WORKSPACE_LIMITS } from '../watch/limits.js';
import { type AuditMirror, audit } from './audit.js';
import { opsEndpoint } from './service/common.js';
import { loadCredentials, NotConfiguredError, type OpsDeps, resolveSite } from './workspace.js';

export { ALERT_DEFAULTS, ALERT_LIMITS } from '../notices/alert-subscriptions.js';
export { licenseWindowDays } from '../notices/license-window.js';

/** Who asks (the Slack layer fills it in). */
export interface Actor {
  userId: string;
  isAdmin: boolean;
  /** False when the user is not a member of the channel (members may only subscribe their channels). */
  inChannel?: boolean;
}

export type NotifyRefusal = 'notInChannel' | 'notYours' | 'alreadyRunning';

/** Refused because of who asks or the current state; renders like a ValidationError. */
export class NotifyRefusedError extends ValidationError {
  readonly reason: NotifyRefusal;
  /** The user who set it up (notYours), for the Slack layer to mention. */
  readonly owner: string | undefined;
  constructor(endpoint: string, reason: NotifyRefusal, field: string, message: string, owner?: string) {
    super(endpoint, [{ field, message }]);
    this.reason = reason;
    this.owner = owner;
  }
}

/**
 * A member setting up something for a channel they are not in (admins may): refused. `toDo` is
 * what they tried ("set up alerts", "schedule a digest").
 */
export function refuseUnlessInChannel(endpoint: string, actor: Actor, toDo: string): void {
  if (actor.inChannel === false && !actor.isAdmin) {
    throw new NotifyRefusedError(
      endpoint,
      'notInChannel',
      'channel',
      `You can ${toDo} only in a channel you are a member of: join it first, or ask an admin.`,
    );
  }
}

export interface AlertArgs {
  siteId?: string;
  ratioPct?: number;
  minRequests?: number;
  windowMinutes?: number;
}

export interface ParsedAlertArgs {
  args: AlertArgs;
  issues: ValidationIssue[];
}

function parseNumber(raw: string, unit: RegExp): number | undefined {
  const v = raw.trim().replace(unit, '');
  if (!/^\d+(\.\d+)?$/.test(v)) return undefined;
  return Number(v);
}

/** `[site:ID] [ratio:PCT] [min:N] [window:MIN]` tokens; bad values become issues saying what to fix. */
export function parseAlertArgs(tokens: string[]): ParsedAlertArgs {
  const args: AlertArgs = {};
  const issues: ValidationIssue[] = [];
  const L = ALERT_LIMITS;
  for (const { tok, key, value } of optionTokens(tokens)) {
    if (key === 'site') {
      if (passes(issues, 'site', checkSiteId(value))) args.siteId = value;
    } else if (key === 'ratio') {
      const n = parseNumber(value, /%$/);
      if (n === undefined || n < L.ratioPct.min || n > L.ratioPct.max) {
        issues.push({
          field: 'ratio',
          message: `"${value.slice(0, 20)}" is not a fail ratio: give a percentage from ${L.ratioPct.min} to ${L.ratioPct.max}, like ratio:20%.`,
        });
      } else args.ratioPct = n;
    } else if (key === 'min') {
      const n = parseNumber(value, /$/);
      if (n === undefined || !Number.isInteger(n) || n < L.minRequests.min || n > L.minRequests.max) {
        issues.push({
          field: 'min',
          message: `"${value.slice(0, 20)}" is not a request count: give a whole number from ${L.minRequests.min} to ${L.minRequests.max}, like min:20.`,
        });
      } else args.minRequests = n;
    } else if (key === 'window') {
      const n = parseNumber(value, /\s*(m|min|mins|minutes?)$/i);
      if (n === undefined || !Number.isInteger(n) || n < L.windowMinutes.min || n > L.windowMinutes.max) {
        issues.push({
          field: 'window',
          message: `"${value.slice(0, 20)}" is not a window: give whole minutes from ${L.windowMinutes.min} to ${L.windowMinutes.max}, like window:15.`,
        });
      } else args.windowMinutes = n;
    } else {
      issues.push({
        field: tok.slice(0, 30),
        message: 'Unknown option: use site:<site id>, ratio:PCT, min:N or window:MIN.',
      });
    }
  }
  return { args, issues };
}

/** True when the command gave no threshold at all (the Slack layer opens the form with defaults). */
export function needsForm(args: AlertArgs): boolean {
  return args.ratioPct === undefined && args.minRequests === undefined && args.windowMinutes === undefined;
}

/** Initial values of the form: the existing subscription's, else the defaults. */
export async function alertFormValues(
  deps: OpsDeps,
  ws: WorkspaceKey,
  channelId: string,
  siteId?: string,
): Promise<AlertThresholds & { siteId: string; siteIds: string[] }> {
  const creds = await loadCredentials(deps, ws);
  if (!creds?.credentials.service) throw new NotConfiguredError('service');
  const site = resolveSite(creds.credentials, siteId);
  const existing = await new AlertSubscriptions(deps.store).get(ws, alertSubscriptionId(channelId, site));
  const t = existing ?? ALERT_DEFAULTS;
  return {
    siteId: site,
    siteIds: [...creds.credentials.siteIds],
    ratioPct: t.ratioPct,
    minRequests: t.minRequests,
    windowMinutes: t.windowMinutes,
  };
}

export interface SubscribeAlertsInput extends AlertArgs {
  channelId: string;
  actor: Actor;
}

export interface SubscribeAlertsResult {
  status: 'created' | 'updated' | 'unchanged';
  subscription: AlertSubscription;
  previous?: AlertThresholds;
}

function sameThresholds(a: AlertThresholds, b: AlertThresholds): boolean {
  return a.ratioPct === b.ratioPct && a.minRequests === b.minRequests && a.windowMinutes === b.windowMinutes;
}

function describe(t: AlertThresholds): string {
  return `fail ratio ${t.ratioPct}%, at least ${t.minRequests} requests, ${t.windowMinutes}-minute window`;
}

/**
 * Subscribe the channel to a site's license failures (defaults for what is not given). A paused
 * subscription (Slack refused to post) is resumed by subscribing again.
 */
export async function subscribeAlerts(
  deps: OpsDeps,
  ws: WorkspaceKey,
  input: SubscribeAlertsInput,
  mirror?: AuditMirror,
): Promise<SubscribeAlertsResult> {
  const endpoint = opsEndpoint('alerts.watch');
  if (!input.channelId)
    throw new ValidationError(endpoint, [
      { field: 'channel', message: 'Run the command in the channel to alert.' },
    ]);
  refuseUnlessInChannel(endpoint, input.actor, 'set up alerts');
  // Re-validate what a form or an old message may carry.
  const tokens: string[] = [];
  if (input.ratioPct !== undefined) tokens.push(`ratio:${input.ratioPct}`);
  if (input.minRequests !== undefined) tokens.push(`min:${input.minRequests}`);
  if (input.windowMinutes !== undefined) tokens.push(`window:${input.windowMinutes}`);
  const parsed = parseAlertArgs(tokens);
  if (parsed.issues.length > 0) throw new ValidationError(endpoint, parsed.issues);
  const creds = await loadCredentials(deps, ws);
  if (!creds?.credentials.service) throw new NotConfiguredError('service');
  const siteId = resolveSite(creds.credentials, input.siteId);
  const subs = new AlertSubscriptions(deps.store);
  const id = alertSubscriptionId(input.channelId, siteId);
  const existing = await subs.get(ws, id);
  const base = existing ?? ALERT_DEFAULTS;
  const wanted: AlertThresholds = {
    ratioPct: parsed.args.ratioPct ?? base.ratioPct,
    minRequests: parsed.args.minRequests ?? base.minRequests,
    windowMinutes: parsed.args.windowMinutes ?? base.windowMinutes,
  };
  if (!existing) {
    const limit = deps.config.workspaceLimits?.alerts ?? DEFAULT_WORKSPACE_LIMITS.alerts;
    checkLimit('alerts', (await subs.list(ws)).length, limit);
  }
  const nowIso = new Date(deps.now()).toISOString();
  if (existing && sameThresholds(existing, wanted) && !existing.paused) {
    return { status: 'unchanged', subscription: existing };
  }
  if (
    existing &&
    !sameThresholds(existing, wanted) &&
    existing.createdBy !== input.actor.userId &&
    !input.actor.isAdmin
  ) {
    await audit(
      deps,
      ws,
      {
        userId: input.actor.userId,
        action: 'alerts.watch',
        detail: `refused: change of ${siteId} alert thresholds in ${input.channelId} set by ${existing.createdBy}`,
        result: 'refused',
        siteId,
      },
      mirror,
    );
    throw new NotifyRefusedError(
      endpoint,
      'notYours',
      'thresholds',
      `The ${siteId} alerts of this channel were set up by another member (${describe(existing)}); only an admin can change their thresholds.`,
      existing.createdBy,
    );
  }
  const sub: AlertSubscription = existing
    ? (() => {
        const { paused: _p, ...rest } = existing;
        return { ...rest, ...wanted, updatedAt: nowIso, updatedBy: input.actor.userId };
      })()
    : {
        id,
        workspace: ws,
        channelId: input.channelId,
        siteId,
        ...wanted,
        createdBy: input.actor.userId,
        createdAt: nowIso,
      };
  await subs.put(ws, sub);
  // Resumed after Slack refused the channel: the open spike's alert never arrived; start afresh.
  // (A threshold change keeps the spike: the next poll updates or recovers that alert.)
  if (existing?.paused) await subs.resetSpike(ws, id);
  await audit(
    deps,
    ws,
    {
      userId: input.actor.userId,
      action: 'alerts.watch',
      detail: `${existing ? 'changed' : 'subscribed'} ${input.channelId} to ${siteId} license failures: ${describe(wanted)}`,
      result: 'ok',
      siteId,
    },
    mirror,
  );
  return {
    status: existing ? 'updated' : 'created',
    subscription: sub,
    ...(existing
      ? {
          previous: {
            ratioPct: existing.ratioPct,
            minRequests: existing.minRequests,
            windowMinutes: existing.windowMinutes,
          },
        }
      : {}),
  };
}

export interface AlertListItem {
  subscription: AlertSubscription;
  /** Last numbers the watcher saw, and whether a spike is open. */
  state?: Pick<AlertState, 'last' | 'lastCheckedAt'> & {
    spikeOpen: boolean;
    spikeStartedAt?: number;
    /** Muted (the alert's Mute button) until then. */
    mutedUntil?: number;
  };
}

/** The channel's alert subscriptions with their last numbers. */
export async function listAlerts(
  deps: OpsDeps,
  ws: WorkspaceKey,
  channelId: string,
): Promise<AlertListItem[]> {
  const subs = new AlertSubscriptions(deps.store);
  const out: AlertListItem[] = [];
  for (const s of await subs.list(ws, { channelId })) {
    const st = await subs.state.get(ws, s.id);
    out.push({
      subscription: s,
      ...(st
        ? {
            state: {
              ...(st.last ? { last: st.last } : {}),
              ...(st.lastCheckedAt !== undefined ? { lastCheckedAt: st.lastCheckedAt } : {}),
              spikeOpen: st.active !== undefined,
              ...(st.active ? { spikeStartedAt: st.active.startedAt } : {}),
              ...(st.muted && isMuted(st, deps.now()) ? { mutedUntil: st.muted.until } : {}),
            },
          }
        : {}),
    });
  }
  return out;
}

/**
 * Who set something up (an alert, a digest schedule) or an admin may stop, mute or change it: the
 * one check of alerts and digests.
 */
export function mayManage(sub: { createdBy: string }, actor: Actor): boolean {
  return sub.createdBy === actor.userId || actor.isAdmin;
}

export interface StopAlertsResult {
  removed: AlertSubscription[];
  /** Someone else's, kept (only an admin removes those). */
  refused: AlertSubscription[];
}

/**
 * Remove the channel's alert subscriptions (one site with `siteId`). An open spike's alert gets
 * a final update saying the alerts were stopped; `kick` asks the runtime to deliver it at once.
 */
export async function stopAlerts(
  deps: OpsDeps,
  ws: WorkspaceKey,
  input: { channelId: string; actor: Actor; siteId?: string; kick?: (ws: string) => void },
  mirror?: AuditMirror,
): Promise<StopAlertsResult> {
  const endpoint = opsEndpoint('alerts.stop');
  if (input.siteId !== undefined) {
    const f = checkSiteId(input.siteId);
    if (f) throw new ValidationError(endpoint, [{ field: 'site', message: f }]);
  }
  const subs = new AlertSubscriptions(deps.store);
  const outbox = new NoticeOutbox(deps.store);
  let queued = false;
  const res: StopAlertsResult = { removed: [], refused: [] };
  const siteFilter = input.siteId?.toUpperCase();
  for (const s of await subs.list(ws, { channelId: input.channelId })) {
    if (siteFilter && s.siteId.toUpperCase() !== siteFilter) continue;
    if (!mayManage(s, input.actor)) {
      res.refused.push(s);
      continue;
    }
    // An open spike's alert would stay "updated while it lasts" with frozen numbers: queue its
    // final update (stopped by whom, no longer updated) and drop the subscription's other pending
    // notices (a start not yet posted, updates, a recovery) first, then remove it. A stop re-run
    // after a crash derives the same key (queued once).
    const prefix = alertKeyPrefix(s);
    for (const key of await outbox.entries.list(ws)) {
      if (key.startsWith(prefix)) await outbox.discard(ws, key);
    }
    const final = stoppedAlertEntry(ws, s, await subs.state.get(ws, s.id), input.actor.userId, deps.now());
    if (final) {
      await outbox.add([final]);
      queued = true;
    }
    await subs.remove(ws, s.id);
    res.removed.push(s);
  }
  if (queued) input.kick?.(ws);
  if (res.removed.length > 0 || res.refused.length > 0) {
    await audit(
      deps,
      ws,
      {
        userId: input.actor.userId,
        action: 'alerts.stop',
        detail: `removed ${res.removed.map((s) => s.siteId).join(', ') || 'none'} alerts in ${input.channelId}${
          res.refused.length > 0
            ? `; kept ${res.refused.map((s) => s.siteId).join(', ')} (set up by another member)`
            : ''
        }`,
        result: res.refused.length > 0 && res.removed.length === 0 ? 'refused' : 'ok',
      },
      mirror,
    );
  }
  return res;
}

export interface MuteAlertResult {
  /** muted: until `until`; refused: someone else's (only an admin mutes those); gone: no such alert. */
  status: 'muted' | 'refused' | 'gone';
  subscription?: AlertSubscription;
  until?: number;
}

/**
 * Mute one channel alert (channel + site) for an hour (the alert's "Mute 1 h" button): the watcher
 * keeps checking but posts and updates nothing until then, then resumes by itself. Its creator or
 * an admin (as for stop); audited either way.
 */
export async function muteAlert(
  deps: OpsDeps,
  ws: WorkspaceKey,
  input: { channelId: string; actor: Actor; siteId: string; kick?: (ws: string) => void },
  mirror?: AuditMirror,
): Promise<MuteAlertResult> {
  const endpoint = opsEndpoint('alerts.mute');
  const f = checkSiteId(input.siteId);
  if (f) throw new ValidationError(endpoint, [{ field: 'site', message: f }]);
  const subs = new AlertSubscriptions(deps.store);
  const sub = await subs.get(ws, alertSubscriptionId(input.channelId, input.siteId));
  if (!sub) return { status: 'gone' };
  const ok = mayManage(sub, input.actor);
  const until = deps.now() + ALERT_MUTE_MS;
  if (ok) {
    const state = await subs.mute(ws, sub.id, until, input.actor.userId);
    // The open alert says it is muted (until when, by whom): it is not updated meanwhile.
    const entry = mutedAlertEntry(ws, sub, state, input.actor.userId, until, deps.now());
    if (entry) {
      await new NoticeOutbox(deps.store).add([entry]);
      input.kick?.(ws);
    }
  }
  await audit(
    deps,
    ws,
    {
      userId: input.actor.userId,
      action: 'alerts.mute',
      detail: ok
        ? `muted the ${sub.siteId} alerts in ${input.channelId} until ${new Date(until).toISOString()}`
        : `refused: mute of the ${sub.siteId} alerts in ${input.channelId} set up by ${sub.createdBy}`,
      result: ok ? 'ok' : 'refused',
      siteId: sub.siteId,
    },
    mirror,
  );
  return ok ? { status: 'muted', subscription: sub, until } : { status: 'refused', subscription: sub };
}
