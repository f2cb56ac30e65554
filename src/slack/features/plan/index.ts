/** Plan: `/drm plan` (the card), the direct requests, the card's buttons and the request form. */
import type { Feature } from '../../kit/features.js';
import { requestOutcomeRenderers } from '../../shared/requests/outcome.js';
import { cancelButton, requestButton } from './buttons.js';
import { commands } from './commands.js';
import { planModal } from './modal.js';

export const plan: Feature = {
  name: 'plan',
  commands,
  interactions: [requestButton, cancelButton, planModal],
  // The outcome DM and card update of plan requests (shared with sites: shared/requests/outcome.ts).
  notifyRenderers: requestOutcomeRenderers,
  // The plan card (latest request + the buttons to ask for a change), not the request itself: a
  // Home button must not send a request to the provider without a confirmation step.
  homeActions: [{ entry: 'trial', command: '/drm', path: ['plan'] }],
};
