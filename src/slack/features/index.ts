/**
 * The ONE ordered list of features. Its order is the order of help (`/dwm help`, `/drm help`)
 * and of the README's generated command table: everyday commands first, admin-only ones last
 * (marked :lock: in help). Adding a feature: create its folder, export a `Feature` from its
 * index.ts, and list it here (see ARCHITECTURE.md).
 */
import type { Feature } from '../kit/features.js';
import { commandRegistry } from '../kit/features.js';
import { admins } from './admins/index.js';
import { alerts } from './alerts/index.js';
import { audit } from './audit/index.js';
import { debug } from './debug/index.js';
import { digest } from './digest/index.js';
import { drmData } from './drm-data/index.js';
import { fpscert } from './fpscert/index.js';
import { home } from './home/index.js';
import { jobs } from './jobs/index.js';
import { members } from './members/index.js';
import { plan } from './plan/index.js';
import { recipients } from './recipients/index.js';
import { register } from './register/index.js';
import { settings } from './settings/index.js';
import { setup } from './setup/index.js';
import { sharedChannels } from './shared-channels/index.js';
import { sites } from './sites/index.js';
import { watch } from './watch/index.js';
import { workflowSteps } from './workflow-steps/index.js';

export const FEATURES: readonly Feature[] = Object.freeze([
  // Everyday: watermarking (/dwm)
  jobs,
  recipients,
  register,
  watch,
  digest,
  // Everyday: the service account (/drm)
  sites,
  plan,
  drmData,
  alerts,
  home,
  // Admin-only
  members,
  settings,
  fpscert,
  setup,
  admins,
  sharedChannels,
  audit,
  debug,
  // Workflow Builder custom steps (no commands)
  workflowSteps,
]);

/**
 * Resuming the bulk registrations a previous process left unfinished (main.ts calls it once at
 * start): re-exported here because nothing outside features/ imports a feature folder (the feature
 * list is the only way in; npm run lint:arch).
 */
export { resumePendingRegistrations } from './register/index.js';

/** The registry of FEATURES (help, the README's command table, the missing-argument form). */
export const registry = commandRegistry(FEATURES);
