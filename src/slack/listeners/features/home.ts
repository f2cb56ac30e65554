/**
 * Feature entry point: home. The App Home tab (app_home_opened, buttons, `refreshHome` for other
 * features) and `/dwm debug` (admin).
 */
import type { App } from '@slack/bolt';
import type { AppDeps } from '../../deps.js';
import { register as homeButtons } from '../actions/home-buttons.js';
import '../commands/debug.js';
import { register as homeOpened } from '../events/home-opened.js';
import { register as homeRefresh } from '../events/home-refresh.js';
import { register as homeWatchPick } from '../views/home-watch.js';

export { publishHome, refreshHome, workspaceSlackClient } from '../events/home-publish.js';

export function register(app: App, deps: AppDeps): void {
  homeRefresh(app, deps);
  homeOpened(app, deps);
  homeButtons(app, deps);
  homeWatchPick(app, deps);
}
