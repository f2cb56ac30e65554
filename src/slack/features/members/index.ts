/** Sub-members (admin): `/drm members`, `/drm members add`, the row buttons and the group form. */
import type { Feature } from '../../kit/features.js';
import { activateButton, deactivateButton, groupButton, pageButton, resetPasswordButton } from './buttons.js';
import { commands } from './commands.js';
import { groupModal } from './modal.js';

export const members: Feature = {
  name: 'members',
  commands,
  interactions: [pageButton, resetPasswordButton, activateButton, deactivateButton, groupButton, groupModal],
};
