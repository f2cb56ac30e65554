/**
 * Setup modal submission: check formats (inline errors via `response_action: 'errors'`), re-check
 * the role without calling Slack before the ack (the kit's admin gate), answer at once with a
 * "Verifying…" view (`response_action: 'update'`), verify live, then `views.update` to a success
 * view or back to the form with the service's error (typed secrets discarded).
 */
import type { ViewOutput } from '@slack/bolt';
import { z } from 'zod';
import {
  checkSetupForm,
  maskSecret,
  SECRET_FIELDS,
  SETUP_FIELDS,
  type SetupForm,
  saveSetup,
  setupStatus,
  verifySetup,
} from '../../../ops/setup.js';
import { loadCredentials } from '../../../ops/workspace.js';
import { StoreUnavailableError } from '../../../store/errors.js';
import { esc } from '../../kit/blocks/mrkdwn.js';
import { adminPending, modal } from '../../kit/interactions/registry.js';
import { notifyCredentialsSaved } from '../../kit/runtime/hooks.js';
import {
  SETUP_BLOCK,
  SETUP_CALLBACK,
  setupDefaults,
  setupFormView,
  setupInlineErrors,
  setupSuccessView,
  verifyingView,
} from './render.js';

/** Read the form fields out of view state (plain_text_input values keyed by our block ids). */
export function readSetupForm(view: ViewOutput): Partial<SetupForm> {
  const out: Partial<SetupForm> = {};
  for (const f of SETUP_FIELDS) {
    const v = view.state.values[SETUP_BLOCK[f]]?.value?.value;
    if (typeof v === 'string') out[f] = v;
  }
  return out;
}

const metaSchema = z.object({ w: z.string().min(1) });
type Meta = z.infer<typeof metaSchema>;
interface Data {
  form: Partial<SetupForm>;
  loaded: Awaited<ReturnType<typeof loadCredentials>>;
  checked: Extract<ReturnType<typeof checkSetupForm>, { ok: true }>;
  defaults: ReturnType<typeof setupDefaults>;
}

export const setupModal = modal<Meta, Data>({
  name: 'setup.save',
  callbackId: SETUP_CALLBACK,
  meta: metaSchema,
  stale: { block: SETUP_BLOCK.siteIds, text: 'This form is out of date: close it and run /dwm setup again.' },
  ...adminPending(
    { block: SETUP_BLOCK.siteIds, what: 'change the service setup', action: 'setup.save' },
    verifyingView,
  ),
  changesHome: true,
  failure: "Couldn't save the setup",
  async check(ctx, _meta, view) {
    const deps = ctx.deps;
    // One store get before the ack (cheap); no Slack call before it.
    const loaded = await loadCredentials(deps, ctx.workspace, { unreadable: 'absent' });
    if (loaded?.readOnly) return { answer: 'close' };
    const form = readSetupForm(view);
    // The upstream allow-list checks the URLs inline, before any connection.
    const defaults = setupDefaults(deps);
    const checked = checkSetupForm(form, loaded?.credentials, defaults);
    if (!checked.ok)
      return { errors: setupInlineErrors(checked.errors, new Set(Object.keys(view.state.values))) };
    return { ok: { form, loaded, checked, defaults } };
  },
  async submit(ctx, _meta, { form, loaded, checked, defaults }) {
    const deps = ctx.deps;
    const creds = checked.credentials;
    const sites = creds.siteIds.join(', ');
    try {
      const result = await verifySetup(deps, creds);
      if (result.ok) {
        await saveSetup(deps, ctx.workspace, creds, result.verifiedAt, ctx.userId);
        // Resume polling at once if it was paused for bad credentials (it would otherwise resume
        // at the next poll interval, when the watcher sees the newer verifiedAt).
        await notifyCredentialsSaved(deps, ctx.workspace).catch((err: unknown) =>
          ctx.logger.warn({ err }, 'could not resume polling after setup'),
        );
        // Saved: a failing audit write must not turn that into "Nothing was saved".
        await ctx
          .audit({ action: 'setup.save', detail: `saved and verified sites ${sites}`, result: 'ok' })
          .catch((e: unknown) => ctx.logger.warn({ err: e }, 'audit append failed'));
        const [status, tz] = await Promise.all([setupStatus(deps, ctx.workspace), ctx.timeZone()]);
        if (result.notes)
          ctx.logger.info({ refId: ctx.refId, notes: result.notes }, 'setup saved with a note');
        return { view: setupSuccessView(status, tz, result.notes, ctx.workspace) };
      }
      // The service's explanation of a refusal (secrets masked by the API layer and the logger).
      ctx.logger.warn(
        { refId: ctx.refId, failures: result.failures.map((f) => ({ field: f.field, message: f.message })) },
        'setup credentials did not verify',
      );
      await ctx.audit({
        action: 'setup.save',
        detail: `verification failed for sites ${sites}: ${result.failures.map((f) => f.message).join(' ')}`,
        result: 'error',
      });
      const kept: Partial<SetupForm> = { ...form };
      for (const f of SECRET_FIELDS) delete kept[f];
      const c = loaded?.credentials;
      const savedSecrets: { wmAccessKey?: string; svcSecretKey?: string } = {};
      if (c?.watermarking) savedSecrets.wmAccessKey = maskSecret(c.watermarking.accessKey);
      if (c?.service) savedSecrets.svcSecretKey = maskSecret(c.service.secretKey);
      return {
        view: setupFormView({
          values: kept,
          defaults,
          savedSecrets,
          workspace: ctx.workspace,
          failure: result.failures.map((f) => `• ${esc(f.message)}`),
          secretsDiscarded: SECRET_FIELDS.some((f) => !!form[f]?.trim()),
        }),
      };
    } catch (err) {
      // The store down while saving: said as such (the write may or may not have landed; saving
      // again is safe), not as an unexpected error of the bot's. Typed secrets are not shown back.
      const storeDown = err instanceof StoreUnavailableError;
      const view = setupFormView({
        values: Object.fromEntries(
          Object.entries(form).filter(([k]) => !SECRET_FIELDS.includes(k as (typeof SECRET_FIELDS)[number])),
        ),
        defaults,
        workspace: ctx.workspace,
        failure: [
          storeDown
            ? "• The bot's storage is unavailable right now, so the credentials may not have been saved. Enter the keys again and submit in a minute: saving again is safe."
            : `• Something unexpected went wrong on our side (reference \`${ctx.refId}\`). Nothing was saved.`,
        ],
        secretsDiscarded: true,
      });
      return { again: { error: err, view } };
    }
  },
});
