/**
 * Plan request modal submission: checks the workspace, the message length (inline errors), the
 * role (suspension: admins; no Slack call before the ack), closes the modal, sends the request, and replaces the card the
 * button was on with the result (through the response_url kept in the modal's metadata; a DM
 * when there is none). Audited by runPlanAction.
 */
import type { App, SlackViewAction } from '@slack/bolt';
import { z } from 'zod';
import { PLAN_ACTIONS, PLAN_MESSAGE_MAX } from '../../../ops/service/plan.js';
import type { AppDeps } from '../../deps.js';
import type { Message } from '../../kit/blocks.js';
import { explainError, renderError } from '../../kit/errors.js';
import { adminGateForView } from '../../kit/roles.js';
import { errorOptions, logError, modalMeta, replyFromModal, viewContext } from '../../kit/support.js';
import { serviceFor } from '../../kit/svc-support.js';
import { SVC_VIEWS } from '../../kit/svc-values.js';
import { infoView } from '../settings/render.js';
import { runPlanAction } from './commands.js';
import { PLAN_BLOCK } from './render.js';

const metaSchema = z.object({
  w: z.string().min(1),
  s: z.string().regex(/^[A-Za-z0-9]{4}$/),
  a: z.enum(['trial', 'resume', 'suspend']),
  ru: z.string().max(1000).optional(),
});

export function register(app: App, deps: AppDeps): void {
  app.view<SlackViewAction>(SVC_VIEWS.planRequest, async ({ ack, body, view, client, context }) => {
    const ctx = viewContext(deps, { body, client, context }, '/drm');
    const meta = await modalMeta(
      ctx,
      ack,
      metaSchema,
      view.private_metadata,
      PLAN_BLOCK.service,
      'This form is out of date or from another workspace: run /drm plan again.',
    );
    if (!meta) return;
    const spec = PLAN_ACTIONS[meta.a];
    const values = view.state.values;
    const service = values[PLAN_BLOCK.service]?.value?.selected_option?.value;
    const message = (values[PLAN_BLOCK.message]?.value?.value ?? '').trim();
    if (service !== 'PD001' && service !== 'PD002') {
      await ack({ response_action: 'errors', errors: { [PLAN_BLOCK.service]: 'Choose DRM or FWM.' } });
      return;
    }
    if (message.length > PLAN_MESSAGE_MAX) {
      await ack({
        response_action: 'errors',
        errors: { [PLAN_BLOCK.message]: `At most ${PLAN_MESSAGE_MAX} characters (now ${message.length}).` },
      });
      return;
    }
    // Suspension is admin-only: re-checked without a Slack call before the ack (review #1). When
    // the role must be asked from Slack, the modal shows "Sending…" and ends on a short line.
    let acked = false;
    if (spec.role === 'admin') {
      const gate = await adminGateForView(ctx, ack, {
        viewId: view.id,
        blockId: PLAN_BLOCK.service,
        what: `request a ${spec.label.toLowerCase()}`,
        action: `plan.${meta.a}`,
        pending: infoView(spec.label, ':hourglass_flowing_sand: Sending the request…'),
      });
      if (!gate.ok) return;
      acked = gate.acked;
    }
    if (!acked) await ack();
    const closeWith = async (text: string) => {
      if (!acked) return;
      await client.views
        .update({ view_id: view.id, view: infoView(spec.label, text) as never })
        .catch((err: unknown) => ctx.logger.warn({ err }, 'could not update the plan request view'));
    };
    const deliver = (msg: Message, replace: boolean) => replyFromModal(ctx, meta.ru, msg, replace);
    try {
      const { svc, siteId } = await serviceFor(ctx, meta.s);
      const { card } = await runPlanAction(ctx, {
        svc,
        siteId,
        service,
        action: meta.a,
        ...(message ? { message } : {}),
      });
      await deliver(card, true);
      await closeWith(':white_check_mark: Sent. The plan card shows the request.');
    } catch (e) {
      const opts = await errorOptions(ctx);
      logError(ctx, `plan ${meta.a} failed`, e, opts);
      await deliver(
        renderError(`Couldn't send the ${spec.label.toLowerCase()} request`, e, opts),
        false,
      ).catch((err: unknown) =>
        ctx.logger.error({ err, refId: ctx.refId }, 'could not deliver the plan error'),
      );
      await closeWith(`:warning: The request was not sent. ${explainError(e, opts).why}`);
    }
  });
}
