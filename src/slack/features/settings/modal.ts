/**
 * Settings form submission (admins): the values are checked by the op first (inline errors per
 * field), the role is re-checked without a Slack call before the ack (the kit's admin gate), then
 * the modal shows "Saving…", the update is sent and audited once (field names only), and the
 * modal ends on "Saved" or back on the form with the service's error.
 */

import { z } from 'zod';
import { ValidationError } from '../../../api/errors.js';
import { type SettingsUpdateInput, toSettingsUpdate, updateSettings } from '../../../ops/service/index.js';
import { explainError, outcomeUnknown } from '../../kit/context/errors.js';
import { audited, errorOptions } from '../../kit/context/support.js';
import { issueErrors } from '../../kit/interactions/form-errors.js';
import { adminPending, modal } from '../../kit/interactions/registry.js';
import { infoView, serviceFor } from '../../shared/svc/support.js';
import { SVC_VIEWS, siteIdValue } from '../../shared/svc/values.js';
import { SETTINGS_BLOCK, settingsEditModal, settingsSavedView } from './render.js';

const metaSchema = z.object({ w: z.string().min(1), s: siteIdValue });

const FIELD_BLOCK: Record<string, string> = {
  'license callback URL': SETTINGS_BLOCK.license,
  'package callback URL': SETTINGS_BLOCK.package,
  'token duration': SETTINGS_BLOCK.duration,
};

const saving = () => infoView('Edit DRM settings', 'Saving…');

type Meta = z.infer<typeof metaSchema>;
interface Data {
  input: SettingsUpdateInput;
  fieldsSent: string[];
}

export const settingsModal = modal<Meta, Data>({
  name: 'settings.update',
  command: '/drm',
  callbackId: SVC_VIEWS.settingsEdit,
  meta: metaSchema,
  stale: { block: SETTINGS_BLOCK.duration, text: 'This form is out of date: run /drm settings again.' },
  ...adminPending(
    { block: SETTINGS_BLOCK.duration, what: 'change the DRM settings', action: 'settings.update' },
    saving,
  ),
  failure: "Couldn't save the DRM settings",
  check(_ctx, _meta, view) {
    const val = (b: string) => view.state.values[b]?.value?.value ?? '';
    const input: SettingsUpdateInput = {
      licenseCallbackUrl: val(SETTINGS_BLOCK.license).trim(),
      packageCallbackUrl: val(SETTINGS_BLOCK.package).trim(),
      tokenDuration: val(SETTINGS_BLOCK.duration).trim(),
    };
    try {
      return { ok: { input, fieldsSent: Object.keys(toSettingsUpdate(input)) } };
    } catch (e) {
      if (!(e instanceof ValidationError)) throw e;
      return { errors: issueErrors(e.issues, FIELD_BLOCK, SETTINGS_BLOCK.duration) };
    }
  },
  async submit(ctx, meta, { input, fieldsSent }) {
    try {
      const { svc, siteId } = await serviceFor(ctx, meta.s);
      // Audited once, here.
      const r = await audited(ctx, 'settings.update', `changed ${fieldsSent.join(', ')}`, siteId, () =>
        updateSettings(svc, siteId, input),
      );
      return { view: settingsSavedView(siteId, r.changed) };
    } catch (e) {
      // The form again with what was entered and the service's error.
      const ex = explainError(e, await errorOptions(ctx));
      const s = {
        siteId: meta.s,
        licenseCallbackUrl: input.licenseCallbackUrl ?? '',
        packageCallbackUrl: input.packageCallbackUrl ?? '',
        tokenDuration: Number(input.tokenDuration) || 0,
      };
      const why = `${outcomeUnknown(e) ? '' : 'Nothing was saved. '}${ex.why} ${ex.next}`;
      return { again: { error: e, view: settingsEditModal(s, JSON.stringify(meta), why) } };
    }
  },
});
