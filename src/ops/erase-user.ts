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
  const subs = new Subscriptions(deps.store, deps.now);
  const alerts = new AlertSubscriptions(deps.store);
  const digests = new DigestSchedules(deps.store);
  const tracker = new RequestTracker(deps.store);
  const outbox = new NoticeOutbox(deps.store);
  return {
    watches: await removeEach(
      await subs.list(ws),
      (s) => s.createdBy === userId && subs.remove(ws, { id: s.id }),
    ),
    alerts: await removeEach(await alerts.list(ws), (a) => a.createdBy === userId && alerts.remove(ws, a.id)),
    digests: await removeEach(
      await digests.list(ws),
      (d) => d.createdBy === userId && digests.remove(ws, d.channelId),
    ),
    requests: await removeEach(
      await tracker.list(ws),
      (r) => r.requestedBy === userId && tracker.remove(ws, r.id),
    ),
    pendingDms: await removeEach(
      await outbox.pending(ws),
      (e) => e.lane === `dm:${userId}` && outbox.discard(ws, e.key),
    ),
  };
}

/**
 * Each item's `removeIfTheirs`, one after the other: false leaves the item (not the user's);
 * otherwise the removal's answer counts a number as that many, false as none, nothing as one.
 */
async function removeEach<T>(
  items: readonly T[],
  removeIfTheirs: (item: T) => false | Promise<unknown>,
): Promise<number> {
  let n = 0;
  for (const item of items) {
    const removal = removeIfTheirs(item);
    if (removal === false) continue;
    const r = await removal;
    n += typeof r === 'number' ? r : r === false ? 0 : 1;
  }
  return n;
}
