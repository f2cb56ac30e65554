/**
 * Settings form submission (admins): the values are checked by the op first (inline errors per
 * field), the role is re-checked without a Slack call before the ack (adminGateForView), then
 * the modal shows "Saving…", the update is sent and audited once (field names only),
 * and the modal ends on "Saved" or back on the form with the service's error.
 */
import type { App, SlackViewAction } from '@slack/bolt';
import { z } from 'zod';
import { ValidationError } from '../../../api/errors.js';
import { type SettingsUpdateInput, toSettingsUpdate, updateSettings } from '../../../ops/service/index.js';
import type { AppDeps } from '../../deps.js';
import { explainError } from '../../kit/errors.js';
import { adminGateForView } from '../../kit/roles.js';
import { audited, errorOptions, logError, modalMeta, viewContext } from '../../kit/support.js';
import { serviceFor } from '../../kit/svc-support.js';
import { SVC_VIEWS } from '../../kit/svc-values.js';
import { infoView, SETTINGS_BLOCK, settingsEditModal, settingsSavedView } from './render.js';

const metaSchema = z.object({ w: z.string().min(1), s: z.string().regex(/^[A-Za-z0-9]{4}$/) });

const FIELD_BLOCK: Record<string, string> = {
  'license callback URL': SETTINGS_BLOCK.license,
  'package callback URL': SETTINGS_BLOCK.package,
  'token duration': SETTINGS_BLOCK.duration,
};

export function register(app: App, deps: AppDeps): void {
  app.view<SlackViewAction>(SVC_VIEWS.settingsEdit, async ({ ack, body, view, client, context }) => {
    const ctx = viewContext(deps, { body, client, context }, '/drm');
    const meta = await modalMeta(
      ctx,
      ack,
      metaSchema,
      view.private_metadata,
      SETTINGS_BLOCK.duration,
      'This form is out of date: run /drm settings again.',
    );
    if (!meta) return;
    const val = (b: string) => view.state.values[b]?.value?.value ?? '';
    const input: SettingsUpdateInput = {
      licenseCallbackUrl: val(SETTINGS_BLOCK.license).trim(),
      packageCallbackUrl: val(SETTINGS_BLOCK.package).trim(),
      tokenDuration: val(SETTINGS_BLOCK.duration).trim(),
    };
    let fieldsSent: string[];
    try {
      fieldsSent = Object.keys(toSettingsUpdate(input));
    } catch (e) {
      if (e instanceof ValidationError) {
        const errors: Record<string, string> = {};
        for (const i of e.issues)
          errors[FIELD_BLOCK[i.field] ?? SETTINGS_BLOCK.duration] = i.message.slice(0, 150);
        await ack({ response_action: 'errors', errors });
        return;
      }
      throw e;
    }
    const saving = infoView('Edit DRM settings', 'Saving…');
    // The role re-check never calls Slack before the ack (review #1).
    const gate = await adminGateForView(ctx, ack, {
      viewId: view.id,
      blockId: SETTINGS_BLOCK.duration,
      what: 'change the DRM settings',
      action: 'settings.update',
      pending: saving,
    });
    if (!gate.ok) return;
    if (!gate.acked) await ack({ response_action: 'update', view: saving as never });
    try {
      const { svc, siteId } = await serviceFor(ctx, meta.s);
      const r = await audited(ctx, 'settings.update', `changed ${fieldsSent.join(', ')}`, siteId, () =>
        updateSettings(svc, siteId, input),
      );
      // Audited once, by audited() above (review #13).
      await client.views.update({ view_id: view.id, view: settingsSavedView(siteId, r.changed) as never });
    } catch (e) {
      const opts = await errorOptions(ctx);
      logError(ctx, 'settings update failed', e, opts);
      const ex = explainError(e, opts);
      const s = {
        siteId: meta.s,
        licenseCallbackUrl: input.licenseCallbackUrl ?? '',
        packageCallbackUrl: input.packageCallbackUrl ?? '',
        tokenDuration: Number(input.tokenDuration) || 0,
      };
      await client.views
        .update({
          view_id: view.id,
          view: settingsEditModal(
            s,
            JSON.stringify(meta),
            `Nothing was saved. ${ex.why} ${ex.next}`,
          ) as never,
        })
        .catch((err: unknown) => ctx.logger.error({ err }, 'could not update the settings view'));
    }
  });
}
