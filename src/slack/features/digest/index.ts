/**
 * The daily digest: `/dwm digest`, `/dwm digest daily HH:MM [zone]`, `/dwm digest now`,
 * `/dwm digest off`, and the renderer of the digest itself (posted by the notify runtime,
 * src/slack/notify-runtime.ts, from the Slack-free scheduler in src/notices/digest.ts).
 */
import type { Feature } from '../../kit/features.js';
import { commands } from './commands.js';
import { digestMessage } from './render.js';

export const digest: Feature = {
  name: 'digest',
  commands,
  notifyRenderers: { digest: digestMessage },
};
