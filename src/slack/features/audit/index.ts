/** The audit log (admin): `/dwm audit`. */
import type { Feature } from '../../kit/features.js';
import { commands } from './commands.js';

export const audit: Feature = { name: 'audit', commands };
