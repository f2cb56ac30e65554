/** DRM settings: `/drm settings` (admin), its Edit button and form. */
import type { Feature } from '../../kit/features.js';
import { editButton } from './button.js';
import { commands } from './commands.js';
import { settingsModal } from './modal.js';

export const settings: Feature = { name: 'settings', commands, interactions: [editButton, settingsModal] };
