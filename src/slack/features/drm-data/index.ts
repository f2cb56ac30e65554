/** DRM data: `/drm licenses|users|devices|cids|packaging|stats`, paging, More and Export CSV. */
import type { Feature } from '../../kit/features.js';
import { exportButton, packagingMoreButton, pageButton } from './buttons.js';
import { commands } from './commands.js';

export const drmData: Feature = {
  name: 'drm-data',
  commands,
  interactions: [pageButton, packagingMoreButton, exportButton],
};
