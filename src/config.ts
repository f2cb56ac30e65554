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
import type { ApiOptions } from './api/index.js';
import type { ServiceApiCredentials, WatermarkingCredentials, WorkspaceCredentials } from './api/types.js';
import { CONFIG_DOC, configDocMarkdown, MINIMUM_VARIABLES } from './config/doc.js';
import { configAdminIds } from './config/env/access.js';
import { decodeKey } from './config/env/store.js';
import { secretFromFile, settingFromEnv } from './config/secret-files.js';
import {
  type Config,
  ConfigError,
  type ConfigIssue,
  type Env,
  GUEST_ACCESS_VALUES,
  type GuestAccess,
  type LogLevel,
  SLACK_SCOPE_SETS,
  type SlackScopeSet,
  WORKFLOW_UNATTENDED_VALUES,
  type WorkflowUnattended,
} from './config/types.js';
import { unknownSettings } from './config/unknown-settings.js';
import { SECRET_VARIABLES, VARIABLES } from './config/variables.js';
import type { Logger } from './log.js';

export {
  CONFIG_DOC,
  type Config,
  ConfigError,
  type ConfigIssue,
  configAdminIds,
  configDocMarkdown,
  decodeKey,
  type Env,
  GUEST_ACCESS_VALUES,
  type GuestAccess,
  type LogLevel,
  MINIMUM_VARIABLES,
  SECRET_VARIABLES,
  SLACK_SCOPE_SETS,
  type SlackScopeSet,
  secretFromFile,
  settingFromEnv,
  unknownSettings,
  VARIABLES,
  WORKFLOW_UNATTENDED_VALUES,
  type WorkflowUnattended,
};

// ---------------------------------------------------------------------------------------------
// Loading
// ---------------------------------------------------------------------------------------------

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
