/**
 * OAuth distribution (DISTRIBUTION=oauth): the scopes the bot asks for at install (and expects at
 * start-up, SLACK_BOT_SCOPES) and Bolt's install options: the install and redirect routes, the
 * installation store over store.installations (the installer's first message: welcome.ts), and
 * the signed, single-use state (oauth-state.ts). Slack's authorize page is found next to its API,
 * so installs in the demo go to the fake Slack.
 */
import type { AppOptions } from '@slack/bolt';
import type { Config } from '../config.js';
import type { AppDeps } from './deps.js';
import { createInstallationStore } from './installation-store.js';
import { createSingleUseStateStore } from './oauth-state.js';
import { HISTORY_SCOPES, OPTIONAL_SCOPES } from './startup-check.js';
import { withWelcome } from './welcome.js';

/** Every bot scope (SLACK_BOT_SCOPES=full); keep in sync with manifest.yml. */
export const BOT_SCOPES = [
  'commands',
  'chat:write',
  'users:read',
  'usergroups:read',
  'channels:read',
  'groups:read',
  'channels:history',
  'groups:history',
  // Watches in a direct message or group DM: conversations.info (can the bot post there?) and
  // conversations.history (a card already posted is found again after a crash) need these.
  'im:read',
  'im:history',
  'mpim:read',
  'mpim:history',
  'files:read',
  'files:write',
  'im:write',
];

/** The scopes the bot asks for at install and expects at start-up (SLACK_BOT_SCOPES). */
export function botScopesOf(config: Pick<Config, 'slack'>): string[] {
  const set = config.slack.scopeSet ?? 'full';
  if (set === 'full') return [...BOT_SCOPES];
  const left = new Set<string>(set === 'minimal' ? OPTIONAL_SCOPES : HISTORY_SCOPES);
  return BOT_SCOPES.filter((x) => !left.has(x));
}

/** Bolt's OAuth options (for App or HTTPReceiver), or undefined for a single workspace. */
export function oauthOptions(
  deps: AppDeps,
  o: { apiUrl: string; clientOptions: AppOptions['clientOptions']; socket: boolean },
) {
  const { config, logger } = deps;
  if (config.distribution !== 'oauth') return undefined;
  return {
    clientId: config.slack.clientId,
    clientSecret: config.slack.clientSecret,
    stateSecret: config.slack.stateSecret,
    scopes: botScopesOf(config),
    installationStore: withWelcome(createInstallationStore(deps.store, logger), deps, botScopesOf(config)),
    installerOptions: {
      directInstall: true,
      stateVerification: true,
      // Signed like Bolt's own, and single-use on the server (oauth-state.ts).
      stateStore: createSingleUseStateStore(config.slack.stateSecret ?? '', deps.store.leases),
      // Slack's authorize page lives next to its API (https://slack.com/oauth/v2/authorize);
      // the same rule points installs at the fake Slack in the demo.
      authorizationUrl: new URL('../oauth/v2/authorize', o.apiUrl).href,
      clientOptions: o.clientOptions,
      ...(o.socket ? { port: config.port } : {}),
    },
  };
}

export type OAuthOptions = NonNullable<ReturnType<typeof oauthOptions>>;
