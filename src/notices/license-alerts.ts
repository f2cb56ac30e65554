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
 *
 * Here: the poll of one site (pollAlerts), what the runtime runs. The subscriptions store is in
 * alert-subscriptions.ts, the window read and its counts in license-window.ts, the state machine,
 * its keys and mutes in alert-state.ts, the outbox handlers in alert-delivery.ts.
 */
import type { ServiceClient } from '../api/types.js';
import { evaluateAlert, isMuted } from './alert-state.js';
import type { AlertSubscriptions } from './alert-subscriptions.js';
import { readLicenseWindow, type WindowReadOptions, windowStats } from './license-window.js';
import type { NoticeOutbox } from './outbox.js';
import type { WindowStats } from './types.js';

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
