/**
 * Feature entry point: watch. Import this feature's command modules here (their `registry.add`
 * runs on import) and register its actions, views and events in `register`.
 */
import type { App } from '@slack/bolt';
import type { AppDeps } from '../../deps.js';

export function register(_app: App, _deps: AppDeps): void {}
