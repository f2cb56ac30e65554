/**
 * Erase one Slack user's data in a workspace (an admin's `/drm erase-user @person`): what the bot
 * keeps because of that person and would keep acting on. Job watches, license alerts and daily
 * digests they created, requests of theirs whose outcome would be sent to them, and notices still
 * waiting to be sent to them by direct message. What stays: the audit log (who did what is the
 * record a security review needs; it holds their user id, never a secret) and what others created.
 * The Slack layer checks the caller is an admin and audits the erasure.
 */
import { ValidationError } from '../api/errors.js';
import { AlertSubscriptions } from '../notices/alert-subscriptions.js';
import { DigestSchedules } from '../notices/digest-schedules.js';
import { NoticeOutbox } from '../notices/outbox.js';
import { RequestTracker } from '../notices/requests.js';
import type { Store, WorkspaceKey } from '../store/types.js';
import { Subscriptions } from '../watch/subscriptions.js';

export interface EraseUserResult {
  watches: number;
  alerts: number;
  digests: number;
  requests: number;
  pendingDms: number;
}

const USER_ID = /^[UW][A-Z0-9]{2,}$/;

export async function eraseUserData(
  deps: { store: Store; now: () => number },
  ws: WorkspaceKey,
  userId: string,
): Promise<EraseUserResult> {
  if (!USER_ID.test(userId)) {
    throw new ValidationError('erase-user', [
      {
        field: 'user',
        message: `"${userId.slice(0, 40)}" is not a user. Mention them with Slack's autocomplete.`,
      },
    ]);
  }
  const out: EraseUserResult = { watches: 0, alerts: 0, digests: 0, requests: 0, pendingDms: 0 };

  const subs = new Subscriptions(deps.store, deps.now);
  for (const s of await subs.list(ws)) {
    if (s.createdBy === userId) out.watches += await subs.remove(ws, { id: s.id });
  }
  const alerts = new AlertSubscriptions(deps.store);
  for (const a of await alerts.list(ws)) {
    if (a.createdBy !== userId) continue;
    await alerts.remove(ws, a.id);
    out.alerts++;
  }
  const digests = new DigestSchedules(deps.store);
  for (const d of await digests.list(ws)) {
    if (d.createdBy === userId && (await digests.remove(ws, d.channelId))) out.digests++;
  }
  const tracker = new RequestTracker(deps.store);
  for (const r of await tracker.list(ws)) {
    if (r.requestedBy !== userId) continue;
    await tracker.remove(ws, r.id);
    out.requests++;
  }
  const outbox = new NoticeOutbox(deps.store);
  for (const e of await outbox.pending(ws)) {
    if (e.lane !== `dm:${userId}`) continue;
    await outbox.discard(ws, e.key);
    out.pendingDms++;
  }
  return out;
}
