/**
 * Plan card buttons: "Request trial extension / resume / suspension" open the request modal (the
 * trigger id is used first, before any service call); "Cancel request" cancels the pending
 * request shown on the card (re-read first: an old card never cancels a newer request) and
 * replaces the card with the result. A second click on the same Cancel is told it is already
 * done (one upstream cancel per card: the kit's `once`).
 */
import { PLAN_ACTIONS } from '../../../ops/service/plan.js';
import { button } from '../../kit/interactions/registry.js';
import { serviceFor } from '../../shared/svc/support.js';
import { decodeValue, SVC_ACTIONS } from '../../shared/svc/values.js';
import { runPlanAction } from './commands.js';
import { planRequestModal } from './render.js';
import { type PlanValue, planValue } from './values.js';

type RequestValue = PlanValue & { a: Exclude<PlanValue['a'], 'cancel'> };

export const requestButton = button<RequestValue>({
  name: 'plan.request',
  command: '/drm',
  actionId: new RegExp(`^${SVC_ACTIONS.planRequest}_`),
  value: (raw) => {
    const v = decodeValue(planValue, raw);
    return v && v.a !== 'cancel' ? (v as RequestValue) : undefined;
  },
  role: (v) => PLAN_ACTIONS[v.a].role,
  opensModal: true,
  refusal: (v) => ({
    what: `request a ${PLAN_ACTIONS[v.a].label.toLowerCase()}`,
    action: `plan.${v.a}`,
    title: PLAN_ACTIONS[v.a].label,
  }),
  changesHome: true,
  failure: (v) => `Couldn't open the ${PLAN_ACTIONS[v.a].label.toLowerCase()} form`,
  async run(ctx, v, { responseUrl, inChannel }) {
    // The channel travels with the form: the request's card is posted there on submit.
    // A card in the channel (not ephemeral) is replaced for everyone: `sh` keeps admin buttons off
    // (and the channel's sharing is checked before it is replaced: `replyFromModal`).
    const shared = inChannel !== undefined;
    const meta = JSON.stringify({
      w: v.w,
      s: v.s,
      a: v.a,
      ...(ctx.channelId ? { c: ctx.channelId } : {}),
      ...(responseUrl ? { ru: responseUrl } : {}),
      ...(shared ? { sh: 1 } : {}),
    });
    await ctx.openView(planRequestModal(v.a, v.s, v.v, meta));
  },
});

export const cancelButton = button<PlanValue>({
  name: 'plan.cancel',
  command: '/drm',
  actionId: SVC_ACTIONS.planCancel,
  value: (raw) => {
    const v = decodeValue(planValue, raw);
    return v?.a === 'cancel' ? v : undefined;
  },
  role: 'admin',
  refusal: () => ({ what: 'cancel a plan request', action: 'plan.cancel' }),
  // A pending request is cancelled once: the claim outlives any double click or retry.
  once: {
    ttlMs: 10 * 60_000,
    done: 'This request was already cancelled from this card (or is being cancelled now).',
  },
  changesHome: true,
  failure: "Couldn't cancel the request",
  async run(ctx, v, { inChannel }) {
    const { svc, siteId } = await serviceFor(ctx, v.s);
    const r = await runPlanAction(ctx, {
      svc,
      siteId,
      service: v.v,
      action: 'cancel',
      shared: inChannel !== undefined,
      ...(v.r ? { requestId: v.r } : {}),
    });
    await ctx.respond(r.card, { replaceOriginal: true, share: false });
    // Then the outcome: the request's own card (if it is elsewhere) rewritten, and a DM to the
    // requester when it was someone else's request. Never "cancelled outside the bot".
    r.done();
  },
});
