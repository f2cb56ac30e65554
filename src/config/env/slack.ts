/**
 * The Slack settings of the environment: the app's tokens and secrets (one workspace with a bot
 * token, or OAuth distribution; HTTP or Socket Mode), the bot scopes it asks for, and the Web API
 * base and known bot ids that tests and the demo set. Which combinations are allowed is checked
 * in ../checks.ts.
 */
import { z } from 'zod';
import { httpUrl, nonEmpty, type VariableSpec } from '../spec.js';
import { SLACK_SCOPE_SETS } from '../types.js';

const slackToken = (prefix: string, what: string) =>
  z.string().regex(new RegExp(`^${prefix}-[A-Za-z0-9-]+$`), `must be ${what} starting with "${prefix}-"`);

export const SLACK_VARIABLES: VariableSpec[] = [
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
];
