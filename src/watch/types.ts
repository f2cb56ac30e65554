/**
 * Public contract of the job-watching core. The Slack side implements `ChannelPoster` (with
 * chat.postMessage / chat.update / conversations.history) and `WatchRenderer` (Block Kit cards),
 * and listens to `WatchEvents`. Nothing here knows about Slack's SDK.
 */
import type { JobStatusCode, TaskStatusCode } from '../api/codes.js';
import type { NextStep } from '../next-step.js';

// ---------------------------------------------------------------------------------------------
// Subscriptions
// ---------------------------------------------------------------------------------------------

export type WatchMode = 'all' | 'failures';

export interface WatchFilters {
  /** Job statuses that notify; empty = every status. */
  statuses: JobStatusCode[];
  /** Content id pattern: `abc*` (prefix) or `abc` (exact); undefined = any content. */
  content?: string;
  mode: WatchMode;
}

/** Where a channel subscription of a site posts and who made it (job watches, license alerts). */
export interface ChannelSiteSubscription {
  workspace: string;
  channelId: string;
  siteId: string;
  createdBy: string;
  /** ISO time. */
  createdAt: string;
  updatedAt?: string;
}

export interface Subscription extends WatchFilters, ChannelSiteSubscription {
  /** Stable id derived from channel + site + statuses + content (idempotent create). */
  id: string;
  /** Set when delivery failed permanently (or a user paused it). */
  paused?: { reason: string; code: string; at: string; by?: string };
}

// ---------------------------------------------------------------------------------------------
// Plain data handed to the renderer
// ---------------------------------------------------------------------------------------------

export interface TaskFailure {
  dwmId: number;
  recipient: string;
  status: TaskStatusCode;
  cliErrorCode: string;
}

export interface TaskCounts {
  total: number;
  ready: number;
  progressing: number;
  completed: number;
  failed: number;
  /** Failed tasks (at most 20 kept). */
  failures: TaskFailure[];
  /** The list's total_count when larger than `total` (the tasks it listed): "N of M tasks shown". */
  reportedTotal?: number;
}

export interface JobSummary {
  workspace: string;
  siteId: string;
  jobId: number;
  contentId: string;
  status: JobStatusCode;
  /** Epoch ms or null. */
  regTimeMs: number | null;
  updateTimeMs: number | null;
  /** Task counts when the tasks were fetched this cycle. */
  tasks?: TaskCounts;
}

export type ThreadUpdate =
  | { kind: 'status'; summary: JobSummary; previous: JobStatusCode }
  | { kind: 'progress'; summary: JobSummary }
  | { kind: 'task-failed'; summary: JobSummary; failure: TaskFailure }
  | { kind: 'final'; summary: JobSummary; broadcast: boolean };

export interface DigestData {
  siteId: string;
  jobs: JobSummary[];
  completed: number;
  failed: number;
}

/** A message as Slack takes it: fallback text plus optional Block Kit blocks. */
export interface ChannelMessage {
  text: string;
  blocks?: unknown[];
}

/**
 * A site's notifications are delayed by an outage of its service, or resumed after one
 * (outage.ts): told once to each channel watching the site.
 */
export interface OutageNotice {
  kind: 'delayed' | 'resumed';
  siteId: string;
  /** When the polls started failing, epoch ms. */
  sinceMs: number;
  /** Why, in words. */
  reason: string;
  /** 'resumed': when a poll succeeded again. */
  endedMs?: number;
  /** 'resumed': what that poll caught up (job changes announced, of which finished jobs). */
  caughtUp?: { changes: number; finished: number };
}

export interface WatchRenderer {
  renderJobCard(summary: JobSummary, sub: Subscription): ChannelMessage;
  renderThreadUpdate(update: ThreadUpdate, sub: Subscription): ChannelMessage;
  renderDigest(digest: DigestData, sub: Subscription): ChannelMessage;
  /** The delayed / resumed notice of an outage (outage.ts); without it, none is posted. */
  renderOutageNotice?(notice: OutageNotice, sub: Subscription): ChannelMessage;
}

/**
 * Why a subscription (or an alert subscription, a digest) is paused after Slack refused its channel
 * for good (`code`), and the step that resumes it (without one, "set it up again"): what is stored
 * in the paused record and told to its creator. Worded by the Slack layer
 * (src/slack/kit/blocks/paused-reason.ts), which names the commands.
 */
export type PausedReason = (code: string, step?: NextStep) => string;

/** The words the watcher stores and tells itself, given by the Slack layer (`watchWords`). */
export interface WatchWords {
  pausedReason: PausedReason;
  /**
   * Why a workspace's job watching is paused: the service refused the credentials (HTTP 401,
   * `auth`) or the account (HTTP 403, `permission`), and what an admin does about it. Stored in
   * the workspace's settings (`pollingPausedReason`) and sent to its admins.
   */
  pollingPaused(reason: 'auth' | 'permission'): string;
}

// ---------------------------------------------------------------------------------------------
// Delivery
// ---------------------------------------------------------------------------------------------

export const DELIVERY_EVENT_TYPE = 'drm_chatops_delivery' as const;

export interface DeliveryMetadata {
  event_type: typeof DELIVERY_EVENT_TYPE;
  event_payload: { key: string };
}

export interface PostOptions {
  threadTs?: string;
  /** reply_broadcast (only with threadTs). */
  broadcast?: boolean;
  /** Slack message metadata carrying the delivery key (see delivery.ts on exactly-once). */
  metadata: DeliveryMetadata;
}

/**
 * The Slack side's posting surface for one workspace. Errors: throw a `DeliveryError` (or the
 * @slack/web-api error as is: `classifyDeliveryError` recognises its shapes by duck typing).
 */
export interface ChannelPoster {
  post(channel: string, message: ChannelMessage, opts: PostOptions): Promise<{ ts: string }>;
  update(channel: string, ts: string, message: ChannelMessage): Promise<void>;
  /** A message in the channel (top level or thread) posted at or after sinceTs whose metadata carries
   * the delivery key; undefined when none. `threadTs` narrows the search to that thread. */
  findByMetadata(
    channel: string,
    deliveryKey: string,
    sinceTs: string,
    threadTs?: string,
  ): Promise<{ ts: string } | undefined>;
}

/**
 * Not a Slack error: the Slack side refuses to post in a channel shared with another organisation
 * (Slack Connect) that no admin allowed (src/slack/poster.ts); permanent like the ones below.
 */
export const SHARED_CHANNEL = 'channel_externally_shared';

/** Slack errors that retrying cannot fix: the subscription is paused with the reason. */
export const PERMANENT_DELIVERY_ERRORS = [
  SHARED_CHANNEL,
  'channel_not_found',
  'is_archived',
  'not_in_channel',
  'account_inactive',
  'token_revoked',
  'missing_scope',
  'invalid_auth',
  // The app may not post in the channel (read-only, posting restricted to some members, only
  // thread replies allowed): every notification would be refused, one by one, unseen.
  'restricted_action',
  'restricted_action_read_only_channel',
  'restricted_action_thread_only_channel',
  // The token or the workspace no longer lets the app act (as token_revoked / invalid_auth).
  'not_authed',
  'token_expired',
  'no_permission',
  'access_denied',
  'team_access_not_granted',
  'ekm_access_denied',
  'org_login_required',
  'enterprise_is_restricted',
] as const;

export class DeliveryError extends Error {
  /** Slack error code ("ratelimited", "channel_not_found", "http_503"...). */
  readonly code: string;
  readonly retryAfterMs: number | undefined;
  readonly httpStatus: number | undefined;
  constructor(code: string, opts: { retryAfterMs?: number; httpStatus?: number; message?: string } = {}) {
    super(opts.message ?? `Slack delivery failed: ${code}`);
    this.name = 'DeliveryError';
    this.code = code;
    this.retryAfterMs = opts.retryAfterMs;
    this.httpStatus = opts.httpStatus;
  }
}

// ---------------------------------------------------------------------------------------------
// Events for the Slack side and App Home
// ---------------------------------------------------------------------------------------------

export interface AdminAlertEvent {
  type: 'admin-alert';
  workspace: string;
  reason: 'auth' | 'permission';
  /** What to do, user-facing. */
  message: string;
}

export interface SubscriptionPausedEvent {
  type: 'subscription-paused';
  workspace: string;
  subscription: Subscription;
  code: string;
  /** User-facing: what happened and how to re-enable. */
  message: string;
}

export interface DeliveredEvent {
  type: 'delivered';
  workspace: string;
  channelId: string;
  key: string;
  jobIds: number[];
  ts: string;
}

export interface PollFailedEvent {
  type: 'poll-failed';
  workspace: string;
  siteId: string;
  errorKind: string;
  /** Consecutive failures; backoff grows with it. */
  failures: number;
}

export type WatchEvent = AdminAlertEvent | SubscriptionPausedEvent | DeliveredEvent | PollFailedEvent;

export type WatchEvents = (event: WatchEvent) => void;

// ---------------------------------------------------------------------------------------------
// Time
// ---------------------------------------------------------------------------------------------

export interface Clock {
  now(): number;
  sleep(ms: number): Promise<void>;
  setTimer(fn: () => void, ms: number): unknown;
  clearTimer(handle: unknown): void;
}
