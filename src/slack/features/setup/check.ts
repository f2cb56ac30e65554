/**
 * "Check the service" (admins, in the setup views): the read-only service check of
 * src/ops/doctor.ts with the workspace's saved credentials (or the environment's), shown in a
 * view pushed over the setup view (the trigger id first, then the check, then views.update).
 */
import { z } from 'zod';
import { doctorSettingsOf, runDoctor } from '../../../ops/doctor.js';
import { loadCredentials } from '../../../ops/workspace.js';
import { button } from '../../kit/interactions.js';
import { WM_ACTIONS } from '../../kit/wm-values.js';
import { serviceCheckingView, serviceCheckView } from './render.js';

const valueSchema = z.object({ w: z.string().min(1) });

/** The API factory's internals the check reads through (the bot's factory has them). */
function probeApi(api: object) {
  return 'http' in api && 'jwt' in api && 'tokens' in api
    ? (api as Parameters<typeof runDoctor>[0]['api'])
    : undefined;
}

export const checkServiceButton = button({
  name: 'setup.check',
  actionId: WM_ACTIONS.setupCheck,
  surface: 'modal',
  value: valueSchema,
  role: 'admin',
  refusal: () => ({ what: 'check the service', action: 'setup.check' }),
  failure: "Couldn't check the service",
  async run(ctx, _v, { client, viewId }) {
    // The trigger id lasts 3 s: the pushed view first, the calls after.
    let shown: string | undefined;
    if (ctx.triggerId) {
      const r = await client.views
        .push({ trigger_id: ctx.triggerId, view: serviceCheckingView() })
        .catch(() => undefined);
      shown = r?.view?.id;
    }
    shown ??= viewId;
    const loaded = await loadCredentials(ctx.deps, ctx.workspace);
    const api = probeApi(ctx.deps.api);
    if (!loaded || !api) {
      await ctx.respond({ text: 'There are no credentials to check yet: run /dwm setup first.' });
      return;
    }
    const report = await runDoctor({
      api,
      credentials: loaded.credentials,
      settings: doctorSettingsOf(ctx.deps.config),
      now: ctx.deps.now,
    });
    ctx.logger.info(
      { refId: ctx.refId, findings: report.findings.map((f) => ({ id: f.id, status: f.status })) },
      'service check run',
    );
    await ctx
      .audit({
        action: 'setup.check',
        detail: report.needsAction
          ? `settings needed: ${report.envLines.join(' ')}`.slice(0, 500)
          : 'nothing to set',
        result: 'ok',
      })
      .catch((e: unknown) => ctx.logger.warn({ err: e }, 'audit append failed'));
    if (shown) await client.views.update({ view_id: shown, view: serviceCheckView(report) });
  },
});
