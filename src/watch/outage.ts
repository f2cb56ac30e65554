/**
 * An outage is not silence: a site whose watermarking service has been unreachable or failing
 * (not a refused login, which pauses the workspace: paused-workspaces.ts) for longer than
 * `noticeAfterMs` (WATCH_OUTAGE_NOTICE_MINUTES) tells each channel watching it, once, that its
 * notifications are delayed and why; when a poll succeeds again, the channels told hear, once,
 * that they resumed and what was caught up. The list of watches and the Home tab read the same record
 * while it lasts (`siteOutages`).
 *
 * One record per workspace + site in the store (namespace `watch-outage`), written by the replica
 * holding the site's lease (pollOnce), so replicas share it and a restart forgets nothing: the
 * outage's start, its reason in words, and the channels already told (each told once). Posting
 * follows the job notifications' exactly-once scheme (delivery.ts): the notice's delivery key and
 * time are saved in the record as `sending` BEFORE the post, the posted message carries the key in
 * its metadata, and the channel is marked told after. A process that dies between the post and
 * that write leaves the key `sending`: the next poll looks for a message carrying it
 * (`findByMetadata`) before posting again, so a notice is neither repeated nor lost. A failed post
 * is tried again at the next failing (or resuming) poll; nothing here knows Slack.
 */
import { isApiError } from '../api/errors.js';
import type { DocRepo, Store } from '../store/types.js';
import { toSlackTs } from './delivery.js';
import { classifyDeliveryError } from './delivery-errors.js';
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
  /**
   * Notices whose post was started and not yet recorded: delivery key -> when (bot clock). A key
   * still here on the next poll is looked up in the channel before posting again.
   */
  sending?: Record<string, { channel: string; atMs: number; kind: OutageNotice['kind'] }>;
}

/** How far before a `sending` mark the channel is searched for the notice (clock differences). */
export const OUTAGE_RECOVERY_WINDOW_MS = 120_000;

export function outageRepo(store: Store): DocRepo<SiteOutage> {
  return store.docs<SiteOutage>(OUTAGE_NS);
}

/** The outages of a workspace still going on (not yet resumed), for the list of watches and Home. */
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

/**
 * A notice marked `sending` by a process that may have died after posting it: true (and the mark
 * cleared) when the channel has a message carrying its key. Throws when Slack cannot be asked.
 */
async function foundInChannel(deps: OutageDeps, ws: string, o: SiteOutage, key: string): Promise<boolean> {
  const mark = o.sending?.[key];
  if (!mark) return false;
  const found = await deps
    .poster(ws)
    .findByMetadata(mark.channel, key, toSlackTs(mark.atMs - OUTAGE_RECOVERY_WINDOW_MS));
  if (!found) return false;
  delete o.sending?.[key];
  return true;
}

/**
 * Posts one notice exactly once (see the header): true when it is in the channel (posted now, or
 * found there from a post a dead process made), false when it could not be posted this time.
 */
async function post(
  deps: OutageDeps,
  ws: string,
  o: SiteOutage,
  sub: Subscription,
  notice: OutageNotice,
  key: string,
): Promise<boolean> {
  const render = deps.renderer.renderOutageNotice;
  if (!render) return false;
  const poster = deps.poster(ws);
  try {
    if (o.sending?.[key] && (await foundInChannel(deps, ws, o, key))) return true;
    o.sending = { ...o.sending, [key]: { channel: sub.channelId, atMs: deps.now(), kind: notice.kind } };
    await outageRepo(deps.store).put(ws, notice.siteId, o);
    await poster.post(sub.channelId, render(notice, sub), {
      metadata: { event_type: DELIVERY_EVENT_TYPE, event_payload: { key } },
    });
    delete o.sending[key];
    return true;
  } catch (err) {
    // A channel that refuses the app for good (gone, archived, not in it, shared with another
    // organisation) or the message itself: given up once, not tried again and logged on every
    // failing poll; the next job notification there meets the same refusal and pauses the watch.
    const c = classifyDeliveryError(err);
    if (c.type === 'permanent' || c.type === 'rejected') {
      delete o.sending?.[key];
      deps.log.warn(
        { workspace: ws, siteId: notice.siteId, channel: sub.channelId, code: c.code },
        'outage notice cannot be posted in this channel: given up',
      );
      return true;
    }
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
      if (await post(deps, ws, o, sub, notice, `${ws}|${channel}|outage:${siteId}:${o.sinceMs}:delayed`))
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
  // A "delayed" notice a dead process posted but did not record: its channel was told, so it
  // hears "resumed" too.
  for (const [key, mark] of Object.entries(prev.sending ?? {})) {
    if (mark.kind !== 'delayed' || prev.told.includes(mark.channel)) continue;
    try {
      if (await foundInChannel(deps, ws, prev, key)) prev.told = [...prev.told, mark.channel];
    } catch (err) {
      deps.log.warn({ workspace: ws, siteId, channel: mark.channel, err }, 'outage notice not looked up');
      return; // asked again at the next poll
    }
  }
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
    if (await post(deps, ws, o, sub, notice, `${ws}|${channel}|outage:${siteId}:${o.sinceMs}:resumed`))
      o.resumedTold = [...(o.resumedTold ?? []), channel];
  }
  if (o.told.every((c) => o.resumedTold?.includes(c))) await repo.delete(ws, siteId);
  else await repo.put(ws, siteId, o);
}
