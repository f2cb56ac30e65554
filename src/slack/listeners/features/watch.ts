/**
 * Feature entry point: watch (`/dwm watch`, `/dwm unwatch`, `/dwm watches`, the watch form, the
 * card and subscription buttons). The background watcher itself is src/slack/watch-runtime.ts.
 */
import type { App } from '@slack/bolt';
import type { AppDeps } from '../../deps.js';
import '../../features/watch/watch-command.js';
import '../../features/watch/unwatch-command.js';
import '../../features/watch/watches-command.js';
import { register as jobButtons } from '../../features/watch/job-buttons.js';
import { register as subscribeView } from '../../features/watch/modal.js';
import { register as subscriptionButtons } from '../../features/watch/subscription-buttons.js';

export function register(app: App, deps: AppDeps): void {
  subscribeView(app, deps);
  subscriptionButtons(app, deps);
  jobButtons(app, deps);
}
