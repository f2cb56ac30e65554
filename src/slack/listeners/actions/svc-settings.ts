/**
 * "Edit callbacks and duration" (admins): opens a Loading… modal at once (trigger id first),
 * reads the current settings, then fills the form in with views.update. Only the callback URLs
 * and token duration go into the form; the masked secrets are not part of it.
 */
import type { App, BlockAction, ButtonAction } from '@slack/bolt';
import { getSettings } from '../../../ops/service/index.js';
import type { AppDeps } from '../../deps.js';
import { explainError } from '../../render/errors.js';
import { decodeValue, SVC_ACTIONS, settingsValue } from '../../render/svc/common.js';
import { infoView, settingsEditModal } from '../../render/svc/settings.js';
import { requireAdmin } from '../../roles.js';
import { actionContext, badValue, errorOptions, logError, respondError, sameWorkspace } from '../support.js';
import { serviceFor } from './svc-support.js';

export function register(app: App, deps: AppDeps): void {
  app.action<BlockAction<ButtonAction>>(
    SVC_ACTIONS.settingsEdit,
    async ({ ack, body, action, client, respond, context }) => {
      await ack();
      const ctx = actionContext(deps, { body, client, respond, context }, '/drm');
      const v = decodeValue(settingsValue, action.value);
      if (!v) return badValue(ctx);
      if (!(await sameWorkspace(ctx, v.w))) return;
      if (!(await requireAdmin(ctx, 'change the DRM settings', 'settings.update'))) return;
      let viewId: string | undefined;
      try {
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
        const opts = await errorOptions(ctx);
        logError(ctx, 'settings load failed', e, opts);
        const ex = explainError(e, opts);
        if (viewId) {
          await client.views
            .update({
              view_id: viewId,
              view: infoView(
                'Edit DRM settings',
                `:warning: Couldn't read the settings.\n${ex.why}\n${ex.next}`,
              ) as never,
            })
            .catch(() => undefined);
        }
      }
    },
  );
}
