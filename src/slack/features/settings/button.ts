/**
 * "Edit callbacks and duration" (admins): opens a Loading… modal at once (trigger id first; the
 * role is awaited only briefly, see admitToModal), reads the current settings, then fills the
 * form in with views.update. Only the callback URLs and token duration go into the form; the
 * masked secrets are not part of it.
 */
import { getSettings } from '../../../ops/service/index.js';
import { button } from '../../kit/interactions/registry.js';
import { infoView, serviceFor, showLoadFailure } from '../../shared/svc/support.js';
import { SVC_ACTIONS } from '../../shared/svc/values.js';
import { settingsEditModal } from './render.js';
import { settingsValue } from './values.js';

export const editButton = button({
  name: 'settings.edit',
  command: '/drm',
  actionId: SVC_ACTIONS.settingsEdit,
  value: settingsValue,
  role: 'admin',
  opensModal: true,
  refusal: () => ({ what: 'change the DRM settings', action: 'settings.update', title: 'Edit DRM settings' }),
  failure: "Couldn't open the settings form",
  async run(ctx, v) {
    const viewId = await ctx.openView(
      infoView('Edit DRM settings', 'Loading the current settings…', 'Cancel'),
    );
    try {
      const { svc, siteId } = await serviceFor(ctx, v.s);
      const s = await getSettings(svc, siteId);
      const meta = JSON.stringify({ w: v.w, s: siteId });
      if (viewId) await ctx.client.views.update({ view_id: viewId, view: settingsEditModal(s, meta) });
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
});
