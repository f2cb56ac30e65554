/** FairPlay certificate (admin): `/drm fpscert` and its form. */
import type { Feature } from '../../kit/features.js';
import { commands } from './commands.js';
import { fpsCertForm } from './modal.js';

export const fpscert: Feature = { name: 'fpscert', commands, interactions: [fpsCertForm] };
