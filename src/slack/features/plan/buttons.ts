/**
 * Plan card buttons: "Request trial extension / resume / suspension" open the request modal (the
 * trigger id is used first, before any service call); "Cancel request" cancels the pending
 * request shown on the card (re-read first: an old card never cancels a newer request) and
 * replaces the card with the result. Every click re-checks the workspace and the role.
 */
import type { App, BlockAction, ButtonAction } from '@slack/bolt';
import { PLAN_ACTIONS } from '../../../ops/service/plan.js';
import type { AppDeps } from '../../deps.js';
import { admitToModal, requireAdmin } from '../../kit/roles.js';
import { actionContext, badValue, respondError, sameWorkspace } from '../../kit/support.js';
import { serviceFor } from '../../kit/svc-support.js';
import { decodeValue, planValue, SVC_ACTIONS } from '../../kit/svc-values.js';
import { runPlanAction } from './commands.js';
import { planRequestModal } from './render.js';

export function register(app: App, deps: AppDeps): void {
  app.action<BlockAction<ButtonAction>>(
    new RegExp(`^${SVC_ACTIONS.planRequest}_`),
    async ({ ack, body, action, client, respond, context }) => {
      await ack();
      const ctx = actionContext(deps, { body, client, respond, context }, '/drm');
      const v = decodeValue(planValue, action.value);
      if (!v || v.a === 'cancel') return badValue(ctx);
      if (!(await sameWorkspace(ctx, v.w))) return;
      const spec = PLAN_ACTIONS[v.a];
      try {
        // The trigger id lasts 3 s: the role is awaited only briefly (review #3).
        if (
          spec.role === 'admin' &&
          !(await admitToModal(ctx, {
            what: `request a ${spec.label.toLowerCase()}`,
            action: `plan.${v.a}`,
            title: spec.label,
          }))
        ) {
          return;
        }
        const meta = JSON.stringify({
          w: v.w,
          s: v.s,
          a: v.a,
          ...(body.response_url ? { ru: body.response_url } : {}),
        });
        await ctx.openView(planRequestModal(v.a, v.s, v.v, meta));
      } catch (e) {
        await respondError(ctx, `Couldn't open the ${spec.label.toLowerCase()} form`, e);
      }
    },
  );

  app.action<BlockAction<ButtonAction>>(
    SVC_ACTIONS.planCancel,
    async ({ ack, body, action, client, respond, context }) => {
      await ack();
      const ctx = actionContext(deps, { body, client, respond, context }, '/drm');
      const v = decodeValue(planValue, action.value);
      if (v?.a !== 'cancel') return badValue(ctx);
      if (!(await sameWorkspace(ctx, v.w))) return;
      if (!(await requireAdmin(ctx, 'cancel a plan request', 'plan.cancel'))) return;
      try {
        const { svc, siteId } = await serviceFor(ctx, v.s);
        const { card } = await runPlanAction(ctx, {
          svc,
          siteId,
          service: v.v,
          action: 'cancel',
          ...(v.r ? { requestId: v.r } : {}),
        });
        await ctx.respond(card, { replaceOriginal: true, share: false });
      } catch (e) {
        await respondError(ctx, "Couldn't cancel the request", e);
      }
    },
  );
}
