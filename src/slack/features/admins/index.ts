/** Who is an admin (admin): `/dwm setup admins [add|remove|group]`, `/dwm setup audit-channel`. */
import type { Feature } from '../../kit/features.js';
import { commands } from './commands.js';

export const admins: Feature = { name: 'admins', commands };
