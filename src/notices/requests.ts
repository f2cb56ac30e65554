/**
 * Plan-request and additional-site-request outcomes. The bot tracks a request when someone makes
 * it through the bot (src/ops/request-outcomes.ts records it with the requester and, once posted,
 * the card's channel + ts). While a workspace has tracked requests, each poll reads their status:
 *
 * - plan requests: endpoint 8 (latest request of site + product), one call per site + product
 *   however many requests are tracked there. ST003 -> approved, ST002 -> cancelled; a status the
 *   spec does not list is treated as an unknown word (below). A different latest request id
 *   means ours was replaced upstream (only the latest is readable): superseded.
 * - additional-site requests: endpoint 3 listed from the day of the oldest tracked request,
 *   paged until every tracked seq is found (at most `maxSitePages` pages). The spec lists no status
 *   values: the words are read with SERVICE_SITE_REQUEST_STATUSES (src/api/site-request-statuses.ts).
 *   Only a word read as approved or cancelled ends the tracking. A word the table does not know
 *   keeps the request tracked (logged once per word) and is announced as it is ("changed") only
 *   after it has stood unchanged for `unknownStatusSettledMs` since the bot first saw it (as the
 *   job watcher does with unlisted job statuses): a pending status named otherwise must never tell
 *   the requester that their request was decided, and the real decision is still told.
 *
 * An outcome becomes a notice (key `request:<tracking id>:<status>`) in the notices outbox, THEN
 * the tracking record is removed: a crash in between re-detects the same key, which the outbox
 * skips. Nothing is polled for a workspace without tracked requests.
 */
import { z } from 'zod';
import { REQUEST_STATUS, REQUEST_TYPE, type ServiceCode } from '../api/codes.js';
import { AuthError, PermissionError } from '../api/errors.js';
import { PageWalk } from '../api/paging.js';
import { type SiteRequestStatusTable, siteRequestReading } from '../api/site-request-statuses.js';
import type { AdditionalSiteRequest, ServiceClient, StatusRequest } from '../api/types.js';
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
  retryable,
} from './outbox.js';
import { FeatureRegistry } from './registry.js';
import type { CardRef, PostedRef, RequestKind, RequestOutcome, RequestOutcomeNotice } from './types.js';

export const TRACKED_REQUESTS_NS = 'notify-requests';
/**
 * A request undecided this long is dropped from tracking (no DM). The spec gives no deadline for
 * the provider; 90 days bounds the polling of a request whose site left the account.
 */
export const REQUEST_TRACK_MAX_AGE_MS = 90 * 24 * 3600_000;

export interface TrackedRequest {
  /** `plan:<site>:<service>:<req_group_id>` or `site:<seq>`. */
  id: string;
  kind: RequestKind;
  siteId: string;
  siteName?: string;
  serviceCode?: ServiceCode;
  requestId: string;
  requestType?: string;
  requestLabel: string;
  requestedBy: string;
  requestedAt: number;
  card?: CardRef;
  /** Set by a cancel through the bot just before the call goes out. */
  cancelling?: { by: string; at: number };
  /** An additional-site status word the table does not know, and when the bot first saw it. */
  unknownStatus?: { word: string; since: number };
}

const cardSchema = z.object({ channel: z.string().min(1), ts: z.string().min(1) });
export const trackedRequestSchema = z.object({
  id: z.string().min(1),
  kind: z.enum(['plan', 'site']),
  siteId: z.string(),
  siteName: z.string().optional(),
  serviceCode: z.enum(['PD001', 'PD002']).optional(),
  requestId: z.string().min(1),
  requestType: z.string().optional(),
  requestLabel: z.string(),
  requestedBy: z.string().min(1),
  requestedAt: z.number(),
  card: cardSchema.optional(),
  cancelling: z.object({ by: z.string(), at: z.number() }).optional(),
  unknownStatus: z.object({ word: z.string().max(200), since: z.number() }).optional(),
});

/** Ids are built from upstream values: keep them to a safe alphabet. */
export function safeIdPart(v: string): string {
  return v.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 60) || '_';
}

export function planTrackingId(siteId: string, serviceCode: string, requestId: string): string {
  return `plan:${safeIdPart(siteId)}:${safeIdPart(serviceCode)}:${safeIdPart(requestId)}`;
}

export function siteTrackingId(seq: number | string): string {
  return `site:${safeIdPart(String(seq))}`;
}

/** Tracked (pending) requests per workspace. */
export class RequestTracker {
  readonly docs: AtomicDocRepo<TrackedRequest>;
  private readonly registry: FeatureRegistry;

  constructor(store: Store) {
    this.docs = store.docs<TrackedRequest>(TRACKED_REQUESTS_NS, trackedRequestSchema as never);
    this.registry = new FeatureRegistry(store);
  }

  async track(ws: WorkspaceKey, t: TrackedRequest): Promise<TrackedRequest> {
    const checked = trackedRequestSchema.parse(t) as TrackedRequest;
    await this.docs.update(ws, checked.id, (old) =>
      old ? { ...checked, card: old.card ?? checked.card } : checked,
    );
    await this.registry.add('requests', ws);
    return checked;
  }

  async get(ws: WorkspaceKey, id: string): Promise<TrackedRequest | undefined> {
    return this.docs.get(ws, id);
  }

  async list(ws: WorkspaceKey): Promise<TrackedRequest[]> {
    const out: TrackedRequest[] = [];
    for (const id of await this.docs.list(ws)) {
      try {
        const t = await this.docs.get(ws, id);
        if (t) out.push(t);
      } catch {
        // An unreadable record is skipped (and stays for inspection); the others still poll.
      }
    }
    return out.sort((a, b) => a.requestedAt - b.requestedAt);
  }

  /** Store the card's place; false when the request is no longer tracked (already decided). */
  async attachCard(ws: WorkspaceKey, id: string, card: CardRef): Promise<boolean> {
    const c = cardSchema.parse(card);
    const r = await this.docs.update(ws, id, (old) => (old ? { ...old, card: c } : undefined));
    return r !== undefined;
  }

  async markCancelling(
    ws: WorkspaceKey,
    id: string,
    by: string,
    at: number,
  ): Promise<TrackedRequest | undefined> {
    return this.docs.update(ws, id, (old) => (old ? { ...old, cancelling: { by, at } } : undefined));
  }

  /** Remember (or forget, with undefined) the unknown status word a request stands at. */
  async noteUnknownStatus(
    ws: WorkspaceKey,
    id: string,
    unknown: { word: string; since: number } | undefined,
  ): Promise<void> {
    await this.docs.update(ws, id, (old) => {
      if (!old) return undefined;
      const { unknownStatus: _u, ...rest } = old;
      return unknown ? { ...rest, unknownStatus: unknown } : rest;
    });
  }

  async clearCancelling(ws: WorkspaceKey, id: string): Promise<void> {
    await this.docs.update(ws, id, (old) => {
      if (!old) return undefined;
      const { cancelling: _c, ...rest } = old;
      return rest;
    });
  }

  async remove(ws: WorkspaceKey, id: string): Promise<void> {
    await this.docs.delete(ws, id);
  }

  async workspaces(): Promise<string[]> {
    return this.registry.workspaces('requests');
  }
}

// ---------------------------------------------------------------------------------------------
// Detection
// ---------------------------------------------------------------------------------------------

/**
 * An additional-site status word to an outcome: approved / cancelled when the table reads it so,
 * 'pending' while pending, 'unknown' for a word the table does not know (still tracked).
 */
export function siteRequestOutcome(
  status: string,
  table?: SiteRequestStatusTable,
): 'approved' | 'cancelled' | 'pending' | 'unknown' {
  return siteRequestReading(status, table) ?? 'unknown';
}

/**
 * A status the bot does not know as pending or decided (an additional-site word the table does not
 * know, a plan request status the spec does not list) is announced as it is once it has stood
 * unchanged this long since the bot first saw it. Default of SITE_REQUEST_UNKNOWN_STATUS_MINUTES.
 */
export const SITE_UNKNOWN_STATUS_SETTLED_MS = 60 * 60_000;

function statusLabel(outcome: RequestOutcome, raw: string): string {
  if (raw in REQUEST_STATUS) return REQUEST_STATUS[raw as keyof typeof REQUEST_STATUS];
  if (outcome === 'approved') return 'Approved';
  if (outcome === 'cancelled') return 'Cancelled';
  if (outcome === 'superseded') return 'Replaced by a newer request';
  return raw || 'Unknown';
}

export function requestLabel(type: string | undefined): string {
  if (!type) return 'Request';
  return (REQUEST_TYPE as Record<string, string>)[type] ?? type;
}

export interface RequestOutcomePayload {
  notice: RequestOutcomeNotice;
  card?: CardRef;
  /** DM the requester (false when the requester cancelled it through the bot themself). */
  dm: boolean;
}

export function outcomeNotice(
  t: TrackedRequest,
  outcome: RequestOutcome,
  status: string,
  decidedAt: number,
  extra: { cancelledBy?: string; supersededBy?: string; siteId?: string } = {},
): RequestOutcomeNotice {
  const n: RequestOutcomeNotice = {
    kind: t.kind,
    requestId: t.requestId,
    siteId: extra.siteId ?? t.siteId,
    requestLabel: t.requestLabel,
    outcome,
    status,
    statusLabel: statusLabel(outcome, status),
    requestedBy: t.requestedBy,
    requestedAt: t.requestedAt,
    decidedAt,
  };
  if (t.siteName) n.siteName = t.siteName;
  if (t.serviceCode) {
    n.serviceCode = t.serviceCode;
    n.serviceLabel = t.serviceCode === 'PD001' ? 'DRM' : 'Forensic watermarking';
  }
  if (t.requestType) n.requestType = t.requestType;
  if (extra.cancelledBy) n.cancelledBy = extra.cancelledBy;
  if (extra.supersededBy) n.supersededBy = extra.supersededBy;
  return n;
}

export function outcomeEntry(
  ws: string,
  t: TrackedRequest,
  notice: RequestOutcomeNotice,
  dm: boolean,
  now: number,
) {
  const payload: RequestOutcomePayload = { notice, dm, ...(t.card ? { card: t.card } : {}) };
  return newNotice(
    {
      key: `request:${t.id}:${safeIdPart(notice.status || notice.outcome)}`,
      workspace: ws,
      kind: 'request-outcome',
      lane: `dm:${t.requestedBy}`,
      payload,
    },
    now,
  );
}

export interface RequestPollResult {
  tracked: number;
  outcomes: number;
  calls: number;
}

export interface RequestPollInput {
  workspace: string;
  client: ServiceClient;
  tracker: RequestTracker;
  outbox: NoticeOutbox;
  now: () => number;
  /** Requests undecided for longer are no longer polled. Default 90 days. */
  maxAgeMs?: number;
  /** Page cap for the additional-site request list. Default 10 (of up to 100 each). */
  maxSitePages?: number;
  /** The additional-site status words (default: the process table, SERVICE_SITE_REQUEST_STATUSES). */
  siteStatuses?: SiteRequestStatusTable;
  /** How long an unknown status word stands before it is announced. Default 60 min. */
  unknownStatusSettledMs?: number;
  logger?: Logger;
}

/** One poll of a workspace's tracked requests: enqueue outcomes, then untrack them. */
export async function pollRequests(input: RequestPollInput): Promise<RequestPollResult> {
  const { workspace: ws, client, tracker, outbox } = input;
  const maxAge = input.maxAgeMs ?? REQUEST_TRACK_MAX_AGE_MS;
  const all = await tracker.list(ws);
  const tracked: TrackedRequest[] = [];
  for (const t of all) {
    if (input.now() - t.requestedAt <= maxAge) tracked.push(t);
    else {
      // Undecided for months (or its site left the account): stop polling it.
      input.logger?.info({ workspace: ws, id: t.id }, 'request tracking expired');
      await tracker.remove(ws, t.id);
    }
  }
  const res: RequestPollResult = { tracked: tracked.length, outcomes: 0, calls: 0 };
  if (tracked.length === 0) return res;
  const decided: Array<{ t: TrackedRequest; entry: NoticeEntry }> = [];

  // Plan requests: one call per site + product.
  const groups = new Map<string, TrackedRequest[]>();
  for (const t of tracked) {
    if (t.kind !== 'plan' || !t.serviceCode) continue;
    const k = `${t.siteId}|${t.serviceCode}`;
    groups.set(k, [...(groups.get(k) ?? []), t]);
  }
  const settledMs = input.unknownStatusSettledMs ?? SITE_UNKNOWN_STATUS_SETTLED_MS;
  /**
   * A status word that is no decision the bot knows: logged once per word, remembered with when
   * the bot first saw it; true once it has stood `settledMs` (then announced as it is).
   */
  const unknownSettled = async (t: TrackedRequest, status: string, now: number): Promise<boolean> => {
    const word = status.slice(0, 200);
    const same = t.unknownStatus?.word === word;
    const since = same && t.unknownStatus ? t.unknownStatus.since : now;
    if (!same) {
      input.logger?.warn(
        { workspace: ws, id: t.id, status: word },
        'request status not known as pending or decided: still tracked, announced as it is if it stands',
      );
      await tracker.noteUnknownStatus(ws, t.id, { word, since });
    }
    return now - since >= settledMs;
  };
  const errors: unknown[] = [];
  for (const list of groups.values()) {
    const first = list[0] as TrackedRequest;
    res.calls++;
    let latest: StatusRequest | null;
    try {
      latest = await input.client.getLatestStatusRequest(first.siteId, first.serviceCode as ServiceCode);
    } catch (e) {
      // One site failing (removed from the account...) must not hold back the others' outcomes;
      // credentials refused, or every call failing, fails the poll (backoff).
      if (e instanceof AuthError || e instanceof PermissionError) throw e;
      input.logger?.warn({ workspace: ws, siteId: first.siteId, err: e }, 'request status read failed');
      errors.push(e);
      continue;
    }
    const now = input.now();
    for (const listed of list) {
      let notice: RequestOutcomeNotice | undefined;
      let t = listed;
      if (latest && latest.requestId === listed.requestId) {
        const st = latest.status ?? 'ST001';
        if (st === 'ST001') {
          if (listed.unknownStatus) await tracker.noteUnknownStatus(ws, listed.id, undefined);
          continue;
        }
        // A status the spec does not list (ST004...): not a decision until it has stood.
        if (st !== 'ST002' && st !== 'ST003' && !(await unknownSettled(listed, st, now))) continue;
        // The list was read before the service was: a cancel through the bot may have happened in
        // between. It marks the record (`cancelling`) BEFORE its call goes out, so a record read
        // AFTER the service answered ST002 knows who cancelled it; a record gone means the cancel
        // already queued its own outcome. Without this re-read the requester's own cancel would be
        // reported as "cancelled outside the bot".
        const fresh = await tracker.get(ws, listed.id);
        if (!fresh) continue;
        t = fresh;
        const decidedAt = latest.updateTime?.epochMs ?? now;
        const by = st === 'ST002' ? t.cancelling?.by : undefined;
        const outcome: RequestOutcome =
          st === 'ST003' ? 'approved' : st === 'ST002' ? 'cancelled' : 'changed';
        notice = outcomeNotice(t, outcome, st, decidedAt, {
          ...(by ? { cancelledBy: by } : {}),
        });
      } else {
        // Ours is not the latest any more (or the service lists none): replaced upstream.
        if (latest && latest.regTime.epochMs !== null && latest.regTime.epochMs < t.requestedAt - 60_000) {
          // The service still shows an OLDER request as the latest: ours is not visible yet. Wait.
          continue;
        }
        notice = outcomeNotice(t, 'superseded', 'superseded', now, {
          ...(latest ? { supersededBy: latest.requestId } : {}),
        });
      }
      const dm = !(notice.cancelledBy && notice.cancelledBy === t.requestedBy);
      decided.push({ t, entry: outcomeEntry(ws, t, notice, dm, now) });
    }
  }

  if (
    groups.size > 0 &&
    errors.length === groups.size &&
    decided.length === 0 &&
    !tracked.some((t) => t.kind === 'site')
  ) {
    throw errors[0];
  }

  // Additional-site requests: page through the list from the oldest tracked day.
  const sites = tracked.filter((t) => t.kind === 'site');
  if (sites.length > 0) {
    const wanted = new Map(sites.map((t) => [t.requestId, t]));
    const from = utcDay(Math.min(...sites.map((t) => t.requestedAt)) - 24 * 3600_000);
    const maxPages = input.maxSitePages ?? 10;
    const found = new Map<string, AdditionalSiteRequest>();
    // The common page walker: a service capping pages below 100 is not taken as the last page.
    const walk = new PageWalk(maxPages);
    for (let page = 1; found.size < wanted.size; page++) {
      res.calls++;
      const p = await client.listAdditionalSiteRequests({ from, pageUnit: 100, pageIndex: page });
      const fresh = walk.fresh(p.items, (r) => r.seq);
      for (const r of fresh) if (wanted.has(String(r.seq))) found.set(String(r.seq), r);
      if (!walk.next(p, fresh.length)) break;
    }
    const now = input.now();
    for (const [seq, r] of found) {
      const t = wanted.get(seq) as TrackedRequest;
      const reading = siteRequestOutcome(r.status, input.siteStatuses);
      if (reading === 'pending') {
        if (t.unknownStatus) await tracker.noteUnknownStatus(ws, t.id, undefined);
        continue;
      }
      if (reading === 'unknown' && !(await unknownSettled(t, r.status, now))) continue;
      const outcome: RequestOutcome = reading === 'unknown' ? 'changed' : reading;
      const notice = outcomeNotice(t, outcome, r.status, r.updateTime.epochMs ?? now, {
        ...(r.siteId ? { siteId: r.siteId } : {}),
      });
      decided.push({ t, entry: outcomeEntry(ws, t, notice, true, now) });
    }
  }

  if (decided.length > 0) {
    await outbox.add(decided.map((d) => d.entry));
    for (const d of decided) await tracker.remove(ws, d.t.id);
    res.outcomes = decided.length;
  }
  return res;
}

// ---------------------------------------------------------------------------------------------
// Delivery
// ---------------------------------------------------------------------------------------------

const payloadSchema = z.object({
  notice: z.object({ requestId: z.string(), requestedBy: z.string(), outcome: z.string() }).passthrough(),
  card: cardSchema.optional(),
  dm: z.boolean(),
});

export function requestOutcomeHandler(logger?: Logger): NoticeHandler {
  return {
    async deliver(entry: NoticeEntry, ctx: DeliverContext): Promise<DeliverResult> {
      const p = payloadSchema.parse(entry.payload) as unknown as RequestOutcomePayload;
      let main: PostedRef | undefined;
      if (p.dm) {
        try {
          main = await ctx.postOnce('dm', { userId: p.notice.requestedBy }, (key) =>
            ctx.ports.deliverDm(p.notice.requestedBy, p.notice, { key }),
          );
        } catch (err) {
          if (retryable(err)) throw err;
          // The user cannot be messaged (left the workspace...): the card is still updated.
          logger?.warn({ key: entry.key, err }, 'request outcome DM refused by Slack');
        }
      }
      if (p.card) {
        const card = p.card;
        await ctx.tryCall(() => ctx.ports.updateCard(card, p.notice));
      }
      return main ? { done: true, main } : { done: true };
    },
  };
}
