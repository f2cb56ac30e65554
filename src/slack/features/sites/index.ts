/** Sites: `/drm sites`, `/drm site requests` (paged), `/drm site request` (admin). */
import type { Feature } from '../../kit/features.js';
import { requestOutcomeRenderers } from '../../shared/requests/outcome.js';
import { interactions } from './buttons.js';
import { commands } from './commands.js';

export const sites: Feature = {
  name: 'sites',
  commands,
  interactions,
  // The outcome DM and card update of additional-site requests (shared with plan).
  notifyRenderers: requestOutcomeRenderers,
};
