/** Diagnostics (admin): `/dwm debug`. */
import type { Feature } from '../../kit/features.js';
import { commands } from './commands.js';

export const debug: Feature = { name: 'debug', commands };
