/**
 * All configuration, parsed once from the environment with zod. Nothing else reads process.env.
 *
 * - Every variable is declared once in VARIABLES (name, required, default, description, schema);
 *   CONFIG_DOC (the README table) is generated from the same list.
 * - A missing or malformed variable throws ConfigError whose message names each variable and says
 *   what to set. All problems are reported at once, not one per restart.
 * - Modes are derived: `socket` when SLACK_APP_TOKEN is set, else `http`; `oauth` distribution
 *   when SLACK_CLIENT_ID/SECRET/STATE_SECRET are set, else `single` (SLACK_BOT_TOKEN).
 *   Contradictory settings (a bot token AND OAuth, half an OAuth or credential set) are errors.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { loadErrorCodes, loadFailureCodes, loadLicenseErrorCodes } from './api/error-codes.js';
import type { ApiOptions } from './api/index.js';
import { parseAllowedOrigin } from './api/origins.js';
import { loadSiteRequestStatuses } from './api/site-request-statuses.js';
import { normalizeTimeZone } from './api/time.js';
import type { ServiceApiCredentials, WatermarkingCredentials, WorkspaceCredentials } from './api/types.js';
import { checkSiteId } from './api/validate.js';
import { editDistance } from './edit-distance.js';
import type { Logger } from './log.js';
import { DEFAULT_WORKSPACE_LIMITS, type WorkspaceLimits } from './watch/limits.js';

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
  /** Slash command handlers run after the ack through a bounded queue (src/slack/kit/handler-queue.ts). */
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
   * get the default (src/watch/requests.ts SITE_UNKNOWN_STATUS_SETTLED_MS).
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

/**
 * The least a set-up needs, by mode: README's path, .env.example and docs/configuration.md name
 * these (tests check it). The two URLs come from the service provider; `/dwm setup` cannot save
 * keys for a host the operator did not configure (src/api/origins.ts).
 */
export const MINIMUM_VARIABLES = {
  socket: ['SLACK_BOT_TOKEN', 'SLACK_APP_TOKEN', 'ENCRYPTION_KEY', 'DWM_BASE_URL', 'SERVICE_API_BASE_URL'],
  http: ['SLACK_BOT_TOKEN', 'SLACK_SIGNING_SECRET', 'ENCRYPTION_KEY', 'DWM_BASE_URL', 'SERVICE_API_BASE_URL'],
} as const;

// ---------------------------------------------------------------------------------------------
// Variable table
// ---------------------------------------------------------------------------------------------

interface VariableSpec {
  name: string;
  /** "yes", "no", or a condition in words ("in HTTP mode"). */
  required: string;
  default?: string;
  description: string;
  /** Parses the raw (trimmed, non-empty) string. */
  schema: z.ZodType<unknown>;
  /** Must never be echoed back in an error message. */
  secret?: boolean;
}

const nonEmpty = z.string().min(1);
const slackToken = (prefix: string, what: string) =>
  z.string().regex(new RegExp(`^${prefix}-[A-Za-z0-9-]+$`), `must be ${what} starting with "${prefix}-"`);
const httpUrl = z
  .string()
  .refine((s) => /^https?:\/\/[^\s]+$/i.test(s) && URL.canParse(s), 'must be an http(s) URL');
const intIn = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d+$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().int().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`));
const commaList = (item: z.ZodType<string, string>) =>
  z
    .string()
    .transform((s) =>
      s
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean),
    )
    .pipe(z.array(item));
const adminEntry = z
  .string()
  .regex(
    /^([TE][A-Z0-9]{2,}:)?[UW][A-Z0-9]{2,}$/,
    'each must be a Slack user id scoped to its workspace, like T0123ABCD:U0123ABCD (or U0123ABCD with one workspace)',
  );

/** A UTC offset setting: UTC, Z or an offset such as +09:00, normalised ("+09:00"). */
function offsetSetting() {
  return z
    .string()
    .trim()
    .transform((x, ctx) => {
      const n = normalizeTimeZone(x);
      if (n === null) {
        ctx.addIssue({ code: 'custom', message: 'must be UTC or an offset such as +09:00 or -05:30' });
        return z.NEVER;
      }
      return n;
    });
}

/**
 * The ADMIN_USER_IDS entries that apply in one workspace: the ones scoped to it (TEAM:USER) and,
 * with one workspace, the bare ones. Never the ids scoped to another workspace.
 */
export function configAdminIds(config: Pick<Config, 'adminUserIds'>, workspace: string): string[] {
  const out: string[] = [];
  for (const entry of config.adminUserIds) {
    const i = entry.indexOf(':');
    if (i < 0) out.push(entry);
    else if (entry.slice(0, i) === workspace) out.push(entry.slice(i + 1));
  }
  return out;
}
/** The API module's own site id rule (exactly 4 letters or digits), with its message. */
const siteId = z.string().superRefine((v, c) => {
  const problem = checkSiteId(v);
  if (problem) c.addIssue({ code: 'custom', message: problem });
});

/** 32 bytes, as 64 hex characters or base64 (standard or url-safe). Returns undefined if not. */
export function decodeKey(text: string): Buffer | undefined {
  const t = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(t)) return Buffer.from(t, 'hex');
  if (/^[A-Za-z0-9+/_-]{43}={0,1}$/.test(t)) {
    const buf = Buffer.from(t.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    if (buf.length === 32) return buf;
  }
  return undefined;
}
const encKey = z
  .string()
  .refine((s) => decodeKey(s) !== undefined, 'must be 32 random bytes as base64 or 64 hex characters');

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export const VARIABLES: VariableSpec[] = [
  {
    name: 'SLACK_BOT_TOKEN',
    required: 'single workspace',
    description:
      'Bot token (xoxb-...) of the one workspace the bot serves. Leave unset for OAuth distribution.',
    schema: slackToken('xoxb', 'a bot token'),
    secret: true,
  },
  {
    name: 'SLACK_SIGNING_SECRET',
    required: 'HTTP mode',
    description: 'Signing secret from the Slack app\'s "Basic Information" page; verifies every request.',
    schema: nonEmpty,
    secret: true,
  },
  {
    name: 'SLACK_APP_TOKEN',
    required: 'no',
    description: 'App-level token (xapp-..., scope connections:write). When set the bot runs in Socket Mode.',
    schema: slackToken('xapp', 'an app-level token'),
    secret: true,
  },
  {
    name: 'SLACK_CLIENT_ID',
    required: 'OAuth distribution',
    description:
      'OAuth client id. Set it with SLACK_CLIENT_SECRET and SLACK_STATE_SECRET (all three or none).',
    schema: z.string().regex(/^[0-9.]+$/, 'must be the numeric client id from "Basic Information"'),
  },
  {
    name: 'SLACK_CLIENT_SECRET',
    required: 'OAuth distribution',
    description: 'OAuth client secret.',
    schema: nonEmpty,
    secret: true,
  },
  {
    name: 'SLACK_STATE_SECRET',
    required: 'OAuth distribution',
    description: 'Random secret (at least 16 characters) used to sign the OAuth state parameter.',
    schema: z.string().min(16, 'must be at least 16 characters (e.g. `openssl rand -hex 32`)'),
    secret: true,
  },
  {
    name: 'SLACK_BOT_SCOPES',
    required: 'no',
    default: 'full',
    description:
      'Which bot scopes the bot asks for and expects: `full` (every scope of manifest.yml), `minimal` (without the history scopes and im:read / mpim:read: a crash can then repeat a notification once, and watches in DMs are off) or `minimal-dm` (without the history scopes only). Match it with `npm run manifest -- --minimal-scopes [--dm-watches]`. OAuth installs request this set; the granted scopes are compared with it at start-up (one workspace) or at each install (OAuth: the welcome message to the installer says which features are off).',
    schema: z.enum(SLACK_SCOPE_SETS, { error: `must be one of ${SLACK_SCOPE_SETS.join(', ')}` }),
  },
  {
    name: 'SLACK_API_URL',
    required: 'no',
    default: 'https://slack.com/api/',
    description: 'Slack Web API base URL. Only changed for tests and the offline demo (local fake Slack).',
    schema: httpUrl.transform((s) => (s.endsWith('/') ? s : `${s}/`)),
  },
  {
    name: 'SLACK_BOT_ID',
    required: 'no',
    description: 'Bot id (B...). With SLACK_BOT_USER_ID, skips the auth.test check at start (tests, demo).',
    schema: z.string().regex(/^B[A-Z0-9]+$/, 'must be a bot id like B0123ABCD'),
  },
  {
    name: 'SLACK_BOT_USER_ID',
    required: 'no',
    description: "The bot's user id (U...). See SLACK_BOT_ID.",
    schema: z.string().regex(/^[UW][A-Z0-9]+$/, 'must be a user id like U0123ABCD'),
  },
  {
    name: 'PORT',
    required: 'no',
    default: '3000',
    description: 'HTTP port (Slack requests in HTTP mode, OAuth pages, /healthz, /readyz, /metrics).',
    schema: intIn(0, 65535),
  },
  {
    name: 'HOST',
    required: 'no',
    default: '0.0.0.0',
    description: 'Address to listen on.',
    schema: z.string().regex(/^[A-Za-z0-9.:[\]-]+$/, 'must be a host name or IP address'),
  },
  {
    name: 'STORE_URL',
    required: 'no',
    default: 'sqlite://./data/drm-chatops.sqlite',
    description:
      'Where state is kept: sqlite://PATH, redis://HOST:PORT (several replicas) or memory:// (tests).',
    schema: z
      .string()
      .regex(
        /^(sqlite:\/\/.+|rediss?:\/\/.+|memory:\/\/.*)$/,
        'must start with sqlite://, redis:// or memory://',
      ),
    secret: true, // a redis URL may carry a password
  },
  {
    name: 'METRICS_TOKEN',
    required: 'no',
    description:
      'When set, /readyz and /metrics answer only requests with `Authorization: Bearer <token>` (/healthz stays open). Set it whenever the port is reachable from outside the deployment.',
    schema: z.string().min(16, 'must be at least 16 characters (e.g. openssl rand -hex 24)'),
    secret: true,
  },
  {
    name: 'SHUTDOWN_DRAIN_SECONDS',
    required: 'no',
    default: '20',
    description:
      'On SIGTERM: how long requests in flight may take to finish before their users are told the bot is restarting; new requests are answered "restarting, try again in a minute" meanwhile.',
    schema: intIn(0, 120),
  },
  {
    name: 'STORE_REQUEST_TIMEOUT_MS',
    required: 'no',
    default: '1000',
    description:
      'How long one store operation made for a Slack request may wait (ms). During a store outage users are told "storage is unavailable" instead of waiting; background work (watcher, outbox) waits and resumes.',
    schema: intIn(100, 30_000),
  },
  {
    name: 'SQLITE_JOURNAL',
    required: 'no',
    default: 'wal',
    description:
      'SQLite store only: `wal` (write-ahead log, commits without an fsync each; a killed process loses nothing committed, a power cut may lose the last second) or `delete` (rollback journal, every commit fsynced: for network filesystems without WAL support, or when a power cut must lose nothing). See src/store/index.ts.',
    schema: z.enum(['wal', 'delete'], { error: 'must be wal or delete' }),
  },
  {
    name: 'ENCRYPTION_KEY',
    required: 'yes',
    description:
      'Key that encrypts bot tokens and service credentials at rest: 32 random bytes, base64 or hex (`openssl rand -base64 32`).',
    schema: encKey,
    secret: true,
  },
  {
    name: 'ENCRYPTION_KEYS_PREVIOUS',
    required: 'no',
    description: 'Comma-separated older keys, still accepted for reading after a key rotation.',
    schema: commaList(encKey),
    secret: true,
  },
  {
    name: 'DWM_BASE_URL',
    required: 'minimum (for watermarking)',
    description:
      'Watermarking API base URL, given by your service provider (a path prefix is allowed). `/dwm setup` sends the keys an admin types only here: an admin cannot type another host unless it is in UPSTREAM_ALLOWED_ORIGINS.',
    schema: httpUrl.transform((s) => s.replace(/\/+$/, '')),
  },
  {
    name: 'SERVICE_API_BASE_URL',
    required: 'minimum (for the Service API)',
    description:
      'Service API base URL, given by your service provider; /api/v2/... paths are appended. Like DWM_BASE_URL, the only host `/dwm setup` sends the Service API key to, unless UPSTREAM_ALLOWED_ORIGINS lists others.',
    schema: httpUrl.transform((s) => s.replace(/\/+$/, '')),
  },
  {
    name: 'DWM_SITE_IDS',
    required: 'single workspace with env credentials',
    description: 'Comma-separated site ids the workspace may use.',
    schema: commaList(siteId).pipe(z.array(z.string()).min(1, 'must list at least one site id')),
  },
  {
    name: 'DWM_DEFAULT_SITE',
    required: 'no',
    default: 'first of DWM_SITE_IDS',
    description: 'Site used when a command names none; must be one of DWM_SITE_IDS.',
    schema: siteId,
  },
  {
    name: 'DWM_ACCOUNT_ID',
    required: 'with DWM_ACCESS_KEY',
    description: 'Watermarking API account id (single workspace).',
    schema: nonEmpty,
  },
  {
    name: 'DWM_ACCESS_KEY',
    required: 'with DWM_ACCOUNT_ID',
    description: 'Watermarking API access key (single workspace).',
    schema: nonEmpty,
    secret: true,
  },
  {
    name: 'SERVICE_API_ACCOUNT_ID',
    required: 'with the other SERVICE_API_* credentials',
    description: 'Service API account id (single workspace).',
    schema: nonEmpty,
  },
  {
    name: 'SERVICE_API_ACCOUNT_SEQ',
    required: 'with the other SERVICE_API_* credentials',
    description: 'Service API account sequence number.',
    schema: z.string().regex(/^\d+$/, 'must be the numeric account sequence'),
  },
  {
    name: 'SERVICE_API_SECRET_KEY',
    required: 'with the other SERVICE_API_* credentials',
    description: 'Service API HS256 secret key.',
    schema: nonEmpty,
    secret: true,
  },
  {
    name: 'SERVICE_JWT_SUB',
    required: 'no',
    default: 'ServiceAPI',
    description: 'JWT `sub` claim for the Service API.',
    schema: nonEmpty,
  },
  {
    name: 'SERVICE_JWT_AUD',
    required: 'no',
    default: 'AUDIENCE',
    description: 'JWT `aud` claim.',
    schema: nonEmpty,
  },
  {
    name: 'SERVICE_JWT_ISS',
    required: 'no',
    default: 'Service',
    description: 'JWT `iss` claim.',
    schema: nonEmpty,
  },
  {
    name: 'ADMIN_USER_IDS',
    required: 'no',
    description:
      'Comma-separated Slack user ids that are bot admins besides workspace admins and owners. Scope each id to its workspace as TEAM:USER (T0123:U0456; an org install: E0123:U0456); a bare user id (U0456) is allowed with one workspace (SLACK_BOT_TOKEN) only.',
    schema: commaList(adminEntry),
  },
  {
    name: 'GUEST_ACCESS',
    required: 'no',
    default: 'none',
    description:
      'What Slack guest accounts (single- and multi-channel guests, often partners) and people of another organisation reaching the bot through a shared Slack Connect channel may do with the bot. `none`: they are refused every command, button, form, workflow step and the Home tab, and told who to ask. `member`: they act as members (never as admins, even admins of their own organisation, unless their id is in ADMIN_USER_IDS or added with `/dwm setup admins add`). With `none`, a user Slack does not know in this workspace (users.info: user_not_found) is refused too; when Slack cannot answer at all, members keep working (never as admins). See docs/security.md.',
    schema: z.enum(GUEST_ACCESS_VALUES, { error: `must be one of ${GUEST_ACCESS_VALUES.join(', ')}` }),
  },
  {
    name: 'PERSONAL_DATA_USERGROUP',
    required: 'no',
    description:
      'Comma-separated Slack user group ids (S0123ABCD) whose members may read end viewers\' personal data besides the bot admins: `/drm licenses`, `users`, `devices`, `cids`, `packaging`, their paging buttons and CSV exports. Empty (default): admins only. See docs/security.md ("Personal data").',
    schema: commaList(
      z.string().regex(/^S[A-Z0-9]{2,}$/, 'each must be a Slack user group id, like S0123ABCD'),
    ),
  },
  {
    name: 'EXPORT_RETENTION_DAYS',
    required: 'no',
    default: '30',
    description:
      'Days the CSV files the bot uploads (DRM data and job exports, in the requester\'s direct messages) are kept before the bot deletes them from Slack (files.delete). 0 keeps them. See docs/security.md ("Personal data").',
    schema: intIn(0, 3650),
  },
  {
    name: 'WORKFLOW_UNATTENDED',
    required: 'no',
    default: 'read-only',
    description:
      'Which Workflow Builder steps run when the bot cannot tell who runs them (Requested by empty and no person in the event: a scheduled or webhook workflow). `read-only`: only the steps that read (job status, wait for a job); the others fail saying so. `all`: every step (register recipients, trial extension too), audited under the bot. See docs/workflow-builder.md.',
    schema: z.enum(WORKFLOW_UNATTENDED_VALUES, {
      error: `must be one of ${WORKFLOW_UNATTENDED_VALUES.join(', ')}`,
    }),
  },
  {
    name: 'POLL_INTERVAL_SECONDS',
    required: 'no',
    default: '60',
    description:
      'How often watched jobs and requests are polled when a site is idle (no job in flight, nothing changed lately): the longest adaptive polling interval.',
    schema: intIn(5, 86_400),
  },
  {
    name: 'REGISTRATION_INFLIGHT_GRACE_SECONDS',
    required: 'no',
    default: '5',
    description:
      'Bulk registration after a crash or a timed-out POST: how long a batch the bot may have sent can still land at the service. Before sending such a batch again the bot waits this long, then sends only the names the service does not list (the API has no idempotency key). Raise it if the service queues requests longer.',
    schema: intIn(1, 300),
  },
  {
    name: 'POLL_ACTIVE_INTERVAL_SECONDS',
    required: 'no',
    default: '2',
    description:
      'Adaptive polling: how often a site with jobs in flight (or a job that just changed) is polled. Each quiet cycle doubles the delay up to POLL_INTERVAL_SECONDS. Set it equal to POLL_INTERVAL_SECONDS for a fixed interval.',
    schema: intIn(1, 86_400),
  },
  {
    name: 'WATCH_CALL_BUDGET_PER_MINUTE',
    required: 'no',
    default: '600',
    description:
      'Upstream calls per minute the watcher may spend on one workspace (per replica); fast polls wait when it is spent. Keep it above 2 x sites / idle interval in minutes.',
    schema: intIn(10, 1_000_000),
  },
  {
    // src/watch/outage.ts: an outage is not silence.
    name: 'WATCH_OUTAGE_NOTICE_MINUTES',
    required: 'no',
    default: '15',
    description:
      "When a site's watermarking service has been unreachable or failing this long (not a refused login, which pauses the workspace at once), each channel watching the site is told once that its job notifications are delayed and why, and once when they resume, with what was caught up; /dwm watches and the Home tab show it while it lasts. An outage is not silence: without it, a channel cannot tell a quiet day from a dead service.",
    schema: intIn(1, 24 * 60),
  },
  {
    // src/watch/poller.ts hearsFromMs: a watch hears every change after its creation.
    name: 'WATCH_CLOCK_ALLOWANCE_SECONDS',
    required: 'no',
    default: '5',
    description:
      "How much earlier than a watch's creation a job change stamped by the watermarking service may be and still be announced to it, on top of how far the service's clock is behind the bot's (read from its Date header at each poll). The service stamps times with its own clock and whole seconds: without this, a job that finished in the same second as /dwm watch, or just before it on a service whose clock is behind, would be told to no one. A larger value may announce a job that ended a moment before the watch, which is better than losing one. npm run doctor proposes a value when the service's clock is further behind than this.",
    schema: intIn(0, 3600),
  },
  {
    name: 'WATCH_CONCURRENCY',
    required: 'no',
    default: '4',
    description:
      'Sites one replica polls at the same time. One replica carries about concurrency x 60 / (cycle seconds) sites per idle minute (docs/scale-out.md).',
    schema: intIn(1, 256),
  },
  {
    name: 'COMMAND_CONCURRENCY',
    required: 'no',
    default: '32',
    description:
      'Slash command handlers one replica runs at the same time after their ack (the rest wait in a queue, in order). Commands that open a form skip the queue (a form must open within 3 s).',
    schema: intIn(1, 1024),
  },
  {
    name: 'COMMAND_QUEUE_MAX',
    required: 'no',
    default: '5000',
    description:
      'Slash commands that may wait for a free handler. Beyond it a command is answered "busy, try again in a minute" and not run (bounds memory under a burst).',
    schema: intIn(0, 100_000),
  },
  {
    name: 'WAITS_MAX_PER_WORKSPACE',
    required: 'no',
    default: String(DEFAULT_WORKSPACE_LIMITS.waits),
    description:
      'Workflow steps one workspace may have waiting at once (wait for a job, register recipients); a step beyond it fails with what to do. Each wait lasts up to its timeout (720 h at most).',
    schema: intIn(1, 1_000_000),
  },
  {
    name: 'WATCHES_MAX_PER_WORKSPACE',
    required: 'no',
    default: String(DEFAULT_WORKSPACE_LIMITS.watches),
    description:
      'Job watches (/dwm watch) one workspace may have, paused ones included; a new one beyond it is refused with what to do (changing or resuming one never is).',
    schema: intIn(1, 1_000_000),
  },
  {
    name: 'ALERTS_MAX_PER_WORKSPACE',
    required: 'no',
    default: String(DEFAULT_WORKSPACE_LIMITS.alerts),
    description:
      'License-failure alert subscriptions (/drm alerts watch) one workspace may have; a new one beyond it is refused with what to do.',
    schema: intIn(1, 1_000_000),
  },
  {
    name: 'DIGESTS_MAX_PER_WORKSPACE',
    required: 'no',
    default: String(DEFAULT_WORKSPACE_LIMITS.digests),
    description:
      'Daily digests (/dwm digest daily, one per channel) one workspace may have; a new one beyond it is refused with what to do.',
    schema: intIn(1, 1_000_000),
  },
  {
    name: 'LOG_LEVEL',
    required: 'no',
    default: 'info',
    description: 'One of fatal, error, warn, info, debug, trace, silent.',
    schema: z.enum(LOG_LEVELS, { error: `must be one of ${LOG_LEVELS.join(', ')}` }),
  },
  {
    name: 'SERVICE_TIMEOUT_MS',
    required: 'no',
    default: '10000',
    description:
      'Idle timeout of a call to the service APIs, ms: the longest wait for the response headers, and for each next piece of the body. It does not bound a whole call: a server that keeps sending a byte now and then is cut off by UPSTREAM_CALL_DEADLINE_MS.',
    schema: intIn(100, 300_000),
  },
  {
    name: 'SERVICE_RETRIES',
    required: 'no',
    default: '2',
    description: 'Retries of an idempotent service call after a network error, 429 or 5xx.',
    schema: intIn(0, 10),
  },
  // The spec does not show these; the defaults follow it as written, and a deployment whose
  // service differs can say so here (see src/api/service.ts, jwt.ts, wm-token.ts, error-codes.ts).
  {
    name: 'SERVICE_BODY_ENCODING',
    required: 'no',
    default: 'json',
    description:
      'Where the parameters of Service API POST/PUT calls go (the spec: "Placement of api_code and of other non-header parameters in POST and PUT calls (query string, JSON body or multipart form): not shown"): json (a JSON body), form (an urlencoded body) or query (all in the query string). The certificate upload is always a multipart form.',
    schema: z.enum(['json', 'form', 'query'], { error: 'must be json, form or query' }),
  },
  {
    name: 'SERVICE_API_CODE_IN',
    required: 'no',
    default: 'query',
    description:
      'Where api_code goes in Service API POST/PUT calls, the certificate upload included (the spec: "Placement of api_code ... in POST and PUT calls ...: not shown"): query (the query string), body (the JSON body or form) or both. body needs SERVICE_BODY_ENCODING json or form.',
    schema: z.enum(['query', 'body', 'both'], { error: 'must be query, body or both' }),
  },
  {
    // The spec gives license reg_time no zone (only reg_dt/update_dt say UTC); src/api/service.ts.
    name: 'SERVICE_LICENSE_TIME_ZONE',
    required: 'no',
    default: 'UTC',
    description:
      'UTC offset the Service API writes license times (reg_time of the license list) in; the spec does not say. UTC, or an offset such as +09:00. License alerts count the records of their window by this time: set it if alerts count too few or too many licenses. A time sent with its own offset keeps it.',
    schema: offsetSetting(),
  },
  {
    // The spec zones only reg_dt/update_dt ("UTC +00:00"); additional-site and packaging times
    // have none (src/api/service.ts). Their reading: the request lists, outcomes and packaging.
    name: 'SERVICE_TIME_ZONE',
    required: 'no',
    default: 'UTC',
    description:
      'UTC offset the Service API writes the times its spec leaves unzoned in: additional-site requests (reg_time, update_time) and packaging history (created_time, update_time; its from/to days are sent as the days of this offset that cover the days asked); the spec gives a zone only for reg_dt/update_dt of plan requests ("UTC +00:00"). UTC, or an offset such as +09:00. Set it when request or packaging times show hours off, or a from:/to: day misses rows at its edges. License times have their own setting (SERVICE_LICENSE_TIME_ZONE); a time sent with its own offset keeps it.',
    schema: offsetSetting(),
  },
  {
    name: 'SERVICE_JWT_ACCOUNT_SEQ_TYPE',
    required: 'no',
    default: 'string',
    description: 'JSON type of the account_seq claim in the Service API JWT: string or number.',
    schema: z.enum(['string', 'number'], { error: 'must be string or number' }),
  },
  {
    name: 'SERVICE_JWT_SECRET_ENCODING',
    required: 'no',
    default: 'utf8',
    description: 'How the Service API secret key is turned into HMAC key bytes: utf8 (as typed) or base64.',
    schema: z.enum(['utf8', 'base64'], { error: 'must be utf8 or base64' }),
  },
  {
    name: 'WM_TOKEN_MAX_AGE_SECONDS',
    required: 'no',
    default: '3000',
    description:
      'Watermarking API tokens are reused until a 401 or this age, whichever comes first (the spec does not show their lifetime).',
    schema: intIn(60, 86_400),
  },
  {
    name: 'SERVICE_ERROR_CODES',
    required: 'no',
    description:
      'JSON object mapping conditions to the service\'s error_code values, when they differ from the defaults (e.g. {"recipientInUse":"E2003"}): the specs list no error codes ("not shown"). A condition may take several codes (["E2003","409"]), and a key prefixed wm. or svc. (e.g. "svc.requestNotFound") gives codes that mean it on that API only, since the two APIs are separate services. See src/api/error-codes.ts.',
    schema: z.string().refine(
      (x) => {
        try {
          loadErrorCodes(x);
          return true;
        } catch {
          return false;
        }
      },
      {
        error:
          'must be a JSON object of condition name (optionally prefixed wm. or svc.) to a code string or a list of them, like {"recipientInUse":"E2003","svc.requestNotFound":["E4001","404"]}',
      },
    ),
  },
  {
    name: 'LICENSE_ERROR_CODES',
    required: 'no',
    description:
      'JSON object giving the error codes of failed DRM license records words, e.g. {"E-LIC-07":"the device is not allowed by the license policy"}. The spec says only that "0000" means the license was issued ("the list of other error codes and their causes: not shown"), so the bot ships none: codes not given here are shown as they are. Used in license lists and license alerts.',
    schema: z.string().refine(
      (x) => {
        try {
          loadLicenseErrorCodes(x);
          return true;
        } catch {
          return false;
        }
      },
      { error: 'must be a JSON object of license error code to its meaning (text)' },
    ),
  },
  {
    name: 'SERVICE_SITE_REQUEST_STATUSES',
    required: 'no',
    description:
      'JSON object of additional-site request status words to what they mean: pending, approved or cancelled, e.g. {"WAIT":"pending","OK":"approved","NG":"cancelled"} (the spec: "Allowed values of req_status: not shown"). Adds to or replaces the built-in words (src/api/site-request-statuses.ts). Only a word read as approved or cancelled ends the follow-up of a request; another word keeps it followed and is announced as it is once it has stood SITE_REQUEST_UNKNOWN_STATUS_MINUTES.',
    schema: z.string().refine(
      (x) => {
        try {
          loadSiteRequestStatuses(x);
          return true;
        } catch {
          return false;
        }
      },
      { error: 'must be a JSON object of status word to "pending", "approved" or "cancelled"' },
    ),
  },
  {
    name: 'SITE_REQUEST_UNKNOWN_STATUS_MINUTES',
    required: 'no',
    default: '60',
    description:
      'An additional-site request whose status is a word SERVICE_SITE_REQUEST_STATUSES does not know stays followed; the requester is told the word as it is once it has stood unchanged this long (the spec: "Transitions ... of additional-site request status ...: not shown"). Also applies to a plan request status the spec does not list. 0 tells it at the next poll.',
    schema: intIn(0, 43_200),
  },
  {
    name: 'JOB_FAILURE_CODES',
    required: 'no',
    description:
      'JSON object giving job/task failure codes (cli_error_code) words, e.g. {"E-417":{"meaning":"embedding failed","next":"start the job again"}}. The spec says only that "0" means success and "any other value means failure", so the bot ships no meaning of its own (a code 3 must not get a made-up cause): codes not given here show as "unknown (CODE)". Examples in docs/configuration.md.',
    schema: z.string().refine(
      (x) => {
        try {
          loadFailureCodes(x);
          return true;
        } catch {
          return false;
        }
      },
      { error: 'must be a JSON object of code to {"meaning": text, "next": text}' },
    ),
  },
  // Upstream connections (src/api/origins.ts and http.ts; docs/security.md "Which hosts the bot
  // talks to"). Grouped here.
  {
    name: 'UPSTREAM_ALLOWED_ORIGINS',
    required: 'no',
    description:
      'Comma-separated origins (scheme://host[:port], no path) the bot may call besides DWM_BASE_URL and SERVICE_API_BASE_URL, e.g. a base URL an admin enters in setup. https only, unless an origin is listed as http://host:port (port required). Cloud metadata addresses are always refused.',
    schema: z
      .string()
      .transform((s) =>
        s
          .split(',')
          .map((x) => x.trim())
          .filter(Boolean),
      )
      .superRefine((items, c) => {
        for (const item of items) {
          const r = parseAllowedOrigin(item);
          if ('problem' in r) c.addIssue({ code: 'custom', message: r.problem });
        }
      })
      .transform((items) => items.map((i) => (parseAllowedOrigin(i) as { origin: string }).origin)),
  },
  {
    name: 'UPSTREAM_MAX_RESPONSE_BYTES',
    required: 'no',
    default: '10485760',
    description:
      'Largest answer read from the service APIs, bytes (default 10 MB); a larger one is refused with a clear error and not read.',
    schema: intIn(1024, 1024 * 1024 * 1024),
  },
  {
    name: 'UPSTREAM_CALL_DEADLINE_MS',
    required: 'no',
    default: '30000',
    description:
      'Whole-call deadline of one service call, ms: every attempt and retry wait, the connection, the headers and the whole body, however the time is spent (a server sending a byte every few seconds, each gap within SERVICE_TIMEOUT_MS, is cut off here). The same for commands and the job watcher; a command is acked at once and its answer follows, so a slow service delays the answer, never the ack.',
    schema: intIn(500, 600_000),
  },
  {
    name: 'SERVICE_JWT_TTL_SECONDS',
    required: 'no',
    default: '300',
    description:
      "Lifetime (exp) of a Service API JWT, seconds. Lengthen it when the server's clock runs ahead of the bot's; 0 leaves exp out (the spec allows it).",
    schema: intIn(0, 86_400),
  },
  {
    name: 'AUDIT_CHANNEL_ID',
    required: 'no',
    description: 'Channel id (C... or G...) where the audit log is mirrored (single workspace default).',
    schema: z.string().regex(/^[CG][A-Z0-9]{2,}$/, 'must be a channel id like C0123ABCD'),
  },
  {
    name: 'AUDIT_CAP',
    required: 'no',
    default: '5000',
    description:
      'Audit entries kept in the store per workspace; the oldest is dropped when one more is added. Every entry is also a log line with the key "audit", for a log pipeline that keeps more.',
    schema: intIn(100, 1_000_000),
  },
  {
    name: 'UNINSTALL_GRACE_DAYS',
    required: 'no',
    default: '3',
    description:
      "Days an uninstalled workspace's data is kept (nothing runs for it meanwhile); reinstalling within them restores everything. Then it is deleted, retried until the store takes it. 0 deletes at the next sweep (about an hour).",
    schema: intIn(0, 365),
  },
  {
    name: 'AUDIT_RETENTION_DAYS',
    required: 'no',
    default: '90',
    description:
      "Days a workspace's audit entries are kept after its data was deleted (uninstall plus grace period), for a security review; then they are deleted too.",
    schema: intIn(0, 3650),
  },
];

/**
 * Names a `.env` file may hold that are not the bot's settings but are read by Node or the
 * platform itself (not warned about).
 */
const RUNTIME_NAMES = new Set(['NODE_ENV', 'NODE_OPTIONS', 'NODE_EXTRA_CA_CERTS', 'TZ']);

/**
 * The names among `names` (e.g. those of a `.env` file) that are no setting of the bot, each with
 * the setting it most likely meant (a typo such as METRIC_TOKEN would otherwise leave /metrics
 * open without a word). Names only: never values.
 */
export function unknownSettings(names: readonly string[]): Array<{ name: string; meant?: string }> {
  const known = VARIABLES.map((v) => v.name);
  const out: Array<{ name: string; meant?: string }> = [];
  for (const name of names) {
    if (RUNTIME_NAMES.has(name) || known.includes(name)) continue;
    const upper = name.toUpperCase();
    let meant: string | undefined;
    let best = 3;
    for (const k of known) {
      const d = upper === k ? 0 : editDistance(upper, k, { transpositions: false });
      if (d < best) {
        best = d;
        meant = k;
      }
    }
    out.push(meant ? { name, meant } : { name });
  }
  return out;
}

/** The README configuration table (name, required, default, description), from VARIABLES. */
export const CONFIG_DOC: ReadonlyArray<{
  name: string;
  required: string;
  default: string;
  description: string;
}> = VARIABLES.map((v) => ({
  name: v.name,
  required: v.required,
  default: v.default ?? '',
  description: v.description,
}));

/** Markdown rendering of CONFIG_DOC. */
export function configDocMarkdown(): string {
  const rows = CONFIG_DOC.map(
    (r) => `| \`${r.name}\` | ${r.required} | ${r.default ? `\`${r.default}\`` : ''} | ${r.description} |`,
  );
  return ['| Variable | Required | Default | Description |', '|---|---|---|---|', ...rows].join('\n');
}

// ---------------------------------------------------------------------------------------------
// Loading
// ---------------------------------------------------------------------------------------------

/** The secret settings (every one can be given as NAME_FILE: a file holding the value). */
export const SECRET_VARIABLES: readonly string[] = VARIABLES.filter((v) => v.secret).map((v) => v.name);

/**
 * NAME_FILE for a secret setting (Docker and Kubernetes secrets are files): the file's text,
 * without surrounding white space (the trailing newline editors add). Only when NAME itself is
 * unset or empty (NAME wins). Throws when the file cannot be read or is empty; the message names
 * the variable and the path, never the contents.
 */
export function secretFromFile(env: Env, name: string): string | undefined {
  const path = env[`${name}_FILE`]?.trim();
  if (!path || env[name]?.trim()) return undefined;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new Error(
      `cannot read ${path} (${(e as NodeJS.ErrnoException).code ?? 'error'}); it should hold ${name}.`,
    );
  }
  const value = text.trim();
  if (!value) throw new Error(`${path} is empty; it should hold ${name}.`);
  return value;
}

/** One setting as the process sees it: NAME, else NAME_FILE for a secret one (tools use this). */
export function settingFromEnv(env: Env, name: string): string | undefined {
  const s = env[name]?.trim();
  if (s) return s;
  return SECRET_VARIABLES.includes(name) ? secretFromFile(env, name) : undefined;
}

/** Parse and check the environment. Throws ConfigError listing every problem. */
export function loadConfig(env: Env = process.env): Config {
  const issues: ConfigIssue[] = [];
  const v: Record<string, unknown> = {};
  const fromFile = new Map<string, string | undefined>();
  for (const spec of VARIABLES) {
    if (!spec.secret) continue;
    try {
      fromFile.set(spec.name, secretFromFile(env, spec.name));
    } catch (e) {
      issues.push({ variable: `${spec.name}_FILE`, message: (e as Error).message });
    }
  }
  const raw = (name: string): string | undefined => {
    const s = env[name]?.trim();
    return s ? s : fromFile.get(name);
  };

  for (const spec of VARIABLES) {
    const text = raw(spec.name) ?? (spec.default && !spec.default.includes(' ') ? spec.default : undefined);
    if (text === undefined) continue;
    const r = spec.schema.safeParse(text);
    if (r.success) v[spec.name] = r.data;
    else {
      const why = r.error.issues[0]?.message ?? 'is not valid';
      const shown = spec.secret ? '' : ` (got "${text.length > 60 ? `${text.slice(0, 60)}...` : text}")`;
      issues.push({ variable: spec.name, message: `${why}${shown}. ${spec.description}` });
    }
  }
  const has = (name: string) => raw(name) !== undefined;
  const str = (name: string) => v[name] as string | undefined;

  // -- Mode and distribution --------------------------------------------------------------------
  const mode: Config['mode'] = has('SLACK_APP_TOKEN') ? 'socket' : 'http';
  const oauthVars = ['SLACK_CLIENT_ID', 'SLACK_CLIENT_SECRET', 'SLACK_STATE_SECRET'];
  const oauthSet = oauthVars.filter(has);
  const distribution: Config['distribution'] = oauthSet.length > 0 ? 'oauth' : 'single';
  if (oauthSet.length > 0 && oauthSet.length < 3) {
    const missing = oauthVars.filter((n) => !has(n));
    issues.push({
      variable: missing.join(' / '),
      message: `OAuth distribution needs SLACK_CLIENT_ID, SLACK_CLIENT_SECRET and SLACK_STATE_SECRET together; set ${missing.join(' and ')} too, or unset ${oauthSet.join(' and ')} to run in one workspace with SLACK_BOT_TOKEN.`,
    });
  }
  if (distribution === 'oauth' && has('SLACK_BOT_TOKEN')) {
    issues.push({
      variable: 'SLACK_BOT_TOKEN',
      message:
        'is set together with OAuth (SLACK_CLIENT_ID...): choose one. Unset SLACK_BOT_TOKEN to distribute the app with OAuth, or unset the SLACK_CLIENT_* variables to serve one workspace.',
    });
  }
  if (distribution === 'oauth' && has('ADMIN_USER_IDS')) {
    const bare = ((v.ADMIN_USER_IDS as string[] | undefined) ?? []).filter((x) => !x.includes(':'));
    if (bare.length > 0) {
      issues.push({
        variable: 'ADMIN_USER_IDS',
        message: `with OAuth (several workspaces) each admin id must name its workspace, like T0123ABCD:${bare[0]}, so that nobody is an admin in workspaces other than their own. Unscoped: ${bare.slice(0, 5).join(', ')}.`,
      });
    }
  }
  if (distribution === 'single' && !has('SLACK_BOT_TOKEN')) {
    issues.push({
      variable: 'SLACK_BOT_TOKEN',
      message:
        'is required: set it to the bot token (xoxb-...) from "OAuth & Permissions", or set SLACK_CLIENT_ID, SLACK_CLIENT_SECRET and SLACK_STATE_SECRET to distribute the app with OAuth.',
    });
  }
  if (mode === 'http' && !has('SLACK_SIGNING_SECRET')) {
    issues.push({
      variable: 'SLACK_SIGNING_SECRET',
      message:
        'is required in HTTP mode: set it to the signing secret from the app\'s "Basic Information" page, or set SLACK_APP_TOKEN (xapp-...) to use Socket Mode.',
    });
  }
  // Socket Mode with OAuth is allowed: Bolt serves the install pages next to the socket connection.
  if (has('SLACK_BOT_ID') !== has('SLACK_BOT_USER_ID')) {
    issues.push({
      variable: has('SLACK_BOT_ID') ? 'SLACK_BOT_USER_ID' : 'SLACK_BOT_ID',
      message: 'SLACK_BOT_ID and SLACK_BOT_USER_ID go together: set both or neither.',
    });
  }
  if (v.SERVICE_API_CODE_IN === 'body' && v.SERVICE_BODY_ENCODING === 'query') {
    issues.push({
      variable: 'SERVICE_API_CODE_IN',
      message:
        'is body while SERVICE_BODY_ENCODING is query (no body): set SERVICE_API_CODE_IN to query or both, or SERVICE_BODY_ENCODING to json or form.',
    });
  }
  if (!has('ENCRYPTION_KEY')) {
    issues.push({
      variable: 'ENCRYPTION_KEY',
      message:
        'is required: set it to 32 random bytes in base64 (`openssl rand -base64 32`). Keep it safe: stored tokens and credentials cannot be read without it.',
    });
  }

  // -- Single-workspace service credentials --------------------------------------------------------
  const wmVars = ['DWM_ACCOUNT_ID', 'DWM_ACCESS_KEY'];
  const svcVars = ['SERVICE_API_ACCOUNT_ID', 'SERVICE_API_ACCOUNT_SEQ', 'SERVICE_API_SECRET_KEY'];
  const credVars = ['DWM_SITE_IDS', 'DWM_DEFAULT_SITE', ...wmVars, ...svcVars];
  const partial = (vars: string[], label: string) => {
    const set = vars.filter(has);
    if (set.length > 0 && set.length < vars.length) {
      const missing = vars.filter((n) => !has(n));
      issues.push({
        variable: missing.join(' / '),
        message: `${label} credentials are incomplete: set ${missing.join(' and ')} as well, or unset ${set.join(' and ')}.`,
      });
    }
    return set.length === vars.length;
  };
  const wmComplete = partial(wmVars, 'Watermarking API');
  const svcComplete = partial(svcVars, 'Service API');
  let envCredentials: WorkspaceCredentials | undefined;
  const anyCred = credVars.some(has);
  if (anyCred && distribution === 'oauth') {
    issues.push({
      variable: credVars.filter(has).join(' / '),
      message:
        'service credentials in the environment are for a single workspace; with OAuth each workspace saves its own with `/drm setup`. Unset them.',
    });
  } else if (anyCred) {
    if (!has('DWM_SITE_IDS')) {
      issues.push({
        variable: 'DWM_SITE_IDS',
        message:
          'is required with service credentials: set the comma-separated site ids this workspace may use.',
      });
    }
    if (!wmComplete && !svcComplete && !wmVars.some(has) && !svcVars.some(has)) {
      issues.push({
        variable: `${wmVars.join(' / ')} / ${svcVars.join(' / ')}`,
        message: 'site ids are set but no credentials: set the DWM_* and/or SERVICE_API_* credentials.',
      });
    }
    if (wmComplete && !has('DWM_BASE_URL')) {
      issues.push({
        variable: 'DWM_BASE_URL',
        message: 'is required with DWM_ACCOUNT_ID: set the Watermarking API URL.',
      });
    }
    if (svcComplete && !has('SERVICE_API_BASE_URL')) {
      issues.push({
        variable: 'SERVICE_API_BASE_URL',
        message: 'is required with SERVICE_API_ACCOUNT_ID: set the Service API URL.',
      });
    }
    const siteIds = v.DWM_SITE_IDS as string[] | undefined;
    const def = str('DWM_DEFAULT_SITE') ?? siteIds?.[0];
    if (siteIds && def && !siteIds.includes(def)) {
      issues.push({
        variable: 'DWM_DEFAULT_SITE',
        message: `"${def}" is not one of DWM_SITE_IDS (${siteIds.join(', ')}): set it to one of them or add it to the list.`,
      });
    }
    if (siteIds && def) {
      const watermarking: WatermarkingCredentials | undefined =
        wmComplete && str('DWM_BASE_URL')
          ? {
              accountId: str('DWM_ACCOUNT_ID')!,
              accessKey: str('DWM_ACCESS_KEY')!,
              baseUrl: str('DWM_BASE_URL')!,
            }
          : undefined;
      const service: ServiceApiCredentials | undefined =
        svcComplete && str('SERVICE_API_BASE_URL')
          ? {
              accountId: str('SERVICE_API_ACCOUNT_ID')!,
              accountSeq: str('SERVICE_API_ACCOUNT_SEQ')!,
              secretKey: str('SERVICE_API_SECRET_KEY')!,
              baseUrl: str('SERVICE_API_BASE_URL')!,
            }
          : undefined;
      envCredentials = {
        siteIds,
        defaultSiteId: def,
        ...(watermarking ? { watermarking } : {}),
        ...(service ? { service } : {}),
      };
    }
  }

  if (issues.length > 0) throw new ConfigError(issues);

  const slack: Config['slack'] = {};
  const setIf = <K extends Exclude<keyof Config['slack'], 'scopeSet'>>(k: K, name: string) => {
    const x = str(name);
    if (x !== undefined) slack[k] = x;
  };
  setIf('botToken', 'SLACK_BOT_TOKEN');
  setIf('signingSecret', 'SLACK_SIGNING_SECRET');
  setIf('appToken', 'SLACK_APP_TOKEN');
  setIf('clientId', 'SLACK_CLIENT_ID');
  setIf('clientSecret', 'SLACK_CLIENT_SECRET');
  setIf('stateSecret', 'SLACK_STATE_SECRET');
  setIf('apiUrl', 'SLACK_API_URL');
  setIf('botId', 'SLACK_BOT_ID');
  setIf('botUserId', 'SLACK_BOT_USER_ID');
  slack.scopeSet = v.SLACK_BOT_SCOPES as SlackScopeSet;

  const config: Config = {
    mode,
    distribution,
    slack,
    port: v.PORT as number,
    host: str('HOST')!,
    storeUrl: str('STORE_URL')!,
    storeRequestTimeoutMs: v.STORE_REQUEST_TIMEOUT_MS as number,
    sqliteJournal: v.SQLITE_JOURNAL as 'wal' | 'delete',
    shutdownDrainSeconds: v.SHUTDOWN_DRAIN_SECONDS as number,
    registrationInFlightGraceMs: (v.REGISTRATION_INFLIGHT_GRACE_SECONDS as number) * 1000,
    encryptionKey: str('ENCRYPTION_KEY')!,
    previousEncryptionKeys: (v.ENCRYPTION_KEYS_PREVIOUS as string[] | undefined) ?? [],
    serviceJwt: { sub: str('SERVICE_JWT_SUB')!, aud: str('SERVICE_JWT_AUD')!, iss: str('SERVICE_JWT_ISS')! },
    adminUserIds: (v.ADMIN_USER_IDS as string[] | undefined) ?? [],
    guestAccess: v.GUEST_ACCESS as GuestAccess,
    personalDataUsergroupIds: (v.PERSONAL_DATA_USERGROUP as string[] | undefined) ?? [],
    exportRetentionDays: v.EXPORT_RETENTION_DAYS as number,
    workflowUnattended: v.WORKFLOW_UNATTENDED as WorkflowUnattended,
    pollIntervalSeconds: v.POLL_INTERVAL_SECONDS as number,
    pollActiveIntervalSeconds: v.POLL_ACTIVE_INTERVAL_SECONDS as number,
    watchCallBudgetPerMinute: v.WATCH_CALL_BUDGET_PER_MINUTE as number,
    watchConcurrency: v.WATCH_CONCURRENCY as number,
    watchClockAllowanceSeconds: v.WATCH_CLOCK_ALLOWANCE_SECONDS as number,
    watchOutageNoticeMinutes: v.WATCH_OUTAGE_NOTICE_MINUTES as number,
    handlerConcurrency: v.COMMAND_CONCURRENCY as number,
    handlerQueueMax: v.COMMAND_QUEUE_MAX as number,
    workspaceLimits: {
      waits: v.WAITS_MAX_PER_WORKSPACE as number,
      watches: v.WATCHES_MAX_PER_WORKSPACE as number,
      alerts: v.ALERTS_MAX_PER_WORKSPACE as number,
      digests: v.DIGESTS_MAX_PER_WORKSPACE as number,
    },
    logLevel: v.LOG_LEVEL as LogLevel,
    serviceTimeoutMs: v.SERVICE_TIMEOUT_MS as number,
    serviceRetries: v.SERVICE_RETRIES as number,
    serviceApi: {
      bodyEncoding: v.SERVICE_BODY_ENCODING as 'json' | 'form' | 'query',
      apiCodeIn: v.SERVICE_API_CODE_IN as 'query' | 'body' | 'both',
      jwtAccountSeqType: v.SERVICE_JWT_ACCOUNT_SEQ_TYPE as 'string' | 'number',
      jwtSecretEncoding: v.SERVICE_JWT_SECRET_ENCODING as 'utf8' | 'base64',
      licenseTimeZone: v.SERVICE_LICENSE_TIME_ZONE as string,
      timeZone: v.SERVICE_TIME_ZONE as string,
    },
    wmTokenMaxAgeSeconds: v.WM_TOKEN_MAX_AGE_SECONDS as number,
    upstream: {
      allowedOrigins: (v.UPSTREAM_ALLOWED_ORIGINS as string[] | undefined) ?? [],
      maxResponseBytes: v.UPSTREAM_MAX_RESPONSE_BYTES as number,
      callDeadlineMs: v.UPSTREAM_CALL_DEADLINE_MS as number,
    },
    serviceJwtTtlSeconds: v.SERVICE_JWT_TTL_SECONDS as number,
    auditCap: v.AUDIT_CAP as number,
    uninstallGraceDays: v.UNINSTALL_GRACE_DAYS as number,
    auditRetentionDays: v.AUDIT_RETENTION_DAYS as number,
  };
  if (str('SERVICE_ERROR_CODES')) config.serviceErrorCodes = str('SERVICE_ERROR_CODES');
  if (str('JOB_FAILURE_CODES')) config.jobFailureCodes = str('JOB_FAILURE_CODES');
  if (str('SERVICE_SITE_REQUEST_STATUSES')) config.siteRequestStatuses = str('SERVICE_SITE_REQUEST_STATUSES');
  config.siteRequestUnknownStatusMs = (v.SITE_REQUEST_UNKNOWN_STATUS_MINUTES as number) * 60_000;
  if (str('LICENSE_ERROR_CODES')) config.licenseErrorCodes = str('LICENSE_ERROR_CODES');
  if (str('METRICS_TOKEN')) config.metricsToken = str('METRICS_TOKEN');
  if (str('DWM_BASE_URL')) config.dwmBaseUrl = str('DWM_BASE_URL');
  if (str('SERVICE_API_BASE_URL')) config.serviceApiBaseUrl = str('SERVICE_API_BASE_URL');
  if (envCredentials) config.envCredentials = envCredentials;
  if (str('AUDIT_CHANNEL_ID')) config.auditChannelId = str('AUDIT_CHANNEL_ID');
  return config;
}

/**
 * The API factory's options for a configuration: the ONE mapping of the settings to the clients
 * (the bot's main and `npm run doctor` build their clients the same way).
 */
export function apiOptionsOf(config: Config, logger?: Logger): ApiOptions {
  return {
    ...(logger ? { logger } : {}),
    timeouts: { headersMs: config.serviceTimeoutMs, bodyMs: config.serviceTimeoutMs },
    retries: { max: config.serviceRetries },
    bodyEncoding: config.serviceApi.bodyEncoding,
    apiCodeIn: config.serviceApi.apiCodeIn,
    serviceLicenseTimeZone: config.serviceApi.licenseTimeZone,
    serviceTimeZone: config.serviceApi.timeZone,
    jwtAccountSeqType: config.serviceApi.jwtAccountSeqType,
    jwtSecretEncoding: config.serviceApi.jwtSecretEncoding,
    wmTokenMaxAgeMs: config.wmTokenMaxAgeSeconds * 1000,
    jwtTtlSeconds: config.serviceJwtTtlSeconds,
    upstream: {
      configuredBaseUrls: [config.dwmBaseUrl, config.serviceApiBaseUrl],
      allowedOrigins: config.upstream.allowedOrigins,
    },
    maxResponseBytes: config.upstream.maxResponseBytes,
    callDeadlineMs: config.upstream.callDeadlineMs,
    claims: {
      subject: config.serviceJwt.sub,
      audience: config.serviceJwt.aud,
      issuer: config.serviceJwt.iss,
    },
  };
}
