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
import { z } from 'zod';
import { loadErrorCodes, loadFailureCodes } from './api/error-codes.js';
import { parseAllowedOrigin } from './api/origins.js';
import { normalizeTimeZone } from './api/time.js';
import type { ServiceApiCredentials, WatermarkingCredentials, WorkspaceCredentials } from './api/types.js';
import { checkSiteId } from './api/validate.js';

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
  pollIntervalSeconds: number;
  /** Adaptive polling (src/watch/adaptive.ts). */
  pollActiveIntervalSeconds: number;
  watchCallBudgetPerMinute: number;
  watchConcurrency: number;
  /** Slash command handlers run after the ack through a bounded queue (src/slack/kit/handler-queue.ts). */
  handlerConcurrency: number;
  handlerQueueMax: number;
  logLevel: LogLevel;
  serviceTimeoutMs: number;
  serviceRetries: number;
  auditChannelId?: string;
  /** Choices the spec leaves open (see the variable table). */
  serviceApi: {
    bodyEncoding: 'json' | 'form';
    jwtAccountSeqType: 'string' | 'number';
    jwtSecretEncoding: 'utf8' | 'base64';
    /** SERVICE_LICENSE_TIME_ZONE, normalised ("+09:00"; "+00:00" for UTC). */
    licenseTimeZone: string;
  };
  wmTokenMaxAgeSeconds: number;
  /** SERVICE_ERROR_CODES as given (validated JSON), when set. */
  serviceErrorCodes?: string;
  /** JOB_FAILURE_CODES as given (validated JSON), when set. */
  jobFailureCodes?: string;
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
      'Which bot scopes the bot asks for and expects: `full` (every scope of manifest.yml), `minimal` (without the history scopes and im:read / mpim:read: a crash can then repeat a notification once, and watches in DMs are off) or `minimal-dm` (without the history scopes only). Match it with `npm run manifest -- --minimal-scopes [--dm-watches]`. OAuth installs request this set; at start-up the granted scopes are compared with it.',
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
    description: 'Timeout of one call to the service APIs, ms.',
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
      'How POST/PUT parameters of the Service API are sent (the spec does not show it): json body or form (urlencoded). api_code always goes in the query string.',
    schema: z.enum(['json', 'form'], { error: 'must be json or form' }),
  },
  {
    // The spec gives license reg_time no zone (only reg_dt/update_dt say UTC); src/api/service.ts.
    name: 'SERVICE_LICENSE_TIME_ZONE',
    required: 'no',
    default: 'UTC',
    description:
      'UTC offset the Service API writes license times (reg_time of the license list) in; the spec does not say. UTC, or an offset such as +09:00. License alerts count the records of their window by this time: set it if alerts count too few or too many licenses. A time sent with its own offset keeps it.',
    schema: z
      .string()
      .trim()
      .transform((x, ctx) => {
        const n = normalizeTimeZone(x);
        if (n === null) {
          ctx.addIssue({ code: 'custom', message: 'must be UTC or an offset such as +09:00 or -05:30' });
          return z.NEVER;
        }
        return n;
      }),
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
      'JSON object mapping conditions to the service\'s error_code values, when they differ from the defaults (e.g. {"recipientInUse":"E2003"}); see src/api/error-codes.ts.',
    schema: z.string().refine(
      (x) => {
        try {
          loadErrorCodes(x);
          return true;
        } catch {
          return false;
        }
      },
      { error: 'must be a JSON object of condition name to code string, like {"recipientInUse":"E2003"}' },
    ),
  },
  {
    name: 'JOB_FAILURE_CODES',
    required: 'no',
    description:
      'JSON object adding or replacing explanations of job/task failure codes (cli_error_code), e.g. {"E-417":{"meaning":"embedding failed","next":"start the job again"}}; codes not in the table show as "unknown (CODE)". See src/api/error-codes.ts.',
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
      'Total time one service call may take, ms: every attempt and retry wait, the headers and the whole body (a server sending a byte at a time is cut off here).',
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
];

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

/** Parse and check the environment. Throws ConfigError listing every problem. */
export function loadConfig(env: Env = process.env): Config {
  const issues: ConfigIssue[] = [];
  const v: Record<string, unknown> = {};
  const raw = (name: string): string | undefined => {
    const s = env[name]?.trim();
    return s ? s : undefined;
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
    pollIntervalSeconds: v.POLL_INTERVAL_SECONDS as number,
    pollActiveIntervalSeconds: v.POLL_ACTIVE_INTERVAL_SECONDS as number,
    watchCallBudgetPerMinute: v.WATCH_CALL_BUDGET_PER_MINUTE as number,
    watchConcurrency: v.WATCH_CONCURRENCY as number,
    handlerConcurrency: v.COMMAND_CONCURRENCY as number,
    handlerQueueMax: v.COMMAND_QUEUE_MAX as number,
    logLevel: v.LOG_LEVEL as LogLevel,
    serviceTimeoutMs: v.SERVICE_TIMEOUT_MS as number,
    serviceRetries: v.SERVICE_RETRIES as number,
    serviceApi: {
      bodyEncoding: v.SERVICE_BODY_ENCODING as 'json' | 'form',
      jwtAccountSeqType: v.SERVICE_JWT_ACCOUNT_SEQ_TYPE as 'string' | 'number',
      jwtSecretEncoding: v.SERVICE_JWT_SECRET_ENCODING as 'utf8' | 'base64',
      licenseTimeZone: v.SERVICE_LICENSE_TIME_ZONE as string,
    },
    wmTokenMaxAgeSeconds: v.WM_TOKEN_MAX_AGE_SECONDS as number,
    upstream: {
      allowedOrigins: (v.UPSTREAM_ALLOWED_ORIGINS as string[] | undefined) ?? [],
      maxResponseBytes: v.UPSTREAM_MAX_RESPONSE_BYTES as number,
      callDeadlineMs: v.UPSTREAM_CALL_DEADLINE_MS as number,
    },
    serviceJwtTtlSeconds: v.SERVICE_JWT_TTL_SECONDS as number,
  };
  if (str('SERVICE_ERROR_CODES')) config.serviceErrorCodes = str('SERVICE_ERROR_CODES');
  if (str('JOB_FAILURE_CODES')) config.jobFailureCodes = str('JOB_FAILURE_CODES');
  if (str('METRICS_TOKEN')) config.metricsToken = str('METRICS_TOKEN');
  if (str('DWM_BASE_URL')) config.dwmBaseUrl = str('DWM_BASE_URL');
  if (str('SERVICE_API_BASE_URL')) config.serviceApiBaseUrl = str('SERVICE_API_BASE_URL');
  if (envCredentials) config.envCredentials = envCredentials;
  if (str('AUDIT_CHANNEL_ID')) config.auditChannelId = str('AUDIT_CHANNEL_ID');
  return config;
}
