/**
 * DRM data: `/drm licenses|users|devices|cids` (one page as a table, Previous/Next, Export CSV),
 * `/drm packaging` (keyset paging with "More") and `/drm stats` (monthly figures with the change
 * against the previous month). All but stats show end viewers' personal data (end-user and device
 * ids): admins only, and members of the PERSONAL_DATA_USERGROUP user groups (`personalData`); the
 * monthly counts of stats are for every member.
 */
import { z } from 'zod';
import type { PackagingPage } from '../../../ops/service/drm-data.js';
import {
  getStatsComparison,
  listCids,
  listDevices,
  listLicenses,
  listPackaging,
  listUsers,
} from '../../../ops/service/index.js';
import type { Message } from '../../kit/blocks/blocks.js';
import { cardMetaOf } from '../../kit/blocks/cards.js';
import { readerDateWords } from '../../kit/blocks/reader-dates.js';
import { option, optional, values } from '../../kit/commands/parse.js';
import { commandList } from '../../kit/commands/registry.js';
import type { CommandContext } from '../../kit/context/context.js';
import { serviceFor, siteOption } from '../../shared/svc/support.js';
import { dataTableMessage, packagingMessage, TABLE_PAGE_SIZE } from './render.js';
import { statsMessage } from './render-stats.js';
import type { DataFilters, DataKind } from './values.js';

const list = commandList();

/** Fetch one page of a kind and answer with the table (replacing the card for paging buttons). */
/** A page of the packaging history (`continued`: a "More" page under the earlier ones). */
export function packagingReply(
  ctx: CommandContext,
  siteId: string,
  page: PackagingPage,
  timeZone: string,
  continued = false,
): Message {
  return packagingMessage(page.items, page.nextCursor, {
    workspace: ctx.workspace,
    siteId,
    ...(ctx.share ? { shared: true } : {}),
    ...cardMetaOf(ctx, timeZone),
    ...(continued ? { continued: true } : {}),
    ...(page.dates ? { dates: page.dates } : {}),
    ...(page.moreMayExist ? { moreMayExist: true } : {}),
  });
}

export async function showData(
  ctx: CommandContext,
  kind: DataKind,
  site: string | undefined,
  filters: DataFilters,
  page: number,
  replace: boolean,
  view: { timeZone?: string; shared?: boolean } = {},
): Promise<void> {
  const { svc, siteId } = await serviceFor(ctx, site);
  const paging = { page, pageSize: TABLE_PAGE_SIZE };
  // from:/to: are the reader's days, in their users.info zone (the ops turn them into the
  // service's UTC days and keep only the reader's rows); the reply names the zone. A paging click
  // keeps the table's zone (`view.timeZone`): on a shared table the clicking reader's may differ.
  const tz = view.timeZone ?? (await ctx.timeZone());
  const shared = view.shared ?? ctx.share;
  // today / yesterday / 7d are the reader's days too; the resolved dates go in the paging buttons.
  filters = readerDateWords(filters, tz, ctx.deps.now());
  const dates = {
    ...(filters.from ? { from: filters.from } : {}),
    ...(filters.to ? { to: filters.to } : {}),
    timeZone: tz,
  };
  const fetch = () => {
    switch (kind) {
      case 'licenses':
        return listLicenses(svc, siteId, { ...filters, timeZone: tz, ...paging });
      case 'users':
        return listUsers(svc, siteId, {
          ...dates,
          ...(filters.user ? { user: filters.user } : {}),
          ...paging,
        });
      case 'devices':
        return listDevices(svc, siteId, {
          ...dates,
          ...(filters.device ? { device: filters.device } : {}),
          ...paging,
        });
      default:
        return listCids(svc, siteId, {
          ...dates,
          ...(filters.status ? { status: filters.status } : {}),
          ...paging,
        });
    }
  };
  const result = await fetch();
  await ctx.respond(
    dataTableMessage(kind, result, filters, {
      workspace: ctx.workspace,
      siteId,
      ...(shared ? { shared: true } : {}),
      ...cardMetaOf(ctx, tz),
    }),
    replace ? { replaceOriginal: true } : {},
  );
}

const date = option(z.string().max(10), {
  hint: 'yyyy-MM-dd',
  description: 'From this day (in your Slack time zone; also today, yesterday or 7d).',
});
const dateTo = option(z.string().max(10), {
  hint: 'yyyy-MM-dd',
  description: 'Up to this day (in your Slack time zone; also today, yesterday or 7d).',
});
const page = option(values.int(1, 100_000), { hint: '<page>', description: 'Page number (default 1).' });
const kw = (what: string) =>
  option(values.text(200), { hint: `<${what}>`, description: `Search by ${what}.` });
const status = option(values.oneOf(['success', 'fail']), {
  hint: 'success|fail',
  description: 'Only successes or failures.',
});

function pick(args: Record<string, unknown>, keys: readonly (keyof DataFilters)[]): DataFilters {
  const f: Record<string, unknown> = {};
  for (const k of keys) if (args[k] !== undefined) f[k] = args[k];
  return f as DataFilters;
}

list.add({
  command: '/drm',
  path: ['licenses'],
  aliases: ['license'],
  args: {
    site: siteOption,
    from: date,
    to: dateTo,
    status,
    cid: kw('content id'),
    drm: kw('DRM type'),
    user: kw('user id'),
    device: kw('device id'),
    model: kw('device model'),
    page,
  },
  role: 'admin',
  personalData: true,
  summary: 'List license issues (failures first) with paging and Export CSV',
  description: 'One search option at a time: cid:, drm:, user:, device: or model:.',
  examples: ['licenses status:fail', 'licenses from:2026-01-01 to:2026-01-31 drm:widevine site:DEMO'],
  async handler(ctx, args) {
    const f = pick(args, ['from', 'to', 'status', 'cid', 'drm', 'user', 'device', 'model']);
    await showData(ctx, 'licenses', args.site, f, args.page ?? 1, false);
  },
});

/**
 * `/drm users` and `/drm devices`: a list searched by one id (a positional word named `key`),
 * with dates and paging.
 */
function searchById(spec: {
  kind: 'users' | 'devices';
  key: 'user' | 'device';
  summary: string;
  examples: string[];
}): void {
  const id = optional(values.text(200), {
    hint: `[${spec.key} id]`,
    description: `Search by ${spec.key} id.`,
  });
  // The id's word comes first, under its own name (`user`, `device`: named in parse errors).
  const args = { [spec.key]: id, site: siteOption, from: date, to: dateTo, page };
  list.add({
    command: '/drm',
    path: [spec.kind],
    args,
    role: 'admin',
    personalData: true,
    summary: spec.summary,
    examples: spec.examples,
    async handler(ctx, a) {
      await showData(ctx, spec.kind, a.site, pick(a, ['from', 'to', spec.key]), a.page ?? 1, false);
    },
  });
}

searchById({
  kind: 'users',
  key: 'user',
  summary: 'List DRM users with their license and device counts',
  examples: ['users', 'users user1007 from:2026-01-01'],
});

searchById({
  kind: 'devices',
  key: 'device',
  summary: 'List DRM devices with their license counts',
  examples: ['devices', 'devices dev-1a2b3c'],
});

list.add({
  command: '/drm',
  path: ['cids'],
  args: { status, site: siteOption, from: date, to: dateTo, page },
  role: 'admin',
  personalData: true,
  summary: 'List content ids with their license counts',
  examples: ['cids', 'cids status:fail'],
  async handler(ctx, args) {
    await showData(ctx, 'cids', args.site, pick(args, ['from', 'to', 'status']), args.page ?? 1, false);
  },
});

list.add({
  command: '/drm',
  path: ['packaging'],
  args: {
    site: siteOption,
    from: date,
    to: dateTo,
    cid: kw('content id'),
    drm: kw('DRM type'),
    user: kw('user id'),
    device: kw('device id'),
    model: kw('device model'),
  },
  role: 'admin',
  personalData: true,
  summary: 'List packaging history in creation order, with a "More" button',
  examples: ['packaging', 'packaging from:2026-01-01 cid:demo'],
  async handler(ctx, args) {
    const { svc, siteId } = await serviceFor(ctx, args.site);
    const tz = await ctx.timeZone();
    const typed = pick(args, ['from', 'to', 'cid', 'drm', 'user', 'device', 'model']);
    const filters = { ...readerDateWords(typed, tz, ctx.deps.now()), timeZone: tz };
    const page = await listPackaging(svc, { siteId, filters });
    await ctx.respond(packagingReply(ctx, siteId, page, tz));
  },
});

list.add({
  command: '/drm',
  path: ['stats'],
  args: {
    date: optional(values.text(10), {
      hint: '[yyyy-MM-dd|yyyy-MM]',
      description: 'The month (default: this month in your zone).',
    }),
    site: siteOption,
  },
  role: 'member',
  summary: 'Show monthly active licenses, users and devices with the change against the previous month',
  examples: ['stats', 'stats 2026-10 site:AB12'],
  async handler(ctx, args) {
    const { svc, siteId } = await serviceFor(ctx, args.site);
    const tz = await ctx.timeZone();
    const s = await getStatsComparison(svc, siteId, args.date, { timeZone: tz, now: ctx.deps.now });
    await ctx.respond(statsMessage(s, cardMetaOf(ctx, tz)));
  },
});

/** This file's commands, in help order. */
export const commands = list.done();
