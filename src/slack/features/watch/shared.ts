/**
 * What `/dwm watch` (command and modal) and the watch buttons share: the bot-membership check,
 * subscribing a channel with the ownership rule, and reading an action's value.
 *
 * Ownership rule (project rule: managing subscriptions in channels you don't own is admin): any
 * member may subscribe the channel they run the command in (Slack only sends slash commands
 * from conversations the user is in) and manage what they created; changing, pausing/resuming
 * or removing a subscription someone else created is admin-only.
 */
import type { WatchFilters } from '../../../watch/index.js';
import { DEFAULT_WORKSPACE_LIMITS } from '../../../watch/limits.js';
import { type SiteOutage, siteOutages } from '../../../watch/outage.js';
import { Subscriptions, subscriptionId } from '../../../watch/subscriptions.js';
import type { Subscription } from '../../../watch/types.js';
import type { Message } from '../../kit/blocks/blocks.js';
import { botCanPost } from '../../kit/context/channels/access.js';
import type { CommandContext } from '../../kit/context/context.js';
import { renderRefused } from '../../kit/context/errors.js';
import { wakeWatchers } from '../../kit/runtime/hooks.js';
import { type CreateOutcome, filtersText, inviteMessage, subscribedMessage } from './render-subscriptions.js';

export const subscriptionsOf = (ctx: CommandContext) => new Subscriptions(ctx.deps.store, ctx.deps.now);

/** Outages of the service delaying the notifications of these subscriptions' sites, while they last. */
export async function outagesOf(ctx: CommandContext, subs: readonly Subscription[]): Promise<SiteOutage[]> {
  if (subs.length === 0) return [];
  const sites = new Set(subs.map((s) => s.siteId));
  return (await siteOutages(ctx.deps.store, ctx.workspace)).filter((o) => sites.has(o.siteId));
}

/** The user may manage `sub` (created it, or is an admin). */
export async function mayManage(ctx: CommandContext, sub: Subscription): Promise<boolean> {
  return sub.createdBy === ctx.userId || (await ctx.role()) === 'admin';
}

export type SubscribeResult =
  | { ok: true; subscription: Subscription; outcome: CreateOutcome; message: Message }
  | { ok: false; message: Message };

/**
 * Subscribe `channelId` to a site's jobs. Checks the bot can post there (else invite
 * instructions), that the site is configured, and the ownership rule when the same
 * subscription exists (created by someone else) and would change. Audited.
 */
export async function subscribeChannel(
  ctx: CommandContext,
  channelId: string,
  site: string | undefined,
  filters: WatchFilters,
): Promise<SubscribeResult> {
  const clients = await ctx.clients();
  clients.watermarking(); // NotConfiguredError when there are no Watermarking API credentials
  const siteId = clients.site(site);
  const ability = await botCanPost(ctx, channelId);
  if (ability !== 'ok') return { ok: false, message: inviteMessage(channelId, ability) };

  const subs = subscriptionsOf(ctx);
  const existing = await subs.get(ctx.workspace, subscriptionId(channelId, siteId, filters));
  if (
    existing &&
    existing.createdBy !== ctx.userId &&
    (existing.paused || existing.mode !== filters.mode) &&
    (await ctx.role()) !== 'admin'
  ) {
    await ctx.audit({
      action: 'watch.create',
      detail: `refused: change subscription ${existing.id} created by ${existing.createdBy}`,
      result: 'refused',
      siteId,
    });
    return {
      ok: false,
      message: renderRefused('change a job subscription someone else created', await ctx.admins()),
    };
  }
  const r = await subs.create(ctx.workspace, {
    channelId,
    siteId,
    filters,
    createdBy: ctx.userId,
    limit: ctx.deps.config.workspaceLimits?.watches ?? DEFAULT_WORKSPACE_LIMITS.watches,
  });
  // This replica's watcher takes the site on now, not at its next idle listing (up to
  // POLL_INTERVAL_SECONDS later): the first card of a new watch comes within seconds.
  wakeWatchers(ctx.deps, ctx.workspace, siteId);
  await ctx.audit({
    action: 'watch.create',
    detail: `${r.outcome} ${r.subscription.id} in ${channelId}: ${filtersText(r.subscription).replace(/[`*]/g, '')}`,
    result: 'ok',
    siteId,
  });
  return {
    ok: true,
    subscription: r.subscription,
    outcome: r.outcome,
    message: subscribedMessage(r.subscription, r.outcome, ctx.userId),
  };
}

/** The value of the first action of a block_actions body. */
export function actionValue(body: unknown): string | undefined {
  const a = (body as { actions?: Array<{ value?: unknown }> }).actions?.[0];
  return typeof a?.value === 'string' ? a.value : undefined;
}
