/** Previous/Next of `/drm site requests`: replaces the list. */
import { button } from '../../kit/interactions/registry.js';
import { SVC_ACTIONS } from '../../shared/svc/values.js';
import { showSiteRequests } from './commands.js';
import { siteRequestsValue } from './values.js';

export const interactions = [
  button({
    name: 'sites.requests-page',
    command: '/drm',
    actionId: new RegExp(`^${SVC_ACTIONS.siteRequestsPage}_`),
    value: siteRequestsValue,
    failure: "Couldn't list site requests",
    run: (ctx, v) => showSiteRequests(ctx, v.f, v.p, true),
  }),
];
