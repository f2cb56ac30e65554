/**
 * Feature entry point: watch (`/dwm watch`, `/dwm unwatch`, `/dwm watches`, the watch form, the
 * card and subscription buttons). The background watcher itself is src/slack/watch-runtime.ts.
 */
import type { App } from '@slack/bolt';
import type { AppDeps } from '../../deps.js';
import '../commands/watch-watch.js';
import '../commands/watch-unwatch.js';
import '../commands/watch-watches.js';
import { register as jobButtons } from '../actions/watch-job.js';
import { register as subscriptionButtons } from '../actions/watch-subscription.js';
import { register as subscribeView } from '../views/watch-subscribe.js';

export function register(app: App, deps: AppDeps): void {
  subscribeView(app, deps);
  subscriptionButtons(app, deps);
  jobButtons(app, deps);
}
