/**
 * Request outcomes, the user side: what the Slack layer calls when someone makes (or cancels) a
 * plan request or an additional-site request through the bot, so that the requester is told when
 * it is decided upstream and the card it was made on is updated in place (src/notices/requests.ts
 * polls; src/notices/notifier.ts delivers).
 *
 *   const view = await requestChangeTracked(deps, ws, client, { siteId, service, action, requestedBy });
 *   const { ts, channel } = await post the card (Slack);
 *   await attachRequestCard(deps, ws, view.trackingId, { channel, ts });
 *
 * Nothing here knows about Slack.
 */
import type { ServiceCode } from '../api/codes.js';
import type { ServiceClient } from '../api/types.js';
import { NoticeOutbox } from '../notices/outbox.js';
import {
  outcomeEntry,
  outcomeNotice,
  planTrackingId,
  RequestTracker,
  requestLabel,
  siteTrackingId,
  type TrackedRequest,
} from '../notices/requests.js';
import type { CardRef } from '../notices/types.js';
import { StoreUnavailableError } from '../store/errors.js';
import type { Store, WorkspaceKey } from '../store/types.js';
import { invalid, opsEndpoint, parseServiceCode } from './service/common.js';
import { cancelRequest, type PlanRequestView, requestChange } from './service/plan.js';
import { requestAdditionalSite } from './service/sites.js';

/** What these functions need (a subset of OpsDeps). */
export interface RequestOutcomeDeps {
  store: Store;
  now: () => number;
}

const SLACK_USER_RE = /^[UW][A-Z0-9]{2,20}$/;
const SLACK_CHANNEL_RE = /^[CGD][A-Z0-9]{2,20}$/;
const SLACK_TS_RE = /^\d{6,12}\.\d{1,6}$/;

function checkUser(endpoint: string, userId: string): void {
  if (!SLACK_USER_RE.test(userId)) invalid(endpoint, 'user', 'The requester is not a Slack user id.');
}

function checkCard(endpoint: string, card: CardRef | undefined): void {
  if (!card) return;
  if (!SLACK_CHANNEL_RE.test(card.channel) || !SLACK_TS_RE.test(card.ts)) {
    invalid(endpoint, 'card', 'The card reference needs a Slack channel id and message ts.');
  }
}

export interface TrackedView {
  trackingId: string;
}

/** A request the service registered that the bot could not record (the store was down). */
export interface UntrackedView {
  trackingId: undefined;
  untracked: StoreUnavailableError;
}

/** Remember a plan request made through the bot (call right after it was registered). */
export async function trackPlanRequest(
  deps: RequestOutcomeDeps,
  ws: WorkspaceKey,
  input: {
    siteId: string;
    serviceCode: ServiceCode | string;
    request: Pick<PlanRequestView, 'requestId' | 'type'>;
    requestedBy: string;
    card?: CardRef;
  },
): Promise<TrackedView> {
  const endpoint = opsEndpoint('requests.track');
  const serviceCode = parseServiceCode(input.serviceCode, endpoint);
  checkUser(endpoint, input.requestedBy);
  checkCard(endpoint, input.card);
  const id = planTrackingId(input.siteId, serviceCode, input.request.requestId);
  const t: TrackedRequest = {
    id,
    kind: 'plan',
    siteId: input.siteId,
    serviceCode,
    requestId: input.request.requestId,
    requestType: input.request.type,
    requestLabel: requestLabel(input.request.type),
    requestedBy: input.requestedBy,
    requestedAt: deps.now(),
    ...(input.card ? { card: input.card } : {}),
  };
  await new RequestTracker(deps.store).track(ws, t);
  return { trackingId: id };
}

/** Remember an additional-site request made through the bot. */
export async function trackSiteRequest(
  deps: RequestOutcomeDeps,
  ws: WorkspaceKey,
  input: { seq: number; name: string; requestedBy: string; card?: CardRef },
): Promise<TrackedView> {
  const endpoint = opsEndpoint('requests.track');
  if (!Number.isInteger(input.seq) || input.seq < 1)
    invalid(endpoint, 'request', 'The request number is not valid.');
  checkUser(endpoint, input.requestedBy);
  checkCard(endpoint, input.card);
  const id = siteTrackingId(input.seq);
  await new RequestTracker(deps.store).track(ws, {
    id,
    kind: 'site',
    siteId: '',
    siteName: input.name,
    requestId: String(input.seq),
    requestLabel: 'Additional site',
    requestedBy: input.requestedBy,
    requestedAt: deps.now(),
    ...(input.card ? { card: input.card } : {}),
  });
  return { trackingId: id };
}

/**
 * Store where the request's card was posted. Returns false when the request is no longer tracked
 * (it was decided before the card was posted: the outcome DM went out without a card update).
 */
export async function attachRequestCard(
  deps: RequestOutcomeDeps,
  ws: WorkspaceKey,
  trackingId: string,
  card: CardRef,
): Promise<boolean> {
  checkCard(opsEndpoint('requests.card'), card);
  return new RequestTracker(deps.store).attachCard(ws, trackingId, card);
}

/** `requestChange` (src/ops/service/plan.ts) plus tracking of the new request. */
export async function requestChangeTracked(
  deps: RequestOutcomeDeps,
  ws: WorkspaceKey,
  client: ServiceClient,
  input: {
    siteId: string;
    service: ServiceCode | string;
    action: string;
    message?: string;
    requestedBy: string;
  },
): Promise<PlanRequestView & (TrackedView | UntrackedView)> {
  const view = await requestChange(client, input.siteId, input.service, input.action, input.message);
  const serviceCode = parseServiceCode(input.service);
  const tracked = await sentAnyway(() =>
    trackPlanRequest(deps, ws, {
      siteId: input.siteId,
      serviceCode,
      request: view,
      requestedBy: input.requestedBy,
    }),
  );
  return { ...view, ...tracked };
}

/**
 * The tracking of a request the service already registered: the store down then must not report
 * the request as not made (the user would make it again: a second site request). Untracked
 * (`untracked`: the store error), the request stands; only the outcome message is lost.
 */
async function sentAnyway(track: () => Promise<TrackedView>): Promise<TrackedView | UntrackedView> {
  try {
    return await track();
  } catch (e) {
    if (e instanceof StoreUnavailableError) return { trackingId: undefined, untracked: e };
    throw e;
  }
}

/** `requestAdditionalSite` plus tracking. */
export async function requestAdditionalSiteTracked(
  deps: RequestOutcomeDeps,
  ws: WorkspaceKey,
  client: ServiceClient,
  input: { name: string; requestedBy: string },
): Promise<{ seq: number; name: string } & (TrackedView | UntrackedView)> {
  const r = await requestAdditionalSite(client, input.name);
  const tracked = await sentAnyway(() =>
    trackSiteRequest(deps, ws, {
      seq: r.seq,
      name: r.name,
      requestedBy: input.requestedBy,
    }),
  );
  return { ...r, ...tracked };
}

/**
 * `cancelRequest` for a request the bot may be tracking. The tracking record is marked before the
 * cancel goes out, so a poll that sees ST002 meanwhile knows who cancelled it. After the cancel:
 * the card is updated and, when someone other than the requester cancelled, the requester gets a
 * DM saying who did (the canceller sees the result in the command's own answer). `kick` asks the
 * runtime to deliver at once (Notifier.kick).
 */
export async function cancelPlanRequestTracked(
  deps: RequestOutcomeDeps,
  ws: WorkspaceKey,
  client: ServiceClient,
  input: {
    siteId: string;
    service: ServiceCode | string;
    requestId?: string;
    cancelledBy: string;
    kick?: (ws: string) => void;
  },
): Promise<PlanRequestView & { untracked?: StoreUnavailableError }> {
  const endpoint = opsEndpoint('plan.cancel');
  const serviceCode = parseServiceCode(input.service, endpoint);
  checkUser(endpoint, input.cancelledBy);
  const tracker = new RequestTracker(deps.store);
  const marked: string[] = [];
  for (const t of await tracker.list(ws)) {
    if (t.kind !== 'plan' || t.siteId !== input.siteId || t.serviceCode !== serviceCode) continue;
    if (input.requestId && t.requestId !== input.requestId) continue;
    await tracker.markCancelling(ws, t.id, input.cancelledBy, deps.now());
    marked.push(t.id);
  }
  let view: PlanRequestView;
  try {
    view = await cancelRequest(client, input.siteId, serviceCode, input.requestId);
  } catch (e) {
    for (const id of marked) await tracker.clearCancelling(ws, id);
    throw e;
  }
  // The service cancelled it: from here on the store down must not report the cancel as not made.
  // The record keeps its `cancelling` mark then, so the outcome poll still tells "cancelled by"
  // this user once it sees the cancel (only the immediate card rewrite waits for it).
  try {
    const id = planTrackingId(input.siteId, serviceCode, view.requestId);
    for (const other of marked) if (other !== id) await tracker.clearCancelling(ws, other);
    const t = await tracker.get(ws, id);
    if (t) {
      const now = deps.now();
      const notice = outcomeNotice(t, 'cancelled', 'ST002', now, { cancelledBy: input.cancelledBy });
      await new NoticeOutbox(deps.store).add([
        outcomeEntry(ws, t, notice, t.requestedBy !== input.cancelledBy, now),
      ]);
      await tracker.remove(ws, id);
      input.kick?.(ws);
    }
  } catch (e) {
    if (!(e instanceof StoreUnavailableError)) throw e;
    return { ...view, untracked: e };
  }
  return view;
}

/** Requests the bot is waiting on (App Home, /dwm debug); `userId` narrows to one requester. */
export async function listTrackedRequests(
  deps: RequestOutcomeDeps,
  ws: WorkspaceKey,
  opts: { userId?: string } = {},
): Promise<TrackedRequest[]> {
  const all = await new RequestTracker(deps.store).list(ws);
  return opts.userId ? all.filter((t) => t.requestedBy === opts.userId) : all;
}
