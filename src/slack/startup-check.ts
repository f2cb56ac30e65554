/**
 * What the bot checks with Slack at start-up, said in words:
 * - the bot token (auth.test): refused (wrong, revoked, another app's) or Slack unreachable
 *   (no outbound HTTPS) is one error line saying what to check, never a stack trace or an
 *   unhandled rejection; /readyz's `slack` check says the same until Slack answers (health.ts);
 * - the scopes it was granted (auth.test answers them in the `x-oauth-scopes` header, read by the
 *   Web API client into `response_metadata.scopes`): each missing one is named with the feature it
 *   turns off, so nobody meets a `missing_scope` error later without a reason.
 * Pure functions here; app.ts runs the check.
 */

/** The feature each bot scope of manifest.yml serves (README's scope table says the same). */
export const SCOPE_FEATURES: Readonly<Record<string, string>> = {
  commands: 'the /dwm and /drm slash commands',
  'chat:write': 'every reply, job card and notification',
  'im:write': 'direct messages (registration progress, exports, alerts)',
  'users:read': "roles from Slack's admin flag and each reader's time zone",
  'usergroups:read': 'the admin user group',
  'channels:read': 'watching public channels (the channel check)',
  'groups:read': 'watching private channels (the channel check)',
  'channels:history':
    'finding a notification again after a crash in public channels (it may be posted twice instead)',
  'groups:history':
    'finding a notification again after a crash in private channels (it may be posted twice instead)',
  'im:read': 'watches in direct messages',
  'im:history': 'finding a notification again after a crash in direct messages',
  'mpim:read': 'watches in group direct messages',
  'mpim:history': 'finding a notification again after a crash in group direct messages',
  'files:read': 'CSV files attached in the registration form',
  'files:write': 'CSV exports (job tasks, registration reports, DRM data)',
};

/** The history scopes: only for finding a notification again after a crash (poster.ts). */
export const HISTORY_SCOPES = ['channels:history', 'groups:history', 'im:history', 'mpim:history'] as const;
/** Only for watches in direct messages and group DMs. */
export const DM_READ_SCOPES = ['im:read', 'mpim:read'] as const;
/**
 * What `npm run manifest -- --minimal-scopes` leaves out (scripts/manifest.ts): an install
 * without them is a choice (least privilege), said at start-up as information, not a warning.
 */
export const OPTIONAL_SCOPES: ReadonlySet<string> = new Set([...HISTORY_SCOPES, ...DM_READ_SCOPES]);

/** Scopes without which the bot cannot serve at all. */
const ESSENTIAL = new Set(['commands', 'chat:write']);

export interface ScopeReport {
  /** Scopes of `wanted` not granted. */
  missing: string[];
  /** One sentence per missing scope: the scope and the feature that is off. */
  off: string[];
  /** True when a scope the bot cannot work without is missing. */
  essential: boolean;
}

/** Which features are off with the `granted` scopes (of the `wanted` ones). */
export function scopeReport(granted: readonly string[], wanted: readonly string[]): ScopeReport {
  const have = new Set(granted);
  const missing = wanted.filter((s) => !have.has(s));
  return {
    missing,
    off: missing.map((s) => `${s}: ${SCOPE_FEATURES[s] ?? 'a feature of the bot'} is off`),
    essential: missing.some((s) => ESSENTIAL.has(s)),
  };
}

/** True when only scopes a least-privilege install leaves out are missing (a choice, not a fault). */
export function leastPrivilegeOnly(report: ScopeReport): boolean {
  return report.missing.every((x) => OPTIONAL_SCOPES.has(x));
}

/**
 * The check's words for missing scopes: what Slack did not grant and which features are off, then
 * `fix` (what the reader can do), unless it is a least-privilege install. Said at start-up (one
 * workspace: the log) and, with OAuth, to the installer at install time (welcome.ts).
 */
export function scopeWords(report: ScopeReport, fix: string): string {
  const n = report.missing.length;
  return `Slack did not grant ${n === 1 ? 'a scope' : `${n} scopes`} the bot asks for, so these are off: ${report.off.join('; ')}.${leastPrivilegeOnly(report) ? ' (A least-privilege install: fine if intended.)' : ` ${fix}`}`;
}

/** Slack error codes that mean the token itself is refused. */
const REFUSED_TOKEN = new Set([
  'invalid_auth',
  'not_authed',
  'token_revoked',
  'token_expired',
  'account_inactive',
  'not_allowed_token_type',
  'invalid_token',
  'team_access_not_granted',
]);

export interface SlackFailure {
  /** The Slack error code, or the network error's code (ECONNREFUSED...), or the error's name. */
  code: string;
  /** What is wrong and what to check, one or two sentences; never the token. */
  words: string;
}

/**
 * A start-up failure of a Slack call made with `variable`'s token, in words. `apiUrl` is where the
 * bot calls Slack (SLACK_API_URL, https://slack.com/api/ unless changed).
 */
export function describeSlackFailure(
  e: unknown,
  variable: 'SLACK_BOT_TOKEN' | 'SLACK_APP_TOKEN',
  apiUrl: string,
): SlackFailure {
  const x = (e ?? {}) as {
    code?: unknown;
    data?: { error?: unknown };
    original?: { code?: unknown; cause?: { code?: unknown }; message?: unknown };
    name?: unknown;
  };
  const slackCode = typeof x.data?.error === 'string' ? x.data.error : undefined;
  const which =
    variable === 'SLACK_BOT_TOKEN'
      ? "the app's Bot User OAuth Token (xoxb-…, OAuth & Permissions), and that the app is still installed in the workspace"
      : 'an app-level token (xapp-…, Basic Information → App-Level Tokens) of this app with the connections:write scope, and that Socket Mode is on';
  if (slackCode && REFUSED_TOKEN.has(slackCode)) {
    return {
      code: slackCode,
      words: `Slack refused ${variable} (${slackCode}): check that it is ${which}. Fix it and restart; until then /readyz is not ready.`,
    };
  }
  if (slackCode) {
    return {
      code: slackCode,
      words: `Slack answered ${slackCode} to the start-up check of ${variable}: see docs/troubleshooting.md. Until it answers ok /readyz is not ready.`,
    };
  }
  const net = [x.original?.cause?.code, x.original?.code, x.code].find(
    (c): c is string => typeof c === 'string' && c !== 'slack_webapi_request_error',
  );
  const code = net ?? (typeof x.name === 'string' ? x.name : 'error');
  return {
    code,
    words: `Could not reach Slack's Web API at ${apiUrl} (${code}): check outbound HTTPS (port 443) from this host to slack.com, and any proxy or firewall in between. The bot keeps trying; /readyz is not ready until Slack answers.`,
  };
}
