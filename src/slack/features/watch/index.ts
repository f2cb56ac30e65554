/**
 * Watch: `/dwm watch`, `/dwm unwatch`, `/dwm watches`, the watch form (and its channel picker for
 * the Home tab), the job card buttons and the subscription buttons. The background watcher itself
 * is src/slack/watch-runtime.ts; it renders with this feature's `watchRenderers`.
 */
import type { Feature } from '../../kit/features.js';
import { homePickModal } from './home-pick.js';
import { detailsButton, exportButton } from './job-buttons.js';
import { watchFormModal } from './modal.js';
import { blockRenderer } from './render-card.js';
import { adminAlertNotice, pausedNotice } from './render-subscriptions.js';
import { pageButton, resumeButton, unsubscribeButton } from './subscription-buttons.js';
import { commands as unwatchCommands } from './unwatch-command.js';
import { commands as watchCommands } from './watch-command.js';
import { commands as watchesCommands } from './watches-command.js';

export const watch: Feature = {
  name: 'watch',
  commands: [...watchCommands, ...unwatchCommands, ...watchesCommands],
  interactions: [
    watchFormModal,
    homePickModal,
    unsubscribeButton,
    resumeButton,
    pageButton,
    detailsButton,
    exportButton,
  ],
  // No channel in the Home tab: the watch command opens its channel picker first.
  homeActions: [{ entry: 'watch', command: '/dwm', path: ['watch'] }],
  watchRenderers: {
    jobCard: blockRenderer,
    subscriptionPaused: pausedNotice,
    pollingPaused: adminAlertNotice,
  },
};
