/**
 * Buttons on subscriptions: Unsubscribe and Resume (in `/dwm watches` and in the "paused" direct
 * message), and the list's paging. Every click re-checks: the subscription is looked up in the
 * clicking user's workspace only, and managing one someone else created is admin-only.
 */
import type { Subscriptions } from '../../../watch/subscriptions.js';
import type { Subscription } from '../../../watch/types.js';
import { message, section } from '../../kit/blocks/blocks.js';
import { botCanPost } from '../../kit/context/channels/access.js';
import type { CommandContext } from '../../kit/context/context.js';
import { renderRefused } from '../../kit/context/errors.js';
import { button } from '../../kit/interactions/registry.js';
import { subscriptionName, WATCH_ACTIONS } from './render-card.js';
import { filtersText, inviteMessage, SHARED_PAGE_SUFFIX, watchesMessage } from './render-subscriptions.js';
import { mayManage, outagesOf, subscriptionsOf } from './shared.js';

const SUB_ID = /^sub_[a-f0-9]{16}$/;

/**
 * The subscription a button names, looked up in the clicking user's workspace only, when the
 * user may manage it; otherwise the user is told (gone: the `gone` text; someone else's:
 * refused and audited as `action`) and undefined is returned.
 */
async function manageable(
  ctx: CommandContext,
  subs: Subscriptions,
  value: string | undefined,
  action: 'watch.remove' | 'watch.resume',
  verb: string,
  gone: string,
): Promise<Subscription | undefined> {
  const id = value ?? '';
  const sub = SUB_ID.test(id) ? await subs.get(ctx.workspace, id) : undefined;
  if (!sub) {
    await ctx.respond(message('That subscription no longer exists.', [section(gone)]));
    return undefined;
  }
  if (!(await mayManage(ctx, sub))) {
    await ctx.audit({
      action,
      detail: `refused: ${sub.id} created by ${sub.createdBy}`,
      result: 'refused',
      siteId: sub.siteId,
    });
    await ctx.respond(renderRefused(`${verb} a job subscription someone else created`, await ctx.admins()));
    return undefined;
  }
  return sub;
}

const SCOPED =
  "the subscription id is looked up in the clicking user's workspace only (a foreign id finds nothing)";

const subId = (raw: string | undefined) => (raw !== undefined && SUB_ID.test(raw) ? raw : '');

/** What Unsubscribe and Resume share: the subscription id as value, looked up in this workspace. */
const bySubscriptionId = {
  value: subId,
  tag: () => undefined,
  untagged: SCOPED,
  changesHome: true,
} as const;

/**
 * A button that acts on one subscription (Unsubscribe, Resume): the subscription id as value,
 * looked up in this workspace, and `act` runs only on a subscription the user may manage.
 */
function subscriptionButton(spec: {
  name: string;
  actionId: string;
  failure: string;
  action: 'watch.remove' | 'watch.resume';
  verb: string;
  gone: string;
  act: (ctx: CommandContext, subs: Subscriptions, sub: Subscription) => Promise<void>;
}) {
  return button<string>({
    ...bySubscriptionId,
    name: spec.name,
    actionId: spec.actionId,
    failure: spec.failure,
    async run(ctx, id) {
      const subs = subscriptionsOf(ctx);
      const sub = await manageable(ctx, subs, id, spec.action, spec.verb, spec.gone);
      if (sub) await spec.act(ctx, subs, sub);
    },
  });
}

export const unsubscribeButton = subscriptionButton({
  name: 'watch.unsubscribe',
  actionId: WATCH_ACTIONS.unsubscribe,
  failure: "Couldn't unsubscribe",
  action: 'watch.remove',
  verb: 'remove',
  gone: 'That subscription no longer exists (already removed).',
  async act(ctx, subs, sub) {
    await subs.remove(ctx.workspace, { id: sub.id });
    await ctx.audit({
      action: 'watch.remove',
      detail: `removed ${sub.id} in ${sub.channelId}`,
      result: 'ok',
      siteId: sub.siteId,
    });
    const rest = await subs.list(ctx.workspace, { channelId: sub.channelId });
    const list = watchesMessage(rest, sub.channelId, 0, { audience: await ctx.role(), userId: ctx.userId });
    await ctx.respond(
      message(`Stopped a subscription in this channel. ${list.text}`, [
        section(`:white_check_mark: Stopped: ${filtersText(sub)}`),
        ...(list.blocks ?? []),
      ]),
      { replaceOriginal: true },
    );
  },
});

export const resumeButton = subscriptionButton({
  name: 'watch.resume',
  actionId: WATCH_ACTIONS.resume,
  failure: "Couldn't resume",
  action: 'watch.resume',
  verb: 'resume',
  gone: 'That subscription no longer exists: run `/dwm watch` in the channel to subscribe again.',
  async act(ctx, subs, sub) {
    const ability = await botCanPost(ctx, sub.channelId);
    if (ability !== 'ok') {
      await ctx.respond(inviteMessage(sub.channelId, ability));
      return;
    }
    const resumed = await subs.resume(ctx.workspace, sub.id);
    await ctx.audit({
      action: 'watch.resume',
      detail: `resumed ${sub.id} in ${sub.channelId}`,
      result: 'ok',
      siteId: sub.siteId,
    });
    await ctx.respond(
      message('Job notifications resumed.', [
        section(`:arrow_forward: Job notifications resumed: ${subscriptionName(resumed ?? sub)}.`),
        section(filtersText(resumed ?? sub)),
      ]),
      { replaceOriginal: true },
    );
  },
});

export const pageButton = button<{ page: number; shared: boolean }>({
  name: 'watch.page',
  actionId: new RegExp(`^${WATCH_ACTIONS.page}-(prev|next)$`),
  // "3" (a list the clicker reads alone) or "3:all" (a list shared in the channel: it stays
  // rendered for everyone, with no buttons only admins or creators may use).
  value: (raw) => {
    const shared = (raw ?? '').endsWith(SHARED_PAGE_SUFFIX);
    const page = Number((raw ?? '0').slice(0, shared ? -SHARED_PAGE_SUFFIX.length : undefined));
    return { page: Number.isInteger(page) && page >= 0 ? page : 0, shared };
  },
  tag: () => undefined,
  untagged: "a page number: the list is read from the clicking user's workspace and channel",
  failure: "Couldn't list this channel's subscriptions",
  async run(ctx, { page, shared }) {
    const channelId = ctx.channelId;
    if (!channelId) return;
    const list = await subscriptionsOf(ctx).list(ctx.workspace, { channelId });
    const viewer = { audience: shared ? ('everyone' as const) : await ctx.role(), userId: ctx.userId };
    await ctx.respond(watchesMessage(list, channelId, page, viewer, await outagesOf(ctx, list)), {
      replaceOriginal: true,
    });
  },
});
