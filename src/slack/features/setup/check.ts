/**
 * "Check the service" (admins, in the setup views): the read-only service check of
 * src/ops/doctor.ts with the workspace's saved credentials (or the environment's), shown in a
 * view pushed over the setup view (the trigger id first, then the check, then views.update).
 */
import { z } from 'zod';
import { doctorSettingsOf, runDoctor } from '../../../ops/doctor.js';
import { loadCredentials } from '../../../ops/workspace.js';
import { button } from '../../kit/interactions/registry.js';
import { WM_ACTIONS } from '../../shared/wm/values.js';
import { serviceCheckingView, serviceCheckNoticeView, serviceCheckView } from './render.js';

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
  // The admin check waits only briefly: the trigger id (3 s) opens the pushed view in time.
  opensModal: true,
  refusal: () => ({ what: 'check the service', action: 'setup.check' }),
  failure: "Couldn't check the service",
  async run(ctx, _v, { client, viewId }) {
    // The trigger id lasts 3 s: the pushed view first, the calls after. When the admin check was
    // slow it pushed a "Checking…" view already, and ctx.openView then updates that one.
    const pushed = await ctx.openView(serviceCheckingView()).catch((e: unknown) => {
      ctx.logger.warn({ err: e }, 'could not push the service check view');
      return undefined;
    });
    // Not pushed (the trigger id expired): the report takes the setup view's place.
    const shown = pushed ?? viewId;
    const say = async (text: string) => {
      if (pushed) await client.views.update({ view_id: pushed, view: serviceCheckNoticeView(text) });
      else await ctx.respond({ text });
    };
    const loaded = await loadCredentials(ctx.deps, ctx.workspace);
    const api = probeApi(ctx.deps.api);
    if (!loaded || !api) {
      await say('There are no credentials to check yet: run /dwm setup first.');
      return;
    }
    let report: Awaited<ReturnType<typeof runDoctor>>;
    try {
      report = await runDoctor({
        api,
        credentials: loaded.credentials,
        settings: doctorSettingsOf(ctx.deps.config),
        now: ctx.deps.now,
      });
    } catch (e) {
      // The pushed view never stays "Checking…": it says so, and the error reply follows.
      await say("Couldn't check the service: the bot's message says why.").catch(() => undefined);
      throw e;
    }
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
