/**
 * Feature entry point: service (`/drm`: sites, plan requests, DRM data, stats, sub-members,
 * settings, FairPlay certificate). Command modules are imported for their `registry.add` side
 * effect (order = help order); actions and views are registered in `register`.
 */
import type { App } from '@slack/bolt';
import type { AppDeps } from '../../deps.js';
import '../commands/svc-sites.js';
import '../commands/svc-plan.js';
import '../commands/svc-data.js';
import '../commands/svc-members.js';
import '../commands/svc-settings.js';
import '../commands/svc-fpscert.js';
import { register as dataActions } from '../actions/svc-data.js';
import { register as memberActions } from '../actions/svc-members.js';
import { register as planActions } from '../actions/svc-plan.js';
import { register as settingsActions } from '../actions/svc-settings.js';
import { register as siteActions } from '../actions/svc-sites.js';
import { register as fpsCertView } from '../views/svc-fpscert.js';
import { register as memberViews } from '../views/svc-members.js';
import { register as planViews } from '../views/svc-plan.js';
import { register as settingsViews } from '../views/svc-settings.js';

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
