/**
 * "Edit callbacks and duration" (admins): opens a Loading… modal at once (trigger id first; the
 * role is awaited only briefly, see admitToModal),
 * reads the current settings, then fills the form in with views.update. Only the callback URLs
 * and token duration go into the form; the masked secrets are not part of it.
 */
import type { App, BlockAction, ButtonAction } from '@slack/bolt';
import { getSettings } from '../../../ops/service/index.js';
import type { AppDeps } from '../../deps.js';
import { admitToModal } from '../../kit/roles.js';
import { actionContext, buttonValue, respondError } from '../../kit/support.js';
import { serviceFor, showLoadFailure } from '../../kit/svc-support.js';
import { SVC_ACTIONS, settingsValue } from '../../kit/svc-values.js';
import { infoView, settingsEditModal } from './render.js';

export function register(app: App, deps: AppDeps): void {
  app.action<BlockAction<ButtonAction>>(
    SVC_ACTIONS.settingsEdit,
    async ({ ack, body, action, client, respond, context }) => {
      await ack();
      const ctx = actionContext(deps, { body, client, respond, context }, '/drm');
      const v = await buttonValue(ctx, settingsValue, action.value);
      if (!v) return;
      let viewId: string | undefined;
      try {
        // The trigger id lasts 3 s: the role is awaited only briefly (review #3).
        const ok = await admitToModal(ctx, {
          what: 'change the DRM settings',
          action: 'settings.update',
          title: 'Edit DRM settings',
        });
        if (!ok) return;
        viewId = await ctx.openView(infoView('Edit DRM settings', 'Loading the current settings…', 'Cancel'));
      } catch (e) {
        await respondError(ctx, "Couldn't open the settings form", e);
        return;
      }
      try {
        const { svc, siteId } = await serviceFor(ctx, v.s);
        const s = await getSettings(svc, siteId);
        const meta = JSON.stringify({ w: v.w, s: siteId });
        if (viewId) await client.views.update({ view_id: viewId, view: settingsEditModal(s, meta) as never });
      } catch (e) {
        await showLoadFailure(
          ctx,
          viewId,
          'Edit DRM settings',
          "Couldn't read the settings.",
          'settings load failed',
          e,
        );
      }
    },
  );
}
