/**
 * `/dwm recipients [keywords…] [from:] [to:] [site:]` (search, paged) and
 * `/dwm recipient <dwmId | name> [site:]` (card with Edit). Names resolve case-insensitively to
 * the originally registered recipient (spec rule 4). The show functions serve the buttons too.
 */
import { ValidationError, type ValidationIssue } from '../../../api/errors.js';
import { checkDateRange } from '../../../api/validate.js';
import { resolveDate, wmReaderDays } from '../../../ops/jobs.js';
import { resolveRecipient } from '../../../ops/recipients.js';
import { inReaderRange } from '../../../ops/service/common.js';
import { offsetOf } from '../../../time.js';
import { cardMetaOf } from '../../kit/blocks/cards.js';
import { required, rest, values } from '../../kit/commands/parse.js';
import { commandList } from '../../kit/commands/registry.js';
import type { CommandContext } from '../../kit/context/context.js';
import { wmDayListOptions, wmDayListQuery, wmSiteOption } from '../../shared/wm/values.js';
import { recipientCardMessage, recipientListMessage, recipientNotFoundMessage } from './render.js';
import { RECIPIENT_SEARCH_LIMITS } from './values.js';

const list = commandList();

export const RECIPIENTS_PAGE_UNIT = 10;

export interface RecipientsQuery {
  site?: string;
  keywords?: string[];
  from?: string;
  to?: string;
  page: number;
}

export async function showRecipients(
  ctx: CommandContext,
  q: RecipientsQuery,
  replace = false,
): Promise<void> {
  const c = await ctx.clients();
  const site = c.site(q.site);
  const wm = c.watermarking();
  const tz = await ctx.timeZone();
  const now = ctx.deps.now();
  const issues: ValidationIssue[] = [];
  const dates: { from?: string; to?: string } = {};
  for (const field of ['from', 'to'] as const) {
    const raw = q[field];
    if (!raw) continue;
    const d = resolveDate(raw, tz, now);
    if (d.ok) dates[field] = d.date;
    else issues.push({ field, message: d.message });
  }
  const keywords = (q.keywords ?? []).filter((k) => k.trim() !== '');
  // The paging buttons carry the keywords: refuse a search they cannot carry.
  const chars = keywords.reduce((n, k) => n + k.length, 0);
  if (keywords.length > RECIPIENT_SEARCH_LIMITS.keywords || chars > RECIPIENT_SEARCH_LIMITS.chars) {
    issues.push({
      field: 'keywords',
      message: `use at most ${RECIPIENT_SEARCH_LIMITS.keywords} keywords and ${RECIPIENT_SEARCH_LIMITS.chars.toLocaleString('en-US')} characters in total (you gave ${keywords.length} keywords, ${chars.toLocaleString('en-US')} characters); a shorter part of a name matches more names.`,
    });
  }
  const range = checkDateRange(dates.from, dates.to);
  if (range) issues.push({ field: 'from', message: range });
  if (issues.length) throw new ValidationError('recipients', issues);
  const timeZone = offsetOf(tz, dates.from ? Date.parse(`${dates.from}T12:00:00Z`) : now);
  // The service is asked for the UTC days covering the reader's days; only theirs are shown.
  const asked = { ...dates };
  const days = wmReaderDays(asked, tz);
  const read = await wm.searchRecipients(site, {
    ...(keywords.length ? { keywords } : {}),
    ...asked,
    timeZone,
    pageUnit: RECIPIENTS_PAGE_UNIT,
    pageIndex: q.page,
  });
  const page = days
    ? { ...read, items: read.items.filter((r) => inReaderRange(days, r.regTime.epochMs)) }
    : read;
  await ctx.respond(
    recipientListMessage({
      siteId: site,
      workspace: ctx.workspace,
      items: page.items,
      totalCount: page.totalCount,
      pageIndex: q.page,
      pageUnit: RECIPIENTS_PAGE_UNIT,
      filters: { ...(keywords.length ? { keywords } : {}), ...dates },
      timeZone: tz,
      ...(days ? { utcDays: { from: days.utcFrom, to: days.utcTo } } : {}),
      meta: cardMetaOf(ctx, tz, site),
    }),
    replace ? { replaceOriginal: true } : {},
  );
}

/** The recipient card by DWM ID or name; a miss answers with suggestions. */
export async function showRecipient(
  ctx: CommandContext,
  siteReq: string | undefined,
  idOrName: string,
  opts: { replace?: boolean; notice?: string } = {},
): Promise<void> {
  const c = await ctx.clients();
  const site = c.site(siteReq);
  const wm = c.watermarking();
  const [r, tz] = await Promise.all([resolveRecipient(wm, site, idOrName), ctx.timeZone()]);
  if (!r.ok) {
    await ctx.respond(recipientNotFoundMessage(r.message, r.suggestions));
    return;
  }
  // The search answer has no update time: the detail call has it.
  const recipient = r.recipient.updateTime ? r.recipient : await wm.getRecipient(site, r.recipient.dwmId);
  await ctx.respond(
    recipientCardMessage({
      recipient,
      workspace: ctx.workspace,
      siteId: site,
      timeZone: tz,
      ...(r.matchedBy === 'name' ? { typedName: idOrName.trim() } : {}),
      ...(opts.notice ? { notice: opts.notice } : {}),
      meta: cardMetaOf(ctx, tz, site),
    }),
    opts.replace ? { replaceOriginal: true } : {},
  );
}

list.add({
  command: '/dwm',
  path: ['recipients'],
  args: {
    keywords: rest(values.text(128), {
      hint: 'keywords',
      description: 'Parts of names to look for (a name matches when it contains one).',
    }),
    ...wmDayListOptions({
      from: 'Registered on or after this day, in your time zone (or today, yesterday, 7d).',
      to: 'Registered on or before this day.',
    }),
  },
  role: 'member',
  summary: 'Search the registered recipients (watermark names), paged',
  examples: ['recipients', 'recipients netflix hulu', 'recipients from:30d'],
  async handler(ctx, args) {
    await showRecipients(ctx, { ...wmDayListQuery(args), keywords: args.keywords });
  },
});

list.add({
  command: '/dwm',
  path: ['recipient'],
  args: {
    target: required(values.text(200), {
      hint: '<DWM ID | name>',
      description: 'A DWM ID, or a name (upper/lower case does not matter).',
    }),
    site: wmSiteOption,
  },
  role: 'member',
  summary: 'Show one recipient by DWM ID or name, with an Edit button',
  examples: ['recipient 1042', 'recipient netflix-emea'],
  async handler(ctx, args) {
    await showRecipient(ctx, args.site, args.target);
  },
});

/** This file's commands, in help order. */
export const commands = list.done();
