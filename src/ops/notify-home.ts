/**
 * What App Home shows of the notify features for one user: their requests the bot is waiting on,
 * the alert subscriptions and digests they set up (with the channel, for a link).
 */

import { AlertSubscriptions } from '../notices/alert-subscriptions.js';
import { DigestSchedules, nextOccurrence } from '../notices/digest-schedules.js';
import { RequestTracker, type TrackedRequest } from '../notices/requests.js';
import type { AlertSubscription, DigestSchedule } from '../notices/types.js';
import type { WorkspaceKey } from '../store/types.js';
import type { OpsDeps } from './workspace.js';

export interface NotifyHomeSummary {
  pendingRequests: TrackedRequest[];
  alerts: AlertSubscription[];
  digests: Array<DigestSchedule & { nextAt: number }>;
}

export async function notifyHomeSummary(
  deps: Pick<OpsDeps, 'store' | 'now'>,
  ws: WorkspaceKey,
  userId: string,
): Promise<NotifyHomeSummary> {
  const pendingRequests = (await new RequestTracker(deps.store).list(ws)).filter(
    (t) => t.requestedBy === userId,
  );
  const alerts = (await new AlertSubscriptions(deps.store).list(ws)).filter((s) => s.createdBy === userId);
  const now = deps.now();
  const digests = (await new DigestSchedules(deps.store).list(ws))
    .filter((s) => s.createdBy === userId)
    .map((s) => ({ ...s, nextAt: nextOccurrence(s.time, s.zone, now).at }));
  return { pendingRequests, alerts, digests };
}
