/**
 * All configuration, parsed once from the environment with zod. Nothing else reads process.env.
 * This module is the one entry the bot, the tools and the tests import; the pieces live in
 * src/config/:
 *
 * - `types.ts`: `Config` and `ConfigError` (every problem listed at once, each naming its
 *   variable and what to set, not one per restart).
 * - `variables.ts`: VARIABLES, the one table of settings (name, required, default, description,
 *   schema) in the documented order; the declarations by topic in `env/` (slack, server, store,
 *   access, watch, service) over the parsers of `spec.ts`.
 * - `doc.ts`: CONFIG_DOC and the generated table of docs/configuration.md and .env.example;
 *   `unknown-settings.ts`: names that are no setting (typos).
 * - Loading, in `loadConfig` below: `read.ts` (each setting's text, from NAME or NAME_FILE, see
 *   `secret-files.ts`, parsed), `checks.ts` (the modes, derived: `socket` when SLACK_APP_TOKEN is
 *   set, else `http`; `oauth` distribution when SLACK_CLIENT_ID/SECRET/STATE_SECRET are set, else
 *   `single` (SLACK_BOT_TOKEN); contradictory settings are errors), `env-credentials.ts` (the
 *   single workspace's service credentials), then `build.ts` (the `Config`).
 * - `api-options.ts`: `apiOptionsOf`, the upstream clients' options of a `Config`.
 */
import { apiOptionsOf } from './config/api-options.js';
import { configOf } from './config/build.js';
import { crossFieldIssues, modesOf } from './config/checks.js';
import { CONFIG_DOC, configDocMarkdown, MINIMUM_VARIABLES } from './config/doc.js';
import { configAdminIds } from './config/env/access.js';
import { decodeKey } from './config/env/store.js';
import { envCredentialsOf } from './config/env-credentials.js';
import { readSettings } from './config/read.js';
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

export {
  apiOptionsOf,
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

/** Parse and check the environment. Throws ConfigError listing every problem. */
export function loadConfig(env: Env = process.env): Config {
  const { settings, issues } = readSettings(env);
  const modes = modesOf(settings);
  issues.push(...crossFieldIssues(settings, modes));
  const credentials = envCredentialsOf(settings, modes.distribution);
  issues.push(...credentials.issues);
  if (issues.length > 0) throw new ConfigError(issues);
  return configOf(settings, modes, credentials.credentials);
}
