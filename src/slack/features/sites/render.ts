/** `/drm sites`, `/drm site request`, `/drm site requests`: pure renderers. */
import type { AdditionalSiteRequest } from '../../../api/types.js';
import type { PageResult } from '../../../ops/service/common.js';
import type { SiteView } from '../../../ops/service/sites.js';
import {
  actions,
  type Block,
  context,
  fields,
  header,
  type Message,
  message,
  section,
} from '../../kit/blocks/blocks.js';
import { bold, code, esc } from '../../kit/blocks/mrkdwn.js';
import { pagingButtons, svcPaging } from '../../kit/blocks/paging.js';
import { datesLine } from '../../kit/blocks/reader-dates.js';
import { productStatus } from '../../kit/blocks/status.js';
import {
  type CardMeta,
  cardContext,
  codeTable,
  encodeValue,
  plainTime,
  plural,
  SVC_ACTIONS,
} from '../../shared/svc/values.js';
import type { SiteRequestsFilters } from './values.js';

/** Sites that fit one message: header + 2 blocks a site + footer within 50 blocks. */
export const SITES_SHOWN_MAX = 20;

/** Every site with its products; sites with a suspended product first (problems first). */
export function sitesMessage(sites: SiteView[], meta: CardMeta & { defaultSiteId?: string }): Message {
  const sorted = [...sites].sort(
    (a, b) =>
      Number(a.products.every((p) => p.inService)) - Number(b.products.every((p) => p.inService)) ||
      a.siteId.localeCompare(b.siteId),
  );
  const suspended = sites.filter((s) => s.products.some((p) => !p.inService)).length;
  const blocks: Block[] = [
    header(`Sites · ${sites.length}`),
    section(
      sites.length === 0
        ? 'The account has no sites yet. An admin can ask for one with `/drm site request <name>`.'
        : `${plural(sites.length, 'site')}${suspended ? `, ${suspended} with a suspended product` : ', every product in service'}.`,
    ),
  ];
  for (const s of sorted.slice(0, SITES_SHOWN_MAX)) {
    const isDefault = s.siteId === meta.defaultSiteId ? ' (default)' : '';
    const products = s.products.length
      ? s.products.map((p) => [p.label, productStatus(p.status)] as [string, string])
      : ([['Products', 'none']] as [string, string][]);
    blocks.push(section(`${code(s.siteId)} ${bold(s.name)}${isDefault}`, { fields: fields(products) }));
  }
  if (sites.length > SITES_SHOWN_MAX) {
    blocks.push(section(`…and ${sites.length - SITES_SHOWN_MAX} more sites not shown.`));
  }
  blocks.push(context(cardContext({ ...meta, siteId: undefined })));
  const text = `${plural(sites.length, 'site')}: ${esc(
    sorted
      .slice(0, 10)
      .map((s) => `${s.siteId} (${s.products.map((p) => `${p.label} ${p.statusLabel}`).join(', ')})`)
      .join('; '),
  )}.`;
  return message(text, blocks);
}

/** The card after an additional site was requested. */
export function siteRequestedMessage(r: { seq: number; name: string }, meta: CardMeta): Message {
  return message(
    `Requested the additional site ${esc(r.name)} (request ${r.seq}); the provider reviews it.`,
    [
      section(`:white_check_mark: *Additional site requested:* ${esc(r.name)}`, {
        fields: fields([
          ['Request', code(r.seq)],
          ['Status', 'Sent to the provider'],
        ]),
      }),
      context(
        cardContext(meta),
        'The provider reviews it: this card shows the decision and the requester gets a direct message.',
      ),
    ],
  );
}

/** Rows of one page of site requests, with Previous/Next. */
export function siteRequestsMessage(
  page: PageResult<AdditionalSiteRequest>,
  filters: SiteRequestsFilters,
  meta: CardMeta & { workspace: string; timeZone: string },
): Message {
  const rows = page.items.map((r) => [
    String(r.seq),
    r.siteId || '-',
    r.serviceName,
    r.status,
    plainTime(r.regTime, meta.timeZone),
  ]);
  const table = codeTable(
    [
      { header: 'SEQ', width: 6, align: 'right' },
      { header: 'SITE', width: 4 },
      { header: 'NAME', width: 20 },
      // The service's own status words, as they are (the spec lists none): room for the longer ones.
      { header: 'STATUS', width: 16 },
      { header: 'REQUESTED', width: 16 },
    ],
    rows,
  );
  const f = Object.entries(filters)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}:${v}`)
    .join(' ');
  const blocks: Block[] = [
    header('Additional site requests'),
    section(
      page.items.length === 0
        ? page.page > 1
          ? 'No more requests.'
          : 'No site requests match.'
        : `Page ${page.page} · ${plural(page.items.length, 'request')}${f ? ` · ${code(f)}` : ''}`,
    ),
  ];
  const dl = datesLine(page.dates);
  if (dl) blocks.push(context(dl));
  if (page.items.length) blocks.push(section(table.text));
  if (table.shown < page.items.length) {
    blocks.push(context(`…and ${page.items.length - table.shown} more on this page not shown.`));
  }
  const value = (p: number) => encodeValue({ w: meta.workspace, p, f: filters });
  const nav = pagingButtons(svcPaging(page, SVC_ACTIONS.siteRequestsPage, value)).buttons;
  if (nav.length) blocks.push(actions(nav, 'svc_site_requests_nav'));
  blocks.push(context(cardContext({ ...meta, siteId: undefined })));
  return message(
    `Additional-site requests, page ${page.page}: ${plural(page.items.length, 'request')}.`,
    blocks,
  );
}
