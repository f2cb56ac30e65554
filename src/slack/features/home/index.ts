/**
 * Home: the App Home tab (published on app_home_opened, refreshed through `onHomeChanged` after
 * requests whose declarations say `changesHome` and by the runtimes when jobs or notices change)
 * and its buttons, which open the flows of the commands other features declare for them
 * (`Feature.homeActions`).
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
  // Awaited by the runtimes (their idle() covers it); refreshHome never throws.
  onHomeChanged: async (deps, workspace) => {
    await refreshHome(deps, workspace);
  },
};
