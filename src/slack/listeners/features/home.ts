/**
 * Feature entry point: home. The App Home tab (app_home_opened, buttons, `refreshHome` for other
 * features) and `/dwm debug` (admin).
 */
import type { App } from '@slack/bolt';
import type { AppDeps } from '../../deps.js';
import { register as homeButtons } from '../../features/home/buttons.js';
import '../../features/debug/commands.js';
import { register as homeOpened } from '../../features/home/opened.js';
import { register as homeRefresh } from '../../features/home/refresh.js';
import { register as homeWatchPick } from '../../features/watch/home-pick.js';

export { publishHome, refreshHome, workspaceSlackClient } from '../../features/home/publish.js';

export function register(app: App, deps: AppDeps): void {
  homeRefresh(app, deps);
  homeOpened(app, deps);
  homeButtons(app, deps);
  homeWatchPick(app, deps);
}
