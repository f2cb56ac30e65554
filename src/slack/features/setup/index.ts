/** Setup (admin): `/dwm setup` (and `/drm setup`), `/dwm setup status`, and the setup form. */
import type { Feature } from '../../kit/features.js';
import { checkServiceButton } from './check.js';
import { commands } from './commands.js';
import { setupModal } from './modal.js';

export const setup: Feature = {
  name: 'setup',
  commands,
  interactions: [setupModal, checkServiceButton],
  homeActions: [{ entry: 'setup', command: '/dwm', path: ['setup'] }],
};
