/**
 * What a loaded configuration is: the `Config` every part of the bot reads (never process.env),
 * the enumerations some settings take, and `ConfigError`, which lists every problem of the
 * environment at once, each naming its variable and what to set.
 */
import type { WorkspaceCredentials } from '../api/types.js';
import type { WorkspaceLimits } from '../watch/limits.js';

export type Env = Record<string, string | undefined>;

export interface ConfigIssue {
  /** The environment variable (or variables, "A / B") concerned. */
  variable: string;
  /** What is wrong and what to set, one sentence. */
  message: string;
}

export class ConfigError extends Error {
  readonly issues: ConfigIssue[];
  constructor(issues: ConfigIssue[]) {
    super(
      `Invalid configuration:\n${issues.map((i) => `  - ${i.variable}: ${i.message}`).join('\n')}\n` +
        'Fix the environment (or the .env file: see .env.example) and start again. Every setting is described in docs/configuration.md.',
    );
    this.name = 'ConfigError';
    this.issues = issues;
  }
}

export const GUEST_ACCESS_VALUES = ['none', 'member'] as const;
export const SLACK_SCOPE_SETS = ['full', 'minimal', 'minimal-dm'] as const;
export type SlackScopeSet = (typeof SLACK_SCOPE_SETS)[number];
export type GuestAccess = (typeof GUEST_ACCESS_VALUES)[number];
export const WORKFLOW_UNATTENDED_VALUES = ['read-only', 'all'] as const;
export type WorkflowUnattended = (typeof WORKFLOW_UNATTENDED_VALUES)[number];

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface Config {
  /** `socket` when SLACK_APP_TOKEN is set (no public URL needed), else `http`. */
  mode: 'socket' | 'http';
  /** `oauth`: installable in many workspaces; `single`: one workspace with SLACK_BOT_TOKEN. */
  distribution: 'single' | 'oauth';
  slack: {
    botToken?: string;
    signingSecret?: string;
    appToken?: string;
    clientId?: string;
    clientSecret?: string;
    stateSecret?: string;
    /** Web API base ending in "/", e.g. https://slack.com/api/ (a local fake in tests/demo). */
    apiUrl?: string;
    /** SLACK_BOT_SCOPES (optional here so hand-built configurations get `full`). */
    scopeSet?: SlackScopeSet;
    /** Known bot ids (tests/demo): with both set, Bolt skips its auth.test at start. */
    botId?: string;
    botUserId?: string;
  };
  port: number;
  host: string;
  storeUrl: string;
  storeRequestTimeoutMs: number;
  /** SQLITE_JOURNAL: how the SQLite store commits. */
  sqliteJournal: 'wal' | 'delete';
  shutdownDrainSeconds: number;
  /** REGISTRATION_INFLIGHT_GRACE_SECONDS in ms (see src/ops/watermarking/registration/run.ts). */
  registrationInFlightGraceMs: number;
  metricsToken?: string;
  /** Current encryption key as given (32 bytes, base64 or hex); decode with decodeKey(). */
  encryptionKey: string;
  /** Older keys still accepted for reading (rotation). */
  previousEncryptionKeys: string[];
  dwmBaseUrl?: string;
  serviceApiBaseUrl?: string;
  /** Single-workspace credentials from the environment, when given. */
  envCredentials?: WorkspaceCredentials;
  serviceJwt: { sub: string; aud: string; iss: string };
  /** Admins besides Slack workspace admins/owners. */
  adminUserIds: string[];
  /**
   * GUEST_ACCESS: what Slack guest accounts (single- and multi-channel guests) and people of
   * another organisation (Slack Connect) may do. `none` (default): refused every command, button,
   * form and workflow step; `member`: act as members (never admins unless listed by id).
   * Optional here so hand-built configurations (tests) get the safe default.
   */
  guestAccess?: GuestAccess;
  /**
   * PERSONAL_DATA_USERGROUP: user groups whose members may read end viewers' personal data (DRM
   * data commands, their buttons and exports) besides admins. Optional: hand-built configurations
   * (tests) get admins only.
   */
  personalDataUsergroupIds?: string[];
  /** EXPORT_RETENTION_DAYS: the bot's uploaded CSV files are deleted after this many days (0: kept). */
  exportRetentionDays?: number;
  /**
   * WORKFLOW_UNATTENDED: which Workflow Builder steps run when the bot cannot tell who runs them
   * (an unattended workflow: "Requested by" empty, no person in the event). `read-only` (default):
   * only the steps that read (job status, wait for a job); `all`: every step. Optional here so
   * hand-built configurations (tests) get the safe default.
   */
  workflowUnattended?: WorkflowUnattended;
  pollIntervalSeconds: number;
  /** Adaptive polling (src/watch/adaptive.ts). */
  pollActiveIntervalSeconds: number;
  watchCallBudgetPerMinute: number;
  /** WATCH_OUTAGE_NOTICE_MINUTES (src/watch/outage.ts). */
  watchOutageNoticeMinutes: number;
  /** WATCH_CLOCK_ALLOWANCE_SECONDS (src/watch/poller.ts `clockAllowanceMs`). */
  watchClockAllowanceSeconds: number;
  watchConcurrency: number;
  /** Slash command handlers run after the ack through a bounded queue (src/slack/kit/commands/handler-queue.ts). */
  handlerConcurrency: number;
  handlerQueueMax: number;
  /**
   * Per-workspace caps (WAITS_/WATCHES_/ALERTS_/DIGESTS_MAX_PER_WORKSPACE, src/watch/limits.ts).
   * Optional here so hand-built configurations (tests) get the defaults.
   */
  workspaceLimits?: WorkspaceLimits;
  logLevel: LogLevel;
  serviceTimeoutMs: number;
  serviceRetries: number;
  auditChannelId?: string;
  /** AUDIT_CAP: audit entries kept per workspace. */
  auditCap: number;
  /** UNINSTALL_GRACE_DAYS: an uninstalled workspace's data is kept this long (a reinstall restores it). */
  uninstallGraceDays: number;
  /** AUDIT_RETENTION_DAYS: audit entries kept this long after the workspace's data was deleted. */
  auditRetentionDays: number;
  /** Choices the spec leaves open (see the variable table). */
  serviceApi: {
    bodyEncoding: 'json' | 'form' | 'query';
    apiCodeIn: 'query' | 'body' | 'both';
    jwtAccountSeqType: 'string' | 'number';
    jwtSecretEncoding: 'utf8' | 'base64';
    /** SERVICE_LICENSE_TIME_ZONE, normalised ("+09:00"; "+00:00" for UTC). */
    licenseTimeZone: string;
    /** SERVICE_TIME_ZONE, normalised: the other Service API times the spec leaves unzoned. */
    timeZone: string;
  };
  wmTokenMaxAgeSeconds: number;
  /** SERVICE_ERROR_CODES as given (validated JSON), when set. */
  serviceErrorCodes?: string;
  /** JOB_FAILURE_CODES as given (validated JSON), when set. */
  jobFailureCodes?: string;
  /** SERVICE_SITE_REQUEST_STATUSES as given (validated JSON), when set. */
  siteRequestStatuses?: string;
  /**
   * SITE_REQUEST_UNKNOWN_STATUS_MINUTES in ms. Optional here so hand-built configurations (tests)
   * get the default (src/notices/requests.ts SITE_UNKNOWN_STATUS_SETTLED_MS).
   */
  siteRequestUnknownStatusMs?: number;
  /** LICENSE_ERROR_CODES as given (validated JSON), when set. */
  licenseErrorCodes?: string;
  /** Which upstream hosts the bot talks to and how much it reads (src/api/origins.ts, http.ts). */
  upstream: {
    /** UPSTREAM_ALLOWED_ORIGINS, normalised; the configured base URLs are allowed besides. */
    allowedOrigins: string[];
    maxResponseBytes: number;
    callDeadlineMs: number;
  };
  /** SERVICE_JWT_TTL_SECONDS: lifetime of a Service API JWT; 0 = no exp claim. */
  serviceJwtTtlSeconds: number;
}
