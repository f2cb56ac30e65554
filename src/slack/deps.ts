/**
 * What every Slack-side module receives: built once in src/main.ts (or by the test harness) and
 * passed to listeners, ops and background jobs. No module reads process.env or creates its own
 * store/API clients: everything comes from here, so tests can swap any part.
 */
import type { ApiFactory } from '../api/types.js';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import type { Store } from '../store/types.js';

export interface AppDeps {
  config: Config;
  store: Store;
  api: ApiFactory;
  logger: Logger;
  /** Clock (epoch ms); tests pass a fixed or steppable clock. */
  now: () => number;
}
