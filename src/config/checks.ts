/**
 * The checks of settings that only mean something together, and the modes they derive: `socket`
 * when SLACK_APP_TOKEN is set, else `http`; `oauth` distribution when any SLACK_CLIENT_* is set,
 * else `single` (SLACK_BOT_TOKEN). Contradictory or incomplete combinations (a bot token AND
 * OAuth, half the OAuth set, unscoped admins with OAuth, a body-less encoding with api_code in the
 * body...) are issues saying what to set. The single workspace's service credentials have their
 * own checks (./env-credentials.ts).
 */
import type { Settings } from './read.js';
import type { Config, ConfigIssue } from './types.js';

/** How the bot reaches Slack and how many workspaces it serves. */
export interface Modes {
  mode: Config['mode'];
  distribution: Config['distribution'];
}

const OAUTH_VARIABLES = ['SLACK_CLIENT_ID', 'SLACK_CLIENT_SECRET', 'SLACK_STATE_SECRET'];

export function modesOf(s: Settings): Modes {
  return {
    mode: s.has('SLACK_APP_TOKEN') ? 'socket' : 'http',
    distribution: OAUTH_VARIABLES.some(s.has) ? 'oauth' : 'single',
  };
}

type Check = (s: Settings, modes: Modes) => ConfigIssue | undefined;

function issueIf(wrong: boolean, variable: string, message: string): ConfigIssue | undefined {
  return wrong ? { variable, message } : undefined;
}

const halfOAuth: Check = (s) => {
  const set = OAUTH_VARIABLES.filter(s.has);
  if (set.length === 0 || set.length === OAUTH_VARIABLES.length) return undefined;
  const missing = OAUTH_VARIABLES.filter((n) => !s.has(n));
  return {
    variable: missing.join(' / '),
    message: `OAuth distribution needs SLACK_CLIENT_ID, SLACK_CLIENT_SECRET and SLACK_STATE_SECRET together; set ${missing.join(' and ')} too, or unset ${set.join(' and ')} to run in one workspace with SLACK_BOT_TOKEN.`,
  };
};

const botTokenWithOAuth: Check = (s, { distribution }) =>
  issueIf(
    distribution === 'oauth' && s.has('SLACK_BOT_TOKEN'),
    'SLACK_BOT_TOKEN',
    'is set together with OAuth (SLACK_CLIENT_ID...): choose one. Unset SLACK_BOT_TOKEN to distribute the app with OAuth, or unset the SLACK_CLIENT_* variables to serve one workspace.',
  );

const unscopedAdminsWithOAuth: Check = (s, { distribution }) => {
  if (distribution !== 'oauth' || !s.has('ADMIN_USER_IDS')) return undefined;
  const bare = ((s.values.ADMIN_USER_IDS as string[] | undefined) ?? []).filter((x) => !x.includes(':'));
  if (bare.length === 0) return undefined;
  return {
    variable: 'ADMIN_USER_IDS',
    message: `with OAuth (several workspaces) each admin id must name its workspace, like T0123ABCD:${bare[0]}, so that nobody is an admin in workspaces other than their own. Unscoped: ${bare.slice(0, 5).join(', ')}.`,
  };
};

const missingBotToken: Check = (s, { distribution }) =>
  issueIf(
    distribution === 'single' && !s.has('SLACK_BOT_TOKEN'),
    'SLACK_BOT_TOKEN',
    'is required: set it to the bot token (xoxb-...) from "OAuth & Permissions", or set SLACK_CLIENT_ID, SLACK_CLIENT_SECRET and SLACK_STATE_SECRET to distribute the app with OAuth.',
  );

const missingSigningSecret: Check = (s, { mode }) =>
  issueIf(
    mode === 'http' && !s.has('SLACK_SIGNING_SECRET'),
    'SLACK_SIGNING_SECRET',
    'is required in HTTP mode: set it to the signing secret from the app\'s "Basic Information" page, or set SLACK_APP_TOKEN (xapp-...) to use Socket Mode.',
  );

// Socket Mode with OAuth is allowed: Bolt serves the install pages next to the socket connection.

const halfBotIds: Check = (s) =>
  issueIf(
    s.has('SLACK_BOT_ID') !== s.has('SLACK_BOT_USER_ID'),
    s.has('SLACK_BOT_ID') ? 'SLACK_BOT_USER_ID' : 'SLACK_BOT_ID',
    'SLACK_BOT_ID and SLACK_BOT_USER_ID go together: set both or neither.',
  );

const apiCodeInMissingBody: Check = (s) =>
  issueIf(
    s.values.SERVICE_API_CODE_IN === 'body' && s.values.SERVICE_BODY_ENCODING === 'query',
    'SERVICE_API_CODE_IN',
    'is body while SERVICE_BODY_ENCODING is query (no body): set SERVICE_API_CODE_IN to query or both, or SERVICE_BODY_ENCODING to json or form.',
  );

const missingEncryptionKey: Check = (s) =>
  issueIf(
    !s.has('ENCRYPTION_KEY'),
    'ENCRYPTION_KEY',
    'is required: set it to 32 random bytes in base64 (`openssl rand -base64 32`). Keep it safe: stored tokens and credentials cannot be read without it.',
  );

/** In the order the issues are listed. */
const CHECKS: readonly Check[] = [
  halfOAuth,
  botTokenWithOAuth,
  unscopedAdminsWithOAuth,
  missingBotToken,
  missingSigningSecret,
  halfBotIds,
  apiCodeInMissingBody,
  missingEncryptionKey,
];

/** The issues of the settings taken together (the service credentials aside). */
export function crossFieldIssues(s: Settings, modes: Modes): ConfigIssue[] {
  return CHECKS.map((check) => check(s, modes)).filter((i): i is ConfigIssue => i !== undefined);
}
