/**
 * Plan requests (`/drm plan ...`): the latest service status change request of a site's product,
 * which actions are possible now (and why not), and the change / cancel operations.
 *
 * Actions and the Service API codes they map to:
 *   trial   -> SM003 trial extension    (any member)
 *   resume  -> SM001 service resume      (any member)
 *   suspend -> SM002 service suspension  (admin)
 *   cancel  -> SM004 cancel the pending request (admin)
 * Roles are exposed as data (`PLAN_ACTIONS[...].role`); the Slack side checks them, this layer
 * has no notion of who is asking.
 */
import {
  codeLabel,
  type ProductStatusCode,
  REQUEST_STATUS,
  REQUEST_TYPE,
  type RegistrableRequestType,
  type RequestStatusCode,
  type ServiceCode,
} from '../../api/codes.js';
import { isPerItemRefusal, type UnreadLatest, unreadLatestOf } from '../../api/errors.js';
import type { ServiceClient, StatusRequest, TimeValue } from '../../api/types.js';
import {
  invalid,
  opsEndpoint,
  parseServiceCode,
  RefusedError,
  requireSiteId,
  serviceLabel,
} from './common.js';

export type PlanAction = 'trial' | 'resume' | 'suspend' | 'cancel';
export type PlanRole = 'member' | 'admin';

export interface PlanActionSpec {
  action: PlanAction;
  requestType: RegistrableRequestType | 'SM004';
  /** Human label, e.g. "Trial extension". */
  label: string;
  /** Who may do it. */
  role: PlanRole;
}

export const PLAN_ACTIONS: Readonly<Record<PlanAction, PlanActionSpec>> = {
  trial: { action: 'trial', requestType: 'SM003', label: 'Trial extension', role: 'member' },
  resume: { action: 'resume', requestType: 'SM001', label: 'Service resume', role: 'member' },
  suspend: { action: 'suspend', requestType: 'SM002', label: 'Service suspension', role: 'admin' },
  cancel: { action: 'cancel', requestType: 'SM004', label: 'Cancel the pending request', role: 'admin' },
};
/** Display order of the actions (main ones first, destructive ones last). */
export const PLAN_ACTION_ORDER: readonly PlanAction[] = ['trial', 'resume', 'suspend', 'cancel'];

/** Longest request message accepted. The spec gives no limit; 500 characters is a sane cap. */
export const PLAN_MESSAGE_MAX = 500;

export interface PlanRequestView {
  requestId: string;
  /** SM001..SM004 (or an unknown code as sent). */
  type: string;
  typeLabel: string;
  /** Absent only on a register response; a new request is pending. */
  status: RequestStatusCode | undefined;
  statusLabel: string;
  pending: boolean;
  message: string;
  registeredBy: string;
  regTime: TimeValue;
  updateTime?: TimeValue;
  /**
   * A new request sent although the latest one could not be read first (the pre-read failed: the
   * service's own pending refusal is the guard then): why, for the card.
   */
  earlierUnread?: UnreadLatest;
}

/** Why the latest request could not be read: the service's code and text, as it gave them. */
export type { UnreadLatest };
export { unreadLatestOf };

/**
 * The latest request, or the reason it could not be read. "No request yet" is already none (the
 * client reads null, an empty list and the not-found refusal as none); a refusal left here (a code
 * the table does not know, a 403 for this one API) is not a reason to refuse the user anything.
 */
async function readLatest(
  client: ServiceClient,
  siteId: string,
  serviceCode: ServiceCode,
): Promise<{ latest: StatusRequest | null; unread?: UnreadLatest }> {
  try {
    return { latest: await client.getLatestStatusRequest(siteId, serviceCode) };
  } catch (e) {
    if (isPerItemRefusal(e)) {
      return { latest: null, unread: unreadLatestOf(e) };
    }
    throw e;
  }
}

export interface PlanActionState extends PlanActionSpec {
  allowed: boolean;
  /** Why not, when not allowed: one sentence that says what to do. */
  reason?: string;
}

export interface PlanState {
  siteId: string;
  serviceCode: ServiceCode;
  serviceLabel: string;
  latest: PlanRequestView | null;
  /** Set when the latest request could not be read (then `latest` is null: unknown, not none). */
  unreadLatest?: UnreadLatest;
  actions: PlanActionState[];
}

export function toRequestView(r: StatusRequest): PlanRequestView {
  // A register response has no reg_status: a new request is pending (ST001).
  const status: RequestStatusCode | undefined = r.status;
  const effective = status ?? 'ST001';
  const view: PlanRequestView = {
    requestId: r.requestId,
    type: r.type,
    typeLabel: (REQUEST_TYPE as Record<string, string>)[r.type] ?? r.type,
    status,
    statusLabel: codeLabel(REQUEST_STATUS, effective),
    pending: effective === 'ST001',
    message: r.message,
    registeredBy: r.registeredBy,
    regTime: r.regTime,
  };
  if (r.updateTime) view.updateTime = r.updateTime;
  return view;
}

/** Accepts `trial|resume|suspend|cancel` or `SM001..SM004` (any case). */
export function parsePlanAction(input: string, endpoint = opsEndpoint('plan')): PlanAction {
  const v = input.trim().toLowerCase();
  for (const spec of Object.values(PLAN_ACTIONS)) {
    if (v === spec.action || v === spec.requestType.toLowerCase()) return spec.action;
  }
  return invalid(
    endpoint,
    'action',
    `"${input.slice(0, 20)}" is not a plan action: use trial, resume, suspend or cancel.`,
  );
}

export interface PlanStateOptions {
  /**
   * The product's current status when the caller knows it (from `listSites`). With it, resume is
   * offered only while suspended and suspension only while in service; without it both are
   * offered and the service decides.
   */
  productStatus?: ProductStatusCode;
}

function pendingReason(latest: PlanRequestView): string {
  return `A ${latest.typeLabel.toLowerCase()} request (${latest.requestId}) is already pending: wait until it is handled, or cancel it first.`;
}

/** Computes which actions are possible given the latest request (pure; exported for tests/UI). */
export function allowedActions(
  latest: PlanRequestView | null,
  opts: PlanStateOptions & { unread?: UnreadLatest } = {},
): PlanActionState[] {
  return PLAN_ACTION_ORDER.map((a) => {
    const spec = PLAN_ACTIONS[a];
    if (a === 'cancel') {
      if (latest?.pending) return { ...spec, allowed: true };
      return {
        ...spec,
        allowed: false,
        reason: opts.unread
          ? 'Cancel needs the pending request, and the latest request could not be read.'
          : latest
            ? `Cancel is possible only while the request is pending; the latest request is ${latest.statusLabel.toLowerCase()}.`
            : 'Cancel is possible only while the request is pending; there is no request.',
      };
    }
    if (latest?.pending) return { ...spec, allowed: false, reason: pendingReason(latest) };
    if (a === 'resume' && opts.productStatus === 'SE000') {
      return { ...spec, allowed: false, reason: 'The product is in service: there is nothing to resume.' };
    }
    if (a === 'suspend' && opts.productStatus === 'SE001') {
      return { ...spec, allowed: false, reason: 'The product is already suspended.' };
    }
    return { ...spec, allowed: true };
  });
}

/** The latest request of a site's product and the actions allowed now. */
export async function getPlanState(
  client: ServiceClient,
  siteId: string,
  service: ServiceCode | string,
  opts: PlanStateOptions = {},
): Promise<PlanState> {
  const endpoint = opsEndpoint('plan.state');
  requireSiteId(endpoint, siteId);
  const serviceCode = parseServiceCode(service, endpoint);
  const read = await readLatest(client, siteId, serviceCode);
  const latest = read.latest ? toRequestView(read.latest) : null;
  return {
    siteId,
    serviceCode,
    serviceLabel: serviceLabel(serviceCode),
    latest,
    ...(read.unread ? { unreadLatest: read.unread } : {}),
    actions: allowedActions(latest, { ...opts, ...(read.unread ? { unread: read.unread } : {}) }),
  };
}

/**
 * Registers a resume / suspension / trial-extension request. The latest request is read first:
 * when one is pending the call is refused with `alreadyPending` and nothing is sent (the service
 * would refuse with requestAlreadyPending anyway; this gives the better message). A race between
 * two users is still caught by the service's own refusal, surfaced as its ServiceError. A pre-read
 * that fails, however it fails, never blocks the request: it is sent, and the view says why no
 * earlier request could be read (`earlierUnread`).
 */
export async function requestChange(
  client: ServiceClient,
  siteId: string,
  service: ServiceCode | string,
  action: PlanAction | RegistrableRequestType | string,
  message?: string,
): Promise<PlanRequestView> {
  const endpoint = opsEndpoint('plan.request');
  requireSiteId(endpoint, siteId);
  const serviceCode = parseServiceCode(service, endpoint);
  const a = parsePlanAction(action, endpoint);
  if (a === 'cancel') {
    invalid(endpoint, 'action', 'Cancel is not a new request: use the cancel action on the pending request.');
  }
  const text = message?.trim() ?? '';
  if (text.length > PLAN_MESSAGE_MAX) {
    invalid(
      endpoint,
      'message',
      `The message is ${text.length} characters long; this bot takes at most ${PLAN_MESSAGE_MAX} (its own limit: the service documents none).`,
    );
  }
  let unread: UnreadLatest | undefined;
  try {
    const latest = await client.getLatestStatusRequest(siteId, serviceCode);
    if (latest && (latest.status ?? 'ST001') === 'ST001') {
      throw new RefusedError(endpoint, 'alreadyPending', 'request', pendingReason(toRequestView(latest)));
    }
  } catch (e) {
    if (e instanceof RefusedError) throw e;
    unread = unreadLatestOf(e);
  }
  const spec = PLAN_ACTIONS[a];
  const created = await client.registerStatusRequest(siteId, {
    serviceCode,
    requestType: spec.requestType as RegistrableRequestType,
    ...(text ? { message: text } : {}),
  });
  const view = toRequestView(created);
  return unread ? { ...view, earlierUnread: unread } : view;
}

/**
 * Cancels the pending request. The latest request is re-read first and the cancel goes out only
 * when it is still pending AND (when the caller names one) still the same request id: a button
 * pressed on an old card must never cancel a newer request someone else registered since. With
 * no id given (the direct `/drm plan cancel` form) the pending latest request is cancelled.
 */
export async function cancelRequest(
  client: ServiceClient,
  siteId: string,
  service: ServiceCode | string,
  requestId?: string,
): Promise<PlanRequestView> {
  const endpoint = opsEndpoint('plan.cancel');
  requireSiteId(endpoint, siteId);
  const serviceCode = parseServiceCode(service, endpoint);
  const wanted = requestId?.trim();
  if (requestId !== undefined && !wanted) invalid(endpoint, 'request', 'The request id is empty.');
  let latestRaw: StatusRequest | null;
  try {
    latestRaw = await client.getLatestStatusRequest(siteId, serviceCode);
  } catch (e) {
    // The pre-read is a courtesy: with the request id known (a button on a card) the cancel goes
    // out and the service's own refusal (not pending, not found) is the guard.
    if (!wanted) {
      // An outage or an unreadable answer is the error replies' to word (what happened, what to
      // do); only a refusal of this one read is told here.
      if (!isPerItemRefusal(e)) throw e;
      const u = unreadLatestOf(e);
      throw new RefusedError(
        endpoint,
        'latestUnread',
        'request',
        `The latest ${serviceLabel(serviceCode)} request for site ${siteId} could not be read (${u.code}: ${u.message}): nothing was cancelled. Cancel it from the request's card, or try again later.`,
      );
    }
    const cancelled = await client.cancelStatusRequest(siteId, { serviceCode, requestId: wanted });
    return toRequestView(cancelled);
  }
  if (!latestRaw) {
    throw new RefusedError(
      endpoint,
      'noRequest',
      'request',
      `There is no ${serviceLabel(serviceCode)} request for site ${siteId}: nothing to cancel.`,
    );
  }
  const latest = toRequestView(latestRaw);
  if (wanted && latest.requestId !== wanted) {
    throw new RefusedError(endpoint, 'requestChanged', 'request', {
      before: `Request ${wanted} is no longer the latest one (now ${latest.requestId}, ${latest.statusLabel.toLowerCase()}): nothing was cancelled. Run `,
      step: { do: 'plan' },
      after: ' again to see the current request.',
    });
  }
  if (!latest.pending) {
    throw new RefusedError(
      endpoint,
      'notPending',
      'request',
      `Cancel is possible only while the request is pending; request ${latest.requestId} is ${latest.statusLabel.toLowerCase()}.`,
    );
  }
  const cancelled = await client.cancelStatusRequest(siteId, { serviceCode, requestId: latest.requestId });
  // The response keeps the original reg_type (spec); its reg_status says cancelled (ST002).
  return toRequestView(cancelled);
}
