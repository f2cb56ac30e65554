/**
 * Home: the App Home tab (published on app_home_opened, refreshed after requests whose
 * declarations say `changesHome`, and by the watcher when jobs change) and its buttons, which open
 * the flows of the commands they stand for through the registry.
 */
import type { Feature } from '../../kit/features.js';
import { homeButtons } from './buttons.js';
import { homeOpened } from './opened.js';
import { refreshHome } from './publish.js';

export { publishHome, refreshHome } from './publish.js';

export const home: Feature = {
  name: 'home',
  interactions: homeButtons,
  events: [homeOpened],
  onHomeChanged: (deps, workspace) => void refreshHome(deps, workspace),
};
