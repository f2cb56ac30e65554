/**
 * License-failure alerts: `/drm alerts`, `/drm alerts watch`, `/drm alerts stop`, the thresholds
 * form, and the renderer of the alerts themselves (posted by the notify runtime,
 * src/slack/notify-runtime.ts, from the Slack-free watcher in src/notices/license-alerts.ts).
 */
import type { Feature } from '../../kit/features.js';
import { alertMuteButton, alertStopButton } from './buttons.js';
import { commands } from './commands.js';
import { alertsFormModal } from './modal.js';
import { licenseAlertMessage } from './render.js';

export const alerts: Feature = {
  name: 'alerts',
  commands,
  interactions: [alertsFormModal, alertStopButton, alertMuteButton],
  notifyRenderers: { licenseAlert: licenseAlertMessage },
};
