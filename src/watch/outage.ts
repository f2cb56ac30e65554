/**
 * An outage is not silence: a site whose watermarking service has been unreachable or failing
 * (not a refused login, which pauses the workspace: index.ts `pauseWorkspace`) for longer than
 * `noticeAfterMs` (WATCH_OUTAGE_NOTICE_MINUTES) tells each channel watching it, once, that its
 * notifications are delayed and why; when a poll succeeds again, the channels told hear, once,
 * that they resumed and what was caught up. `/dwm watches` and the Home tab read the same record
 * while it lasts (`siteOutages`).
 *
 * One record per workspace + site in the store (namespace `watch-outage`), written by the replica
 * holding the site's lease (pollOnce), so replicas share it and a restart forgets nothing: the
 * outage's start, its reason in words, and the channels already told (each told once). Posting
 * goes through the watcher's ChannelPoster with a delivery key in the metadata, and a failed post
 * is tried again at the next failing (or resuming) poll; nothing here knows Slack.
 */
import { isApiError } from '../api/errors.js';
import type { DocRepo, Store } from '../store/types.js';
import type { ChannelPoster, OutageNotice, Subscription, WatchRenderer } from './types.js';
import { DELIVERY_EVENT_TYPE } from './types.js';

export const OUTAGE_NS = 'watch-outage';
/** Default of WATCH_OUTAGE_NOTICE_MINUTES, ms. */
export const OUTAGE_NOTICE_AFTER_MS = 15 * 60_000;

export interface SiteOutage {
  v: 1;
  siteId: string;
  /** First failing poll of the outage, epoch ms (bot clock). */
  sinceMs: number;
  /** Latest failing poll. */
  lastFailureMs: number;
  /** Why, in words (no secrets: from the error kind and the service's code). */
  reason: string;
  failures: number;
  /** Channels told "delayed" (each once). */
  told: string[];
  /** Channels told "resumed" while the record is being closed (a retry skips them). */
  resumedTold?: string[];
  /** Set once a poll succeeded: the outage is over, only the "resumed" notices remain to post. */
  endedMs?: number;
  /** What the recovering poll caught up (job changes announced). */
  caughtUp?: { changes: number; finished: number };
}

export function outageRepo(store: Store): DocRepo<SiteOutage> {
  return store.docs<SiteOutage>(OUTAGE_NS);
}

/** The outages of a workspace still going on (not yet resumed), for `/dwm watches` and Home. */
export async function siteOutages(store: Store, workspace: string): Promise<SiteOutage[]> {
  const repo = outageRepo(store);
  const out: SiteOutage[] = [];
  for (const id of await repo.list(workspace)) {
    const o = await repo.get(workspace, id);
    if (o && o.endedMs === undefined) out.push(o);
  }
  return out.sort((a, b) => a.siteId.localeCompare(b.siteId));
}

/** Why the site's polls fail, in words a channel can read (no secrets, no stack). */
export function outageReason(e: unknown): string {
  if (!isApiError(e))
    return 'the bot could not finish its checks of the site (an unexpected error; see the logs)';
  switch (e.kind) {
    case 'transport': {
      const status = (e as { status?: number }).status;
      if (status === 429)
        return 'the watermarking service keeps refusing the bot for sending too many requests (HTTP 429)';
      return status !== undefined
        ? `the watermarking service answers with a server error (HTTP ${status})`
        : 'the watermarking service cannot be reached (no answer, or the connection failed)';
    }
    case 'service': {
      const code = String((e as { code?: string }).code ?? '').slice(0, 40);
      return `the watermarking service refuses the job queries (error_code ${code})`;
    }
    case 'protocol':
      return "the watermarking service's answers cannot be read (not the API's JSON)";
    default:
      return `the job queries fail (${e.kind})`;
  }
}

export interface OutageDeps {
  store: Store;
  poster: (ws: string) => ChannelPoster;
  renderer: WatchRenderer;
  noticeAfterMs: number;
  now: () => number;
  log: { warn(obj: unknown, msg: string): void };
}

/** The channels (first active subscription of each) watching `siteId`. */
function channelsOf(subs: readonly Subscription[], siteId: string): Map<string, Subscription> {
  const out = new Map<string, Subscription>();
  for (const s of subs)
    if (!s.paused && s.siteId === siteId && !out.has(s.channelId)) out.set(s.channelId, s);
  return out;
}

async function post(
  deps: OutageDeps,
  ws: string,
  sub: Subscription,
  notice: OutageNotice,
  key: string,
): Promise<boolean> {
  const render = deps.renderer.renderOutageNotice;
  if (!render) return false;
  try {
    await deps.poster(ws).post(sub.channelId, render(notice, sub), {
      metadata: { event_type: DELIVERY_EVENT_TYPE, event_payload: { key } },
    });
    return true;
  } catch (err) {
    deps.log.warn(
      { workspace: ws, siteId: notice.siteId, channel: sub.channelId, err },
      'outage notice not posted',
    );
    return false;
  }
}

/**
 * After a failing poll (not a refused login): record the outage, and once it has lasted
 * `noticeAfterMs`, tell each watching channel not told yet.
 */
export async function recordPollFailure(
  deps: OutageDeps,
  ws: string,
  siteId: string,
  subs: readonly Subscription[],
  error: unknown,
): Promise<SiteOutage> {
  const repo = outageRepo(deps.store);
  const now = deps.now();
  const prev = await repo.get(ws, siteId);
  // A record whose "resumed" notices are still pending is a new outage for the channels.
  const o: SiteOutage =
    prev && prev.endedMs === undefined
      ? { ...prev, lastFailureMs: now, failures: prev.failures + 1, reason: outageReason(error) }
      : {
          v: 1,
          siteId,
          sinceMs: now,
          lastFailureMs: now,
          reason: outageReason(error),
          failures: 1,
          told: [],
        };
  if (now - o.sinceMs >= deps.noticeAfterMs) {
    for (const [channel, sub] of channelsOf(subs, siteId)) {
      if (o.told.includes(channel)) continue;
      const notice: OutageNotice = { kind: 'delayed', siteId, sinceMs: o.sinceMs, reason: o.reason };
      if (await post(deps, ws, sub, notice, `${ws}|${channel}|outage:${siteId}:${o.sinceMs}:delayed`))
        o.told = [...o.told, channel];
    }
  }
  await repo.put(ws, siteId, o);
  return o;
}

/**
 * After a successful poll: an outage that told channels ends with one "resumed" notice to each of
 * them (with what this poll caught up); one that told no one is simply forgotten.
 */
export async function recordPollSuccess(
  deps: OutageDeps,
  ws: string,
  siteId: string,
  subs: readonly Subscription[],
  caught: { changes: number; finished: number },
): Promise<void> {
  const repo = outageRepo(deps.store);
  const prev = await repo.get(ws, siteId);
  if (!prev) return;
  if (prev.told.length === 0) {
    await repo.delete(ws, siteId);
    return;
  }
  const o: SiteOutage = {
    ...prev,
    endedMs: prev.endedMs ?? deps.now(),
    caughtUp: prev.caughtUp ?? caught,
    resumedTold: prev.resumedTold ?? [],
  };
  const watching = channelsOf(subs, siteId);
  for (const channel of o.told) {
    if (o.resumedTold?.includes(channel)) continue;
    const sub = watching.get(channel);
    if (!sub) {
      // No longer watched: nobody to tell.
      o.resumedTold = [...(o.resumedTold ?? []), channel];
      continue;
    }
    const notice: OutageNotice = {
      kind: 'resumed',
      siteId,
      sinceMs: o.sinceMs,
      reason: o.reason,
      endedMs: o.endedMs as number,
      caughtUp: o.caughtUp as { changes: number; finished: number },
    };
    if (await post(deps, ws, sub, notice, `${ws}|${channel}|outage:${siteId}:${o.sinceMs}:resumed`))
      o.resumedTold = [...(o.resumedTold ?? []), channel];
  }
  if (o.told.every((c) => o.resumedTold?.includes(c))) await repo.delete(ws, siteId);
  else await repo.put(ws, siteId, o);
}
