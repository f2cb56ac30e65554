/** Previous/Next of `/drm site requests`: re-checks the workspace, replaces the list. */
import type { App, BlockAction, ButtonAction } from '@slack/bolt';
import type { AppDeps } from '../../deps.js';
import { actionContext, buttonValue, respondError } from '../../kit/support.js';
import { SVC_ACTIONS, siteRequestsValue } from '../../kit/svc-values.js';
import { showSiteRequests } from './commands.js';

export function register(app: App, deps: AppDeps): void {
  app.action<BlockAction<ButtonAction>>(
    new RegExp(`^${SVC_ACTIONS.siteRequestsPage}_`),
    async ({ ack, body, action, client, respond, context }) => {
      await ack();
      const ctx = actionContext(deps, { body, client, respond, context }, '/drm');
      const v = await buttonValue(ctx, siteRequestsValue, action.value);
      if (!v) return;
      try {
        await showSiteRequests(ctx, v.f, v.p, true);
      } catch (e) {
        await respondError(ctx, "Couldn't list site requests", e);
      }
    },
  );
}
