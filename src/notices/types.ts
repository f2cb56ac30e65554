/**
 * Public contract of the three "tell people what happened" watchers (request outcomes, license
 * failure alerts, daily digests). Everything here is plain data: the Slack layer implements
 * `NotifyPorts` (DMs, card updates, channel posts, a metadata search for crash recovery) and
 * renders the notices in Block Kit; nothing in src/watch knows about Slack's SDK.
 *
 * Errors thrown by a port are classified like the job notifications' (classifyDeliveryError in
 * delivery.ts): a `DeliveryError('ratelimited', { retryAfterMs })` or @slack/web-api's own error
 * shapes. Rate limits and 5xx are retried (paced), permanent channel errors (channel_not_found,
 * is_archived, not_in_channel...) pause the alert subscription or digest schedule of that channel
 * (a `notify-paused` event tells its creator), anything else drops the notice and logs it.
 */
import type { RequestStatusCode, ServiceCode } from '../api/codes.js';
import type { NextStep } from '../next-step.js';
import type { ChannelSiteSubscription } from '../watch/types.js';

// ---------------------------------------------------------------------------------------------
// Request outcomes
// ---------------------------------------------------------------------------------------------

/** Where the bot showed a request when it was made (the card that is updated in place). */
export interface CardRef {
  channel: string;
  ts: string;
}

export type RequestKind = 'plan' | 'site';

/**
 * approved: ST003 (plan) or an approved additional site; cancelled: ST002 / a refused site
 * request; superseded: a newer request for the same site + product replaced it upstream, so its
 * final status cannot be read any more (the Service API only returns the latest request);
 * changed: an additional-site status the bot does not know (the spec lists none), shown as is.
 */
export type RequestOutcome = 'approved' | 'cancelled' | 'superseded' | 'changed';

export interface RequestOutcomeNotice {
  kind: RequestKind;
  /** req_group_id (plan) or the additional-site request seq (site), as text. */
  requestId: string;
  /** Site id; for a site request the id the provider assigned ('' while none). */
  siteId: string;
  /** Site name (site requests). */
  siteName?: string;
  /** Plan requests: PD001 / PD002 and its label. */
  serviceCode?: ServiceCode;
  serviceLabel?: string;
  /** Plan requests: SM001..SM003 and its label ("Trial extension"...). */
  requestType?: string;
  requestLabel: string;
  outcome: RequestOutcome;
  /** Upstream status as sent (ST003, "approved"...). */
  status: string;
  /** Plan requests: status label ("Approved", "Cancelled"). */
  statusLabel: string;
  /** Slack user who asked. */
  requestedBy: string;
  requestedAt: number;
  /** Epoch ms of the upstream change when the service tells it, else when the bot saw it. */
  decidedAt: number;
  /** Set when someone cancelled it through the bot (a Slack user id). */
  cancelledBy?: string;
  /** superseded: the request that replaced it. */
  supersededBy?: string;
}

// ---------------------------------------------------------------------------------------------
// License-failure alerts
// ---------------------------------------------------------------------------------------------

export interface AlertThresholds {
  /** Fail ratio that triggers, in percent (1..100). */
  ratioPct: number;
  /** Fewest license requests in the window before the ratio counts. */
  minRequests: number;
  /** Window length in minutes. */
  windowMinutes: number;
}

export interface AlertSubscription extends AlertThresholds, ChannelSiteSubscription {
  /** Stable: one subscription per channel + site. */
  id: string;
  updatedBy?: string;
  paused?: { reason: string; code: string; at: string };
}

export interface Ranked {
  key: string;
  count: number;
}

export interface WindowStats {
  siteId: string;
  /** Window bounds, epoch ms. */
  fromMs: number;
  toMs: number;
  total: number;
  failed: number;
  /** failed / total (0 when total is 0). */
  ratio: number;
  /** Top error codes of the failed requests, most frequent first (at most 5). */
  topErrors: Ranked[];
  /** Content ids most affected by failures (at most 5). */
  topContent: Ranked[];
  /** Devices most affected: `device_model (device_id)` (at most 5). */
  topDevices: Ranked[];
  /** True when the page cap stopped the read before the window's start (counts are a floor). */
  truncated: boolean;
}

export type LicenseAlert =
  | {
      kind: 'spike';
      subscription: AlertSubscription;
      /** When the spike started (first poll over the threshold). */
      startedAt: number;
      stats: WindowStats;
      /** Highest ratio seen during the spike. */
      peakRatio: number;
      /**
       * 'ongoing' on the first post and updates; 'recovered' once over; 'stopped' when the
       * subscription was removed during the spike (its final form: no longer updated).
       */
      state: 'ongoing' | 'recovered' | 'stopped';
      recoveredAt?: number;
      /** state 'stopped': who stopped the alerts (a Slack user id) and when. */
      stoppedBy?: string;
      stoppedAt?: number;
      /** Muted (the alert's Mute button) until then by that user: not updated until then. */
      mutedUntil?: number;
      mutedBy?: string;
    }
  | {
      /** The thread reply when the ratio fell back below the threshold. */
      kind: 'recovery';
      subscription: AlertSubscription;
      startedAt: number;
      recoveredAt: number;
      stats: WindowStats;
      peakRatio: number;
    };

// ---------------------------------------------------------------------------------------------
// Daily digest
// ---------------------------------------------------------------------------------------------

export interface DigestSchedule {
  /** One per channel. */
  id: string;
  workspace: string;
  channelId: string;
  /** "HH:MM", 24 h. */
  time: string;
  /** IANA zone, e.g. "Europe/Berlin". */
  zone: string;
  createdBy: string;
  createdAt: string;
  updatedAt?: string;
  updatedBy?: string;
  /** Local day (yyyy-MM-dd in `zone`) of the last occurrence handed to the outbox. */
  lastDay?: string;
  paused?: { reason: string; code: string; at: string };
}

/**
 * A section that could not be read says why instead of failing the whole digest: `error` is the
 * reason, `next` what to do about it (worded by the Slack layer). A digest stored before `next`
 * holds the whole sentence, the next step included, in `error`.
 */
export type Section<T> = { ok: true; value: T } | { ok: false; error: string; next?: NextStep };

export interface DigestFailedJob {
  siteId: string;
  jobId: number;
  contentId: string;
  /** Recipients (tasks) that failed; null when the tasks could not be read. */
  failedRecipients: number | null;
}

export interface DigestJobs {
  /** Job count by status code (DM000, DM001, DM500, DM600), all sites together. */
  byStatus: Record<string, number>;
  /** Per site, by status. */
  perSite: Array<{ siteId: string; byStatus: Record<string, number> }>;
  /** Failed jobs, newest first (at most `failedListMax`). */
  failed: DigestFailedJob[];
  /** Failed jobs not listed. */
  failedMore: number;
  /** A site's job list was cut at the page cap. */
  truncated: boolean;
}

export interface DigestRegistrations {
  /** Recipients registered in the window, per site. */
  perSite: Array<{ siteId: string; count: number }>;
  total: number;
  truncated: boolean;
}

export interface DigestLicenses {
  perSite: Array<{ siteId: string; success: number; fail: number; truncated: boolean }>;
}

export interface DigestPendingRequest {
  siteId: string;
  serviceCode: ServiceCode;
  serviceLabel: string;
  requestId: string;
  requestLabel: string;
  status: RequestStatusCode;
  regTimeMs: number | null;
}

/** A product whose latest plan request the service refused to read (the section still shows the rest). */
export interface DigestUnreadRequest {
  siteId: string;
  serviceCode: ServiceCode;
  serviceLabel: string;
  /** The service's code and text, as it gave them. */
  code: string;
  message: string;
}

export interface Digest {
  channelId: string;
  /** The workspace (its failed jobs' Details buttons name it); absent in digests stored before it. */
  workspace?: string;
  /**
   * The channel's license-alert ratio per site, in percent (the channel's alert subscription): a site's license
   * line is red only past it (the digest's default below, when the channel has no alert).
   */
  alertRatioPct?: Record<string, number>;
  /** The window: the 24 h before `toMs`. */
  fromMs: number;
  toMs: number;
  /** Zone to show times in (the schedule's; for a digest asked for now the invoker's). */
  zone: string;
  /** Scheduled occurrence (epoch ms) and its local day; absent for a digest asked for now. */
  scheduledFor?: number;
  day?: string;
  /** Set when posted late: what happened (bot not running at the scheduled time...). */
  lateNote?: string;
  /** Earlier days whose digest was not posted (the bot was down); named, never skipped silently. */
  missedDays?: string[];
  sites: string[];
  jobs: Section<DigestJobs>;
  registrations: Section<DigestRegistrations>;
  licenses: Section<DigestLicenses>;
  pendingRequests: Section<DigestPendingRequest[]>;
  /** Products whose latest request could not be read (absent when none, and in older digests). */
  pendingUnread?: DigestUnreadRequest[];
}

// ---------------------------------------------------------------------------------------------
// Ports (implemented by the Slack layer, one per workspace)
// ---------------------------------------------------------------------------------------------

export interface PostedRef {
  /** Channel (for a DM: the IM channel id). */
  channel: string;
  ts: string;
}

/** Every post carries its durable delivery key (as Slack message metadata) for crash recovery. */
export interface NotifyPostOptions {
  key: string;
}

export interface NotifyPorts {
  /** DM the requester about an outcome. */
  deliverDm(userId: string, notice: RequestOutcomeNotice, opts: NotifyPostOptions): Promise<PostedRef>;
  /** Rewrite the card the request was made on (chat.update; idempotent). */
  updateCard(card: CardRef, notice: RequestOutcomeNotice): Promise<void>;
  /** Post an alert (threadTs: a reply in the alert's thread, used for the recovery). */
  postAlert(
    channel: string,
    alert: LicenseAlert,
    opts: NotifyPostOptions & { threadTs?: string },
  ): Promise<PostedRef>;
  /** Rewrite the alert message in place (latest numbers; recovered state). */
  updateAlert(channel: string, ts: string, alert: LicenseAlert): Promise<void>;
  postDigest(channel: string, digest: Digest, opts: NotifyPostOptions): Promise<PostedRef>;
  /**
   * Recovery after a crash between posting and recording: the message carrying `key` posted at or
   * after `sinceMs` (in `channel`, or in the DM with `userId`; `threadTs` narrows to a thread).
   */
  findPosted(
    where: { channel?: string; userId?: string; threadTs?: string },
    key: string,
    sinceMs: number,
  ): Promise<PostedRef | undefined>;
}

// ---------------------------------------------------------------------------------------------
// Events (for the Slack side: tell a creator why their alerts/digest stopped)
// ---------------------------------------------------------------------------------------------

export type NotifyEvent =
  | {
      type: 'notify-delivered';
      workspace: string;
      kind: NoticeKind;
      key: string;
      channel: string;
      ts?: string;
    }
  | {
      type: 'notify-dropped';
      workspace: string;
      kind: NoticeKind;
      key: string;
      reason: string;
    }
  | {
      /** A channel's alert subscription or digest schedule was paused (Slack refused to post). */
      type: 'notify-paused';
      workspace: string;
      feature: 'alerts' | 'digest';
      channelId: string;
      createdBy: string;
      code: string;
      message: string;
    }
  | {
      type: 'notify-poll-failed';
      workspace: string;
      feature: 'requests' | 'alerts';
      siteId?: string;
      errorKind: string;
      failures: number;
    };

export type NoticeKind = 'request-outcome' | 'alert-start' | 'alert-update' | 'alert-recovery' | 'digest';
