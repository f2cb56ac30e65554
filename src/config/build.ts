/**
 * The `Config` of settings that passed every check (./read.ts, ./checks.ts,
 * ./env-credentials.ts): the parsed values put in their places, durations converted to ms, the
 * optional ones only when set.
 */
import type { WorkspaceCredentials } from '../api/types.js';
import type { Modes } from './checks.js';
import type { Settings } from './read.js';
import type { Config, GuestAccess, LogLevel, SlackScopeSet, WorkflowUnattended } from './types.js';

/** The Config's optional text settings (set from their env name when given). */
type OptionalText =
  | 'serviceErrorCodes'
  | 'jobFailureCodes'
  | 'siteRequestStatuses'
  | 'licenseErrorCodes'
  | 'metricsToken'
  | 'dwmBaseUrl'
  | 'serviceApiBaseUrl'
  | 'auditChannelId';

export function configOf(
  s: Settings,
  { mode, distribution }: Modes,
  envCredentials?: WorkspaceCredentials,
): Config {
  const v = s.values;
  const str = s.str;
  const config: Config = {
    mode,
    distribution,
    slack: slackOf(s),
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
  /** An optional text setting, in the Config only when given (not empty). */
  const setIfGiven = (key: OptionalText, name: string) => {
    const x = str(name);
    if (x) config[key] = x;
  };
  setIfGiven('serviceErrorCodes', 'SERVICE_ERROR_CODES');
  setIfGiven('jobFailureCodes', 'JOB_FAILURE_CODES');
  setIfGiven('siteRequestStatuses', 'SERVICE_SITE_REQUEST_STATUSES');
  config.siteRequestUnknownStatusMs = (v.SITE_REQUEST_UNKNOWN_STATUS_MINUTES as number) * 60_000;
  setIfGiven('licenseErrorCodes', 'LICENSE_ERROR_CODES');
  setIfGiven('metricsToken', 'METRICS_TOKEN');
  setIfGiven('dwmBaseUrl', 'DWM_BASE_URL');
  setIfGiven('serviceApiBaseUrl', 'SERVICE_API_BASE_URL');
  if (envCredentials) config.envCredentials = envCredentials;
  setIfGiven('auditChannelId', 'AUDIT_CHANNEL_ID');
  return config;
}

/** The Slack settings given (SLACK_BOT_SCOPES always, with its default). */
function slackOf(s: Settings): Config['slack'] {
  const slack: Config['slack'] = {};
  const setIf = <K extends Exclude<keyof Config['slack'], 'scopeSet'>>(k: K, name: string) => {
    const x = s.str(name);
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
  slack.scopeSet = s.values.SLACK_BOT_SCOPES as SlackScopeSet;
  return slack;
}
