/**
 * Feature entry point: service (`/drm`: sites, plan requests, DRM data, stats, sub-members,
 * settings, FairPlay certificate). Command modules are imported for their `registry.add` side
 * effect (order = help order); actions and views are registered in `register`.
 */
import type { App } from '@slack/bolt';
import type { AppDeps } from '../../deps.js';
import '../../features/sites/commands.js';
import '../../features/plan/commands.js';
import '../../features/drm-data/commands.js';
import '../../features/members/commands.js';
import '../../features/settings/commands.js';
import '../../features/fpscert/commands.js';
import { register as dataActions } from '../../features/drm-data/buttons.js';
import { register as fpsCertView } from '../../features/fpscert/modal.js';
import { register as memberActions } from '../../features/members/buttons.js';
import { register as memberViews } from '../../features/members/modal.js';
import { register as planActions } from '../../features/plan/buttons.js';
import { register as planViews } from '../../features/plan/modal.js';
import { register as settingsActions } from '../../features/settings/button.js';
import { register as settingsViews } from '../../features/settings/modal.js';
import { register as siteActions } from '../../features/sites/buttons.js';

export function register(app: App, deps: AppDeps): void {
  for (const r of [
    siteActions,
    planActions,
    dataActions,
    memberActions,
    settingsActions,
    planViews,
    memberViews,
    settingsViews,
    fpsCertView,
  ]) {
    r(app, deps);
  }
}
