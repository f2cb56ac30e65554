/**
 * The variable table: every setting of the bot, in the order of the generated table of
 * docs/configuration.md and of .env.example (`npm run readme`). The declarations live by topic in
 * ./env/ (Slack, the process, the store, access, the watcher, the upstream services); this order
 * interleaves them as the documentation always has. SECRET_VARIABLES are the ones never echoed in
 * an error and that may be given as NAME_FILE (./secret-files.ts).
 */
import { ACCESS_VARIABLES } from './env/access.js';
import {
  COMMAND_QUEUE_VARIABLES,
  LISTEN_VARIABLES,
  LOG_VARIABLES,
  PROBE_AND_DRAIN_VARIABLES,
} from './env/server.js';
import {
  SERVICE_ACCOUNT_VARIABLES,
  SERVICE_CALL_VARIABLES,
  SERVICE_JWT_TTL_VARIABLES,
  SERVICE_SPEC_VARIABLES,
  UPSTREAM_VARIABLES,
} from './env/service.js';
import { SLACK_VARIABLES } from './env/slack.js';
import {
  AUDIT_VARIABLES,
  ENCRYPTION_VARIABLES,
  STORE_ACCESS_VARIABLES,
  STORE_URL_VARIABLES,
} from './env/store.js';
import { WATCHER_VARIABLES, WORKSPACE_LIMIT_VARIABLES } from './env/watch.js';
import type { VariableSpec } from './spec.js';

export const VARIABLES: VariableSpec[] = [
  ...SLACK_VARIABLES,
  ...LISTEN_VARIABLES,
  ...STORE_URL_VARIABLES,
  ...PROBE_AND_DRAIN_VARIABLES,
  ...STORE_ACCESS_VARIABLES,
  ...ENCRYPTION_VARIABLES,
  ...SERVICE_ACCOUNT_VARIABLES,
  ...ACCESS_VARIABLES,
  ...WATCHER_VARIABLES,
  ...COMMAND_QUEUE_VARIABLES,
  ...WORKSPACE_LIMIT_VARIABLES,
  ...LOG_VARIABLES,
  ...SERVICE_CALL_VARIABLES,
  ...SERVICE_SPEC_VARIABLES,
  ...UPSTREAM_VARIABLES,
  ...SERVICE_JWT_TTL_VARIABLES,
  ...AUDIT_VARIABLES,
];

/** The secret settings (every one can be given as NAME_FILE: a file holding the value). */
export const SECRET_VARIABLES: readonly string[] = VARIABLES.filter((v) => v.secret).map((v) => v.name);
