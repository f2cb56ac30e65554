/**
 * `/drm sites` (every site and its products), `/drm site request <name>` (admin: ask for an
 * additional site; its card is posted in the channel and rewritten when the provider decides) and `/drm site requests [from:] [to:] [status:] [account:|site:] [page:]`.
 */
import { z } from 'zod';
import { requestAdditionalSiteTracked } from '../../../ops/request-outcomes.js';
import { listSiteRequests, listSites } from '../../../ops/service/index.js';
import { cardMetaOf } from '../../kit/blocks/cards.js';
import { readerDateWords } from '../../kit/blocks/reader-dates.js';
import { option, rest, values } from '../../kit/commands/parse.js';
import { commandList } from '../../kit/commands/registry.js';
import type { CommandContext } from '../../kit/context/context.js';
import { audited } from '../../kit/context/support.js';
import { postRequestCard } from '../../shared/requests/card.js';
import { siteRequestedMessage, siteRequestsMessage, sitesMessage } from './render.js';
import type { SiteRequestsFilters } from './values.js';

const list = commandList();

/** Rows per page of site requests. */
export const SITE_REQUESTS_PAGE_SIZE = 25;

list.add({
  command: '/drm',
  path: ['sites'],
  args: {},
  role: 'member',
  summary: 'List every site of the account with its products (DRM, FWM) and their status',
  examples: ['sites', 'sites share'],
  async handler(ctx) {
    const c = await ctx.clients();
    const [sites, tz] = await Promise.all([listSites(c.service()), ctx.timeZone()]);
    await ctx.respond(
      sitesMessage(sites, {
        defaultSiteId: c.defaultSiteId,
        ...cardMetaOf(ctx, tz),
      }),
    );
  },
});

list.add({
  command: '/drm',
  path: ['site', 'request'],
  args: {
    name: rest(values.text(100), {
      hint: '<site name>',
      description: 'The name of the new site.',
      required: true,
    }),
  },
  role: 'admin',
  summary: 'Ask the provider for an additional site',
  examples: ['site request "Movies EU"'],
  async handler(ctx, args) {
    const c = await ctx.clients();
    const name = args.name.join(' ');
    // Tracked: the requester gets a DM when the provider decides, and the card (a channel
    // message, so it can be rewritten) shows the outcome.
    const r = await audited(ctx, 'site.request', `additional site "${name.slice(0, 100)}"`, undefined, () =>
      requestAdditionalSiteTracked(ctx.deps, ctx.workspace, c.service(), { name, requestedBy: ctx.userId }),
    );
    if ('untracked' in r)
      ctx.logger.warn(
        { err: r.untracked },
        'site request sent but not tracked (store unavailable): no outcome DM',
      );
    const tz = await ctx.timeZone();
    await postRequestCard(ctx, siteRequestedMessage(r, cardMetaOf(ctx, tz)), r.trackingId);
  },
});

export async function showSiteRequests(
  ctx: CommandContext,
  filters: SiteRequestsFilters,
  page: number,
  replace: boolean,
): Promise<void> {
  // from:/to: are the reader's days, in their users.info zone (the ops ask the service for the
  // covering UTC days and keep only the reader's rows); the reply names the zone.
  const [c, tz] = await Promise.all([ctx.clients(), ctx.timeZone()]);
  filters = readerDateWords(filters, tz, ctx.deps.now());
  const result = await listSiteRequests(c.service(), {
    ...filters,
    timeZone: tz,
    page,
    pageSize: SITE_REQUESTS_PAGE_SIZE,
  });
  await ctx.respond(
    siteRequestsMessage(result, filters, {
      workspace: ctx.workspace,
      ...cardMetaOf(ctx, tz),
    }),
    replace ? { replaceOriginal: true } : {},
  );
}

const date = z.string().max(10);

list.add({
  command: '/drm',
  path: ['site', 'requests'],
  args: {
    from: option(date, {
      hint: 'yyyy-MM-dd',
      description: 'Requested on or after this day (in your Slack time zone; also today, yesterday or 7d).',
    }),
    to: option(date, {
      hint: 'yyyy-MM-dd',
      description: 'Requested on or before this day (in your Slack time zone; also today, yesterday or 7d).',
    }),
    status: option(values.text(40), {
      hint: '<status>',
      description: 'Request status as the service names it.',
    }),
    account: option(values.text(100), { hint: '<account id>', description: 'Requests of one account.' }),
    site: option(values.text(20), { hint: '<site id>', description: 'Requests for one site id.' }),
    page: option(values.int(1, 10_000), { hint: '<page>', description: 'Page number (default 1).' }),
  },
  role: 'member',
  summary: 'List additional-site requests with filters and paging',
  examples: ['site requests', 'site requests from:2026-01-01 status:requested'],
  async handler(ctx, args) {
    const filters: SiteRequestsFilters = {};
    for (const k of ['from', 'to', 'status', 'account', 'site'] as const)
      if (args[k] !== undefined) filters[k] = args[k];
    await showSiteRequests(ctx, filters, args.page ?? 1, false);
  },
});

/** This file's commands, in help order. */
export const commands = list.done();
