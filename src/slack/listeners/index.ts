/**
 * Registers every listener. Command entries are added to the registry when their module is
 * imported (side effect of `registry.add` at module level); listener modules with actions/views
 * export `register(app, deps)`.
 *
 * Feature modules: put your command file in ./commands/ (calling `registry.add`) and add its
 * import below; actions/views go in ./actions/ or ./views/ with a `register` export listed in
 * LISTENERS.
 */
import type { App } from '@slack/bolt';
import type { AppDeps } from '../deps.js';
// Command entries (side-effect imports, order = help order).
import '../features/setup/commands.js';
import '../features/admins/commands.js';
import '../features/audit/commands.js';
import { register as setupView } from '../features/setup/modal.js';
import { register as missingArgsView } from '../kit/missing-args-form.js';
import { register as slashCommands } from '../kit/slash.js';
import { register as homeFeature } from './features/home.js';
import { register as serviceFeature } from './features/service.js';
import { register as watchFeature } from './features/watch.js';
// Features (each owns its file in ./features/ and the command/action/view files it imports).
import { register as watermarkingFeature } from './features/watermarking.js';

export { registry } from '../kit/registry.js';

type Register = (app: App, deps: AppDeps) => void;
const LISTENERS: Register[] = [
  slashCommands,
  missingArgsView,
  setupView,
  watermarkingFeature,
  serviceFeature,
  watchFeature,
  homeFeature,
];

export function registerListeners(app: App, deps: AppDeps): void {
  for (const r of LISTENERS) r(app, deps);
}
