/**
 * DRM data tables (`/drm licenses|users|devices|cids|packaging`) and the export progress
 * messages. Block Kit has no table element: rows go in one monospace code block (escaped, cut to
 * a section's 3000 characters, about 60 characters a row so a phone shows each row on one or two
 * lines). Problems come first: failed licenses are listed before successful ones on a page, users
 * and devices with failures before the others. Pure renderers.
 */
import { explainLicenseError } from '../../../api/error-codes.js';
import type { CidLicense, DrmDevice, DrmUser, LicenseRecord, PackagingRecord } from '../../../api/types.js';
import type { PageResult } from '../../../ops/service/common.js';
import type { ExportKind, ExportProgress, ExportResult } from '../../../ops/service/drm-data.js';
import {
  actions,
  type Block,
  type ButtonElement,
  button,
  context,
  header,
  type Message,
  message,
  section,
} from '../../kit/blocks/blocks.js';
import { code, esc, truncate } from '../../kit/blocks/mrkdwn.js';
import { pagingButtons, svcPaging } from '../../kit/blocks/paging.js';
import { datesLine } from '../../kit/blocks/reader-dates.js';
import {
  type CardMeta,
  cardContext,
  codeTable,
  count,
  encodeValue,
  plainTime,
  plural,
  SVC_ACTIONS,
  type TableColumn,
} from '../../shared/svc/values.js';
import type { DataFilters, DataKind } from './values.js';

/** Rows asked per page for the tables (fits a 3000-character block at ~60 characters a row). */
export const TABLE_PAGE_SIZE = 25;

const TITLES: Record<DataKind | 'packaging', string> = {
  licenses: 'Licenses',
  users: 'Users',
  devices: 'Devices',
  cids: 'Content ids',
  packaging: 'Packaging history',
};

export interface TableMeta extends CardMeta {
  workspace: string;
  siteId: string;
  timeZone: string;
  /** The reply is in the channel (read by people in other zones): the zone is named, not "your". */
  shared?: boolean;
}

/** The footer's zone note: "your zone" for the reader alone, the zone by name when shared. */
function zoneNote(meta: TableMeta): string {
  return meta.shared ? `Times in the ${esc(meta.timeZone)} time zone.` : 'Times in your zone.';
}

function filterText(f: DataFilters): string {
  return Object.entries(f)
    .filter(([k, v]) => v !== undefined && v !== '' && k !== 'timeZone')
    .map(([k, v]) => `${k}:${v}`)
    .join(' ');
}

function tableOf(
  kind: DataKind,
  items: unknown[],
  tz: string,
): { columns: TableColumn[]; rows: string[][]; problems: number } {
  switch (kind) {
    case 'licenses': {
      const list = [...(items as LicenseRecord[])].sort(
        (a, b) => Number(a.status === 'success') - Number(b.status === 'success'),
      );
      return {
        columns: [
          { header: 'WHEN', width: 16 },
          { header: 'RESULT', width: 9 },
          { header: 'CID', width: 16 },
          { header: 'USER', width: 10 },
          { header: 'DRM', width: 9 },
        ],
        rows: list.map((r) => [
          plainTime(r.regTime, tz),
          r.status === 'success' ? 'ok' : `FAIL ${r.errorCode}`,
          r.cid,
          r.userId,
          r.drmType,
        ]),
        problems: list.filter((r) => r.status !== 'success').length,
      };
    }
    case 'users': {
      const list = [...(items as DrmUser[])].sort((a, b) => Number(a.fail === 0) - Number(b.fail === 0));
      return {
        columns: [
          { header: 'USER', width: 20 },
          { header: 'LICENSES', width: 8, align: 'right' },
          { header: 'DEVICES', width: 7, align: 'right' },
          { header: 'OK', width: 6, align: 'right' },
          { header: 'FAIL', width: 6, align: 'right' },
        ],
        rows: list.map((u) => [
          u.userId,
          count(u.licenseCount),
          count(u.deviceCount),
          count(u.success),
          count(u.fail),
        ]),
        problems: list.filter((u) => u.fail > 0).length,
      };
    }
    case 'devices': {
      const list = [...(items as DrmDevice[])].sort((a, b) => Number(a.fail === 0) - Number(b.fail === 0));
      return {
        columns: [
          { header: 'DEVICE', width: 14 },
          { header: 'MODEL', width: 16 },
          { header: 'LIC', width: 5, align: 'right' },
          { header: 'OK', width: 5, align: 'right' },
          { header: 'FAIL', width: 5, align: 'right' },
        ],
        rows: list.map((d) => [
          d.deviceId,
          d.deviceModel,
          count(d.licenseCount),
          count(d.success),
          count(d.fail),
        ]),
        problems: list.filter((d) => d.fail > 0).length,
      };
    }
    default: {
      const list = items as CidLicense[];
      return {
        columns: [
          { header: 'CONTENT ID', width: 40 },
          { header: 'LICENSES', width: 10, align: 'right' },
        ],
        rows: list.map((c) => [c.cid, count(c.licenseCount)]),
        problems: 0,
      };
    }
  }
}

const PROBLEM_WORD: Record<DataKind, string> = {
  licenses: 'failed',
  users: 'with failures',
  devices: 'with failures',
  cids: '',
};

/** One page of a DRM data list with Previous/Next and Export CSV. */
export function dataTableMessage(
  kind: DataKind,
  page: PageResult<LicenseRecord | DrmUser | DrmDevice | CidLicense>,
  filters: DataFilters,
  meta: TableMeta,
): Message {
  const { columns, rows, problems } = tableOf(kind, page.items, meta.timeZone);
  const table = codeTable(columns, rows);
  const f = filterText(filters);
  const first = (page.page - 1) * page.pageSize + 1;
  const summary =
    page.items.length === 0
      ? page.page > 1
        ? 'No more rows: this is past the last page.'
        : 'Nothing matches these filters in this date range.'
      : `Rows ${count(first)}–${count(first + page.items.length - 1)}${page.hasMore ? ' (more on the next pages)' : ' (all of them)'}${
          problems ? ` · *${count(problems)} ${PROBLEM_WORD[kind]}* (listed first)` : ''
        }${f ? ` · ${code(f)}` : ''}`;
  const blocks: Block[] = [header(`${TITLES[kind]} · ${meta.siteId}`), section(summary)];
  const dl = datesLine(page.dates, { shared: meta.shared === true });
  if (dl) blocks.push(context(dl));
  if (page.items.length) blocks.push(section(table.text));
  const codesNote = kind === 'licenses' ? licenseCodesNote(page.items as LicenseRecord[]) : undefined;
  if (codesNote) blocks.push(context(codesNote));
  if (table.shown < page.items.length) {
    blocks.push(
      context(`…and ${page.items.length - table.shown} more on this page: use Export CSV to see every row.`),
    );
  }
  const value = (p: number) =>
    encodeValue({ w: meta.workspace, s: meta.siteId, k: kind, p, f: filters, z: meta.timeZone });
  const nav: ButtonElement[] = [];
  if (page.items.length || page.page > 1) {
    nav.push(button('Export CSV', SVC_ACTIONS.dataExport, { value: value(1), style: 'primary' }));
  }
  nav.push(...pagingButtons(svcPaging(page, SVC_ACTIONS.dataPage, value)).buttons);
  if (nav.length) blocks.push(actions(nav, 'svc_data_nav'));
  blocks.push(
    context(
      cardContext(meta),
      `${zoneNote(meta)} The service gives no total count: Export CSV fetches every page.`,
    ),
  );
  return message(
    `${TITLES[kind]} on ${meta.siteId}, page ${page.page}: ${plural(page.items.length, 'row')}.`,
    blocks,
  );
}

/**
 * The failed licenses' codes of a page with the words LICENSE_ERROR_CODES gives them (none are
 * built in: the spec gives no code a cause); undefined when none has words.
 */
function licenseCodesNote(items: readonly LicenseRecord[]): string | undefined {
  const codes = [...new Set(items.filter((r) => r.status !== 'success').map((r) => r.errorCode.trim()))];
  const said = codes.flatMap((c) => {
    const meaning = explainLicenseError(c);
    return meaning ? [`${code(c)}: ${esc(truncate(meaning, 200))}`] : [];
  });
  return said.length ? `Error codes: ${said.slice(0, 10).join(' · ')}` : undefined;
}

/** One packaging page with "More" (keyset cursor). */
export function packagingMessage(
  items: PackagingRecord[],
  nextCursor: string | null,
  meta: TableMeta & { continued?: boolean; dates?: PageResult<unknown>['dates']; moreMayExist?: boolean },
): Message {
  const table = codeTable(
    [
      { header: 'CREATED', width: 16 },
      { header: 'UPDATED', width: 16 },
      { header: 'TRACK', width: 5 },
      { header: 'CID', width: 40 },
    ],
    items.map((r) => [
      plainTime(r.createdTime, meta.timeZone),
      plainTime(r.updateTime, meta.timeZone),
      r.track,
      r.cid,
    ]),
  );
  const blocks: Block[] = [
    header(`${TITLES.packaging} · ${meta.siteId}`),
    section(
      items.length === 0
        ? meta.continued
          ? 'No more packaging records after the last page.'
          : 'No packaging records match.'
        : `${plural(items.length, 'record')}, oldest first${meta.continued ? ' (continued)' : ''}.`,
    ),
  ];
  const dl = datesLine(meta.dates, { shared: meta.shared === true });
  if (dl) blocks.push(context(dl));
  if (items.length) blocks.push(section(table.text));
  if (table.shown < items.length)
    blocks.push(context(`…and ${items.length - table.shown} more records on this page not shown.`));
  if (meta.moreMayExist) {
    blocks.push(
      context(
        'More records may exist: the service cannot be asked for the ones after this page (a record without a created or update time to continue from, or more records of one second than its page holds). Narrow the dates or search to see the rest.',
      ),
    );
  }
  if (nextCursor) {
    blocks.push(
      actions(
        [
          button('More', SVC_ACTIONS.packagingMore, {
            value: encodeValue({ w: meta.workspace, c: nextCursor }),
            style: 'primary',
          }),
        ],
        'svc_packaging_nav',
      ),
    );
  }
  blocks.push(context(cardContext(meta), zoneNote(meta)));
  return message(`Packaging on ${meta.siteId}: ${plural(items.length, 'record')}.`, blocks);
}

const KIND_WORD: Record<ExportKind, string> = {
  licenses: 'licenses',
  users: 'users',
  devices: 'devices',
  cids: 'content ids',
};

/** The progress message in the DM, updated per page. */
export function exportProgressMessage(siteId: string, p: ExportProgress | undefined): Message {
  const done = p ? `${plural(p.pages, 'page')} fetched, ${plural(p.rows, 'row')} so far.` : 'Starting…';
  return message(`Exporting ${KIND_WORD[p?.kind ?? 'licenses']} of ${siteId}: ${p ? done : 'starting.'}`, [
    section(
      `:hourglass_flowing_sand: *Exporting ${p ? KIND_WORD[p.kind] : 'rows'} of site ${code(siteId)}*\n${done}`,
    ),
  ]);
}

/** The final state of the progress message. */
export function exportDoneMessage(
  siteId: string,
  r: ExportResult,
  filters: DataFilters,
  timeZone?: string,
): Message {
  const f = filterText(filters);
  // from:/to: are days of the table's zone (the table the export was asked from): said by name,
  // as the reader clicking a shared table may live in another one. CSV times are UTC (ISO 8601).
  const days =
    timeZone && (filters.from || filters.to)
      ? ` Days ${filters.from && filters.to ? `${filters.from} to ${filters.to}` : filters.from ? `from ${filters.from}` : `up to ${filters.to}`} in the ${esc(timeZone)} time zone, as on the table; times in the file are UTC.`
      : '';
  const cut = r.truncated
    ? `\n:warning: Stopped at ${count(r.rowCount)} rows (the export limit): narrow the dates with \`from:\`/\`to:\` to get the rest.`
    : '';
  return message(`Export of ${r.kind} for ${siteId} done: ${plural(r.rowCount, 'row')}.`, [
    section(
      `:white_check_mark: *Exported ${count(r.rowCount)} ${KIND_WORD[r.kind]} of site ${code(siteId)}* in ${plural(r.pages, 'page')}.${f ? ` Filters ${code(f)}.` : ''}${days}${cut}\nThe file ${code(r.filename)} is below.`,
    ),
  ]);
}

/** Ephemeral note in the channel where the export was asked. */
export function exportStartedMessage(kind: ExportKind, siteId: string): Message {
  return message(`Exporting ${KIND_WORD[kind]} of ${siteId}: the CSV will arrive in your DM.`, [
    section(
      `:inbox_tray: Exporting every ${KIND_WORD[kind].replace(/s$/, '')} row of site ${code(siteId)}. The CSV file will arrive in your direct messages with the bot (so the data is not posted in this channel), with progress there.`,
    ),
  ]);
}
