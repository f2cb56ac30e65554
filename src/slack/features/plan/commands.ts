import type { ServiceCode } from '../../../api/codes.js';
import type { ServiceClient } from '../../../api/types.js';
import { cancelPlanRequestTracked, requestChangeTracked } from '../../../ops/request-outcomes.js';
import {
  getPlanState,
  listSites,
  PLAN_ACTIONS,
  type PlanAction,
  type PlanRequestView,
  type PlanState,
  parseServiceCode,
  serviceLabel,
} from '../../../ops/service/index.js';
import { cardMetaOf } from '../../kit/blocks/cards.js';
import { code } from '../../kit/blocks/mrkdwn.js';
import { optional, rest, values } from '../../kit/commands/parse.js';
import { commandList } from '../../kit/commands/registry.js';
import type { CommandContext } from '../../kit/context/context.js';
import { replyAudience } from '../../kit/context/roles/admission.js';
import { audited } from '../../kit/context/support.js';
import { kickNotify } from '../../kit/runtime/notify-kick.js';
import { postRequestCard } from '../../shared/requests/card.js';
import { serviceFor, siteOption } from '../../shared/svc/support.js';
import { planBanner, planCard } from './render.js';

const list = commandList();

const SERVICE_WORDS = new Set(['drm', 'fwm', 'pd001', 'pd002']);

/** The plan state with the product's status (so resume/suspend are offered only when they apply). */
export async function loadPlanState(
  svc: ServiceClient,
  siteId: string,
  service: ServiceCode,
): Promise<PlanState> {
  const sites = await listSites(svc);
  const product = sites.find((s) => s.siteId === siteId)?.products.find((p) => p.serviceCode === service);
  return getPlanState(svc, siteId, service, product ? { productStatus: product.status } : {});
}

export interface PlanActionResult {
  card: ReturnType<typeof planCard>;
  /** A new request: its tracking id (post `card` as a message and attach it: postRequestCard). */
  trackingId?: string;
  /**
   * Call once the reply is out: a cancel of a tracked request delivers its outcome (the card
   * rewritten in place; a DM to the requester when someone else cancelled) right after it, so the
   * reply never overwrites the outcome.
   */
  done(): void;
}

/**
 * Do one plan action and build the new card. Shared by the direct forms, the buttons and the
 * modal. Every request goes through the tracked ops (src/ops/request-outcomes.ts): the requester
 * hears the provider's decision, and a cancel through the bot is never reported as "cancelled
 * elsewhere".
 */
export async function runPlanAction(
  ctx: CommandContext,
  a: {
    svc: ServiceClient;
    siteId: string;
    service: ServiceCode;
    action: PlanAction;
    message?: string;
    requestId?: string;
    /** The card being replaced is in the channel (read by everyone): no admin-only buttons. */
    shared?: boolean;
  },
): Promise<PlanActionResult> {
  const spec = PLAN_ACTIONS[a.action];
  const detail = `${spec.label} for ${a.service === 'PD001' ? 'DRM' : 'FWM'}${a.requestId ? ` (request ${a.requestId})` : ''}`;
  let kick = false;
  let trackingId: string | undefined;
  const result: PlanRequestView = await audited(ctx, `plan.${a.action}`, detail, a.siteId, async () => {
    if (a.action === 'cancel') {
      const c = await cancelPlanRequestTracked(ctx.deps, ctx.workspace, a.svc, {
        siteId: a.siteId,
        service: a.service,
        ...(a.requestId ? { requestId: a.requestId } : {}),
        cancelledBy: ctx.userId,
        kick: () => {
          kick = true;
        },
      });
      if (c.untracked)
        ctx.logger.warn(
          { err: c.untracked },
          'plan request cancelled but its record not updated (store unavailable): the outcome poll tells it',
        );
      return c;
    }
    const r = await requestChangeTracked(ctx.deps, ctx.workspace, a.svc, {
      siteId: a.siteId,
      service: a.service,
      action: a.action,
      ...(a.message ? { message: a.message } : {}),
      requestedBy: ctx.userId,
    });
    trackingId = r.trackingId;
    if ('untracked' in r)
      ctx.logger.warn(
        { err: r.untracked },
        'plan request sent but not tracked (store unavailable): no outcome DM',
      );
    return r;
  });
  // A new request's card is posted as a normal message (in the channel, or the requester's DM
  // when the bot cannot post there) and rewritten later: it is rendered for everyone. A cancel
  // answers the reader (or replaces a card in the channel: `shared`).
  const [state, tz, audience] = await Promise.all([
    // Done at the service: a failing re-read (the service busy again) must not turn the answer
    // into an error saying the request was not sent. The card then shows the request itself,
    // without action buttons (the next /drm plan has them).
    loadPlanState(a.svc, a.siteId, a.service).catch((err: unknown): PlanState => {
      ctx.logger.warn(
        { err, refId: ctx.refId },
        `plan ${a.action} done; the plan state could not be read again`,
      );
      return {
        siteId: a.siteId,
        serviceCode: a.service,
        serviceLabel: serviceLabel(a.service),
        latest: result,
        actions: [],
      };
    }),
    ctx.timeZone(),
    a.action === 'cancel' ? replyAudience(ctx, a.shared ?? ctx.share) : ('everyone' as const),
  ]);
  // The re-read could not see the request just made (the service cannot read its latest request
  // for this product): the card shows the request itself, the banner says why.
  const shown: PlanState =
    state.latest === null && a.action !== 'cancel' ? { ...state, latest: result } : state;
  const card = planCard(shown, {
    workspace: ctx.workspace,
    audience,
    ...cardMetaOf(ctx, tz),
    banner: planBanner(a.action, ctx.userId, result),
  });
  return {
    card,
    ...(trackingId ? { trackingId } : {}),
    done: () => {
      if (kick) kickNotify(ctx.deps, ctx.workspace);
    },
  };
}

list.add({
  command: '/drm',
  path: ['plan'],
  args: {
    service: optional(values.oneOf(['drm', 'fwm', 'pd001', 'pd002']), {
      hint: 'drm|fwm',
      description: 'The product (default drm).',
    }),
    site: siteOption,
  },
  role: 'member',
  summary: 'Show the latest plan request of a product, with buttons to ask for a change',
  description:
    'Trial extension and resume can be asked by anyone; suspension and cancelling a pending request are for admins.',
  examples: ['plan', 'plan fwm site:AB12'],
  async handler(ctx, args) {
    const { svc, siteId } = await serviceFor(ctx, args.site);
    const service = parseServiceCode(args.service ?? 'drm');
    const [state, tz, audience] = await Promise.all([
      loadPlanState(svc, siteId, service),
      ctx.timeZone(),
      replyAudience(ctx),
    ]);
    await ctx.respond(
      planCard(state, {
        workspace: ctx.workspace,
        audience,
        ...cardMetaOf(ctx, tz),
      }),
    );
  },
});

for (const action of ['trial', 'resume', 'suspend', 'cancel'] as const) {
  const spec = PLAN_ACTIONS[action];
  list.add({
    command: '/drm',
    path: ['plan', action],
    args: {
      words: rest(values.text(500), {
        hint: action === 'cancel' ? '[drm|fwm]' : '[drm|fwm] [message]',
        description:
          action === 'cancel'
            ? 'The product whose pending request to cancel (default drm).'
            : 'The product (default drm), then an optional message to the provider.',
      }),
      site: siteOption,
    },
    role: spec.role,
    // The Home tab shows the latest plan request.
    changesHome: true,
    summary:
      action === 'cancel'
        ? 'Cancel the pending plan request of a product'
        : `Ask for a ${spec.label.toLowerCase()} of a product`,
    examples:
      action === 'cancel'
        ? ['plan cancel fwm site:AB12']
        : [
            `plan ${action} drm "${action === 'suspend' ? 'Pause during the migration' : 'Two more weeks please'}"`,
          ],
    async handler(ctx, args) {
      const words = [...args.words];
      let service: ServiceCode = 'PD001';
      if (words[0] && SERVICE_WORDS.has(words[0].toLowerCase())) service = parseServiceCode(words.shift()!);
      const message = words.join(' ').trim();
      if (action === 'cancel' && message) {
        await ctx.respond({
          text: `Cancel takes no message: use ${code('/drm plan cancel [drm|fwm] [site:<site id>]')}.`,
        });
        return;
      }
      const { svc, siteId } = await serviceFor(ctx, args.site);
      const r = await runPlanAction(ctx, {
        svc,
        siteId,
        service,
        action,
        ...(message ? { message } : {}),
      });
      // A new request's card is a channel message (rewritten when the provider decides); a
      // cancel's answer is the command's own reply.
      if (r.trackingId) await postRequestCard(ctx, r.card, r.trackingId);
      else await ctx.respond(r.card);
      r.done();
    },
  });
}

/** This file's commands, in help order. */
export const commands = list.done();
