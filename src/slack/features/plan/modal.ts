/**
 * Plan request modal submission: the message length is checked inline, the role (suspension:
 * admins) by the kit's gate (no Slack call before the ack), the modal closes, the request is
 * sent (tracked: the requester hears the provider's decision), and its card is POSTED in the
 * channel the button was in (kept in the modal's metadata; the requester's DM when the bot cannot
 * post there), so it can be rewritten in place when the provider decides. The card the button was
 * on (ephemeral) is replaced with a short line saying so, through the response_url kept in the
 * metadata. Audited by runPlanAction.
 */

import { z } from 'zod';
import { PLAN_ACTIONS, PLAN_MESSAGE_MAX } from '../../../ops/service/plan.js';
import { type Message, section } from '../../kit/blocks/blocks.js';
import { esc } from '../../kit/blocks/mrkdwn.js';
import { explainError, outcomeUnknown, renderError } from '../../kit/context/errors.js';
import { errorOptions, logError } from '../../kit/context/support.js';
import { modal } from '../../kit/interactions/registry.js';
import { postRequestCard } from '../../shared/requests/card.js';
import { infoView, serviceFor } from '../../shared/svc/support.js';
import { SVC_VIEWS, siteIdValue } from '../../shared/svc/values.js';
import { runPlanAction } from './commands.js';
import { PLAN_BLOCK } from './render.js';

const metaSchema = z.object({
  w: z.string().min(1),
  s: siteIdValue,
  a: z.enum(['trial', 'resume', 'suspend']),
  c: z
    .string()
    .regex(/^[CGD][A-Z0-9]{2,20}$/)
    .optional(),
  ru: z.string().max(1000).optional(),
  /** The card the button was on is in the channel: the new card has no admin-only buttons. */
  sh: z.literal(1).optional(),
});
type Meta = z.infer<typeof metaSchema>;
interface Data {
  service: 'PD001' | 'PD002';
  message: string;
}

/** The line that replaces the card the form was opened from (bot-authored mrkdwn). */
function sentNote(label: string, where: string): Message {
  return {
    text: `${label} request sent. Its card is in ${where} and is updated when the provider decides.`,
  };
}

/**
 * The failure reply with the message the user typed in the form (closed at the submission), so
 * that it is not lost: they can copy it into the form when they try again.
 */
function withTypedMessage(err: Message, message: string): Message {
  if (!message) return err;
  const quoted = esc(message)
    .split('\n')
    .map((l) => `>${l}`)
    .join('\n');
  return { ...err, blocks: [...(err.blocks ?? []), section(`Your message, to send again:\n${quoted}`)] };
}

export const planModal = modal<Meta, Data>({
  name: 'plan.request',
  command: '/drm',
  callbackId: SVC_VIEWS.planRequest,
  meta: metaSchema,
  stale: {
    block: PLAN_BLOCK.service,
    text: 'This form is out of date or from another workspace: run /drm plan again.',
  },
  role: (m) => PLAN_ACTIONS[m.a].role,
  gate: (m) => ({
    block: PLAN_BLOCK.service,
    what: `request a ${PLAN_ACTIONS[m.a].label.toLowerCase()}`,
    action: `plan.${m.a}`,
    pending: infoView(PLAN_ACTIONS[m.a].label, ':hourglass_flowing_sand: Sending the request…'),
  }),
  changesHome: true,
  failure: "Couldn't send the plan request",
  check(_ctx, _meta, view) {
    const values = view.state.values;
    const service = values[PLAN_BLOCK.service]?.value?.selected_option?.value;
    const message = (values[PLAN_BLOCK.message]?.value?.value ?? '').trim();
    if (service !== 'PD001' && service !== 'PD002') {
      return { errors: { [PLAN_BLOCK.service]: 'Choose DRM or FWM.' } };
    }
    if (message.length > PLAN_MESSAGE_MAX) {
      return {
        errors: {
          [PLAN_BLOCK.message]: `At most ${PLAN_MESSAGE_MAX} characters, this bot's own limit (now ${message.length}).`,
        },
      };
    }
    return { ok: { service, message } };
  },
  // The modal shows "Sending…" only when the gate had to ask Slack; it then ends on a short line
  // (`closing`). The reply goes to the card the form was opened from.
  async submit(ctx, meta, { service, message }) {
    const spec = PLAN_ACTIONS[meta.a];
    const closing = (text: string) => infoView(spec.label, text);
    const to = { responseUrl: meta.ru, inChannel: meta.sh === 1 ? meta.c : undefined };
    try {
      const { svc, siteId } = await serviceFor(ctx, meta.s);
      const r = await runPlanAction(ctx, {
        svc,
        siteId,
        service,
        action: meta.a,
        ...(message ? { message } : {}),
        shared: meta.sh === 1,
      });
      const posted = await postRequestCard(ctx, r.card, r.trackingId, meta.c ? { channelId: meta.c } : {});
      r.done();
      const sent = closing(
        ':white_check_mark: Sent. The request card shows it and is updated when the provider decides.',
      );
      if (!posted) return { closing: sent };
      const where = posted.where === 'channel' ? `<#${posted.channel}>` : 'our direct message';
      // Sent: the note replacing the old card is a courtesy; its failure is not the request's.
      return { reply: { message: sentNote(spec.label, where), replace: true, ...to }, closing: sent };
    } catch (e) {
      const opts = await errorOptions(ctx);
      logError(ctx, `plan ${meta.a} failed`, e, opts);
      const err = renderError(`Couldn't send the ${spec.label.toLowerCase()} request`, e, opts);
      return {
        reply: { message: withTypedMessage(err, message), ...to },
        closing: closing(
          `:warning: ${outcomeUnknown(e) ? '' : 'The request was not sent. '}${explainError(e, opts).why}`,
        ),
      };
    }
  },
});
