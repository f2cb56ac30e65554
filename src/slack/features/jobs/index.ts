/** Jobs: `/dwm jobs` (paged) and `/dwm job <id>` with Details, Refresh and Export CSV. */
import type { Feature } from '../../kit/features.js';
import { detailsButton, exportButton, pageButton, refreshButton } from './buttons.js';
import { commands } from './commands.js';

export const jobs: Feature = {
  name: 'jobs',
  commands,
  interactions: [pageButton, detailsButton, refreshButton, exportButton],
};
