/** Recipients: `/dwm recipients` (paged), `/dwm recipient <id>`, Details, Edit and its form. */
import type { Feature } from '../../kit/features.js';
import { detailsButton, editButton, pageButton } from './buttons.js';
import { commands } from './commands.js';
import { recipientEditModal } from './edit-modal.js';

export const recipients: Feature = {
  name: 'recipients',
  commands,
  interactions: [pageButton, detailsButton, editButton, recipientEditModal],
};
