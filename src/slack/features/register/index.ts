/**
 * Bulk registration: `/dwm register`, the form, the preview (confirm), the buttons inside them,
 * and the report's Resume / Retry failed. `resumePendingRegistrations(deps)` is for main.ts to call
 * once at start: it resumes registrations a previous process left unfinished.
 */
import type { Feature } from '../../kit/features.js';
import { backButton, invalidCsvButton } from './buttons.js';
import { commands } from './commands.js';
import { registerFormModal, registerPreviewModal } from './modals.js';
import { resumeButton } from './resume-button.js';

export { type ResumeSummary, resumePendingRegistrations } from './run.js';

export const register: Feature = {
  name: 'register',
  commands,
  interactions: [registerFormModal, registerPreviewModal, backButton, invalidCsvButton, resumeButton],
  homeActions: [{ entry: 'register', command: '/dwm', path: ['register'] }],
};
