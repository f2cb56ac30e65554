/**
 * Shared pieces of the Service API (`/drm`) renderers: action and view ids, button values (the
 * state a button carries: workspace, site, ids, page, filters, cursor; never a secret), the
 * monospace table used for DRM data, and small text helpers. Pure functions only.
 *
 * Button values are compact JSON checked with zod when read back: a value that does not parse
 * (tampered, or from an older version) is refused rather than guessed at.
 */

import { z } from 'zod';
import type { TimeValue } from '../../../api/types.js';
import { SITE_ID_RE } from '../../../api/validate.js';
import { isIanaTimeZone } from '../../../ops/jobs.js';
import { CURSOR_MAX_CHARS } from '../../../ops/service/drm-data.js';
import { LIMITS } from '../../kit/blocks/blocks.js';
import { esc, formatTime, truncate } from '../../kit/blocks/mrkdwn.js';

/** Action ids of every `/drm` button (one listener each). */
export const SVC_ACTIONS = {
  planRequest: 'svc_plan_request',
  planCancel: 'svc_plan_cancel',
  dataPage: 'svc_data_page',
  dataExport: 'svc_data_export',
  packagingMore: 'svc_packaging_more',
  siteRequestsPage: 'svc_site_requests_page',
  membersPage: 'svc_members_page',
  memberResetPassword: 'svc_member_reset_pw',
  memberActivate: 'svc_member_activate',
  memberDeactivate: 'svc_member_deactivate',
  memberGroup: 'svc_member_group',
  settingsEdit: 'svc_settings_edit',
} as const;

/** Callback ids of the `/drm` modals. */
export const SVC_VIEWS = {
  planRequest: 'svc_plan_request',
  memberGroup: 'svc_member_group',
  settingsEdit: 'svc_settings_edit',
  fpsCert: 'svc_fpscert',
  info: 'svc_info',
} as const;

// ---------------------------------------------------------------------------------------------
// Button values
// ---------------------------------------------------------------------------------------------

const ws = z.string().min(1).max(64);
/** A Service API site id (the ONE site-id pattern, `SITE_ID_RE`): typed in `site:`, carried in values. */
export const siteIdValue = z.string().regex(SITE_ID_RE, { error: 'must be 4 letters or digits, like DEMO' });

const site = siteIdValue;

/** Plan buttons: site, service, action and (cancel) the request id shown on the card. */
export const planValue = z.object({
  w: ws,
  s: site,
  v: z.enum(['PD001', 'PD002']),
  a: z.enum(['trial', 'resume', 'suspend', 'cancel']),
  r: z.string().max(100).optional(),
});
export type PlanValue = z.infer<typeof planValue>;

export type DataKind = 'licenses' | 'users' | 'devices' | 'cids';

/** Filters of a DRM data list as typed by the user (validated again by the op on every use). */
export const dataFilters = z
  .object({
    from: z.string().max(10).optional(),
    to: z.string().max(10).optional(),
    status: z.enum(['success', 'fail']).optional(),
    cid: z.string().max(200).optional(),
    drm: z.string().max(200).optional(),
    user: z.string().max(200).optional(),
    device: z.string().max(200).optional(),
    model: z.string().max(200).optional(),
  })
  .strict();
export type DataFilters = z.infer<typeof dataFilters>;

/** Paging and export buttons of the DRM data tables. */
export const dataValue = z.object({
  w: ws,
  s: site,
  k: z.enum(['licenses', 'users', 'devices', 'cids']),
  p: z.number().int().min(1).max(100_000),
  f: dataFilters,
  /**
   * The table's time zone (its reader's, when it was asked): a click on a shared table (another
   * reader's) pages and exports the days the table shows. Absent on tables of older versions:
   * the clicking reader's zone is used.
   */
  z: z
    .string()
    .regex(/^[A-Za-z0-9_+\-/]{1,64}$/)
    .refine((tz) => isIanaTimeZone(tz))
    .optional(),
});
export type DataValue = z.infer<typeof dataValue>;

/** Packaging "More": the op's own cursor (site, filters and keyset position, base64url). */
export const packagingValue = z.object({ w: ws, c: z.string().min(1).max(CURSOR_MAX_CHARS) });
export type PackagingValue = z.infer<typeof packagingValue>;

export const siteRequestsFilters = z
  .object({
    from: z.string().max(10).optional(),
    to: z.string().max(10).optional(),
    status: z.string().max(40).optional(),
    account: z.string().max(100).optional(),
    site: z.string().max(20).optional(),
  })
  .strict();
export type SiteRequestsFilters = z.infer<typeof siteRequestsFilters>;

export const siteRequestsValue = z.object({ w: ws, p: z.number().int().min(1), f: siteRequestsFilters });
export type SiteRequestsValue = z.infer<typeof siteRequestsValue>;

/** Members list page, or a button on one member (m = member seq, e = e-mail for messages). */
export const membersValue = z.object({
  w: ws,
  p: z.number().int().min(1),
  m: z.number().int().positive().optional(),
});
export type MembersValue = z.infer<typeof membersValue>;

export const settingsValue = z.object({ w: ws, s: site });
export type SettingsValue = z.infer<typeof settingsValue>;

export { decodeValue, encodeValue } from '../../kit/blocks/values.js';

// ---------------------------------------------------------------------------------------------
// Text
// ---------------------------------------------------------------------------------------------

export { type CardMeta, cardContext, count, plural, timeText } from '../../kit/blocks/cards.js';

/** A service time as plain text in the reader's zone (for tables and CSV comments). */
export function plainTime(t: TimeValue | undefined, timeZone: string): string {
  if (!t) return '-';
  if (t.epochMs !== null) return formatTime(t.epochMs, timeZone).replace(/ \S+$/, '');
  return t.raw || '-';
}

// ---------------------------------------------------------------------------------------------
// Monospace tables
// ---------------------------------------------------------------------------------------------

export interface TableColumn {
  header: string;
  /** Width in characters; longer cells are cut with `…`. */
  width: number;
  align?: 'left' | 'right';
}

/** Escaped inside a code block: entities and no backtick that could end the block. */
function cell(text: string, width: number, align: 'left' | 'right' = 'left'): string {
  const flat = text.replace(/[\r\n\t]+/g, ' ').replace(/`/g, '\u02cb');
  const cut = truncate(flat, width);
  const padded = align === 'right' ? cut.padStart(width) : cut.padEnd(width);
  return esc(padded);
}

export interface TableResult {
  /** "```…```" text, at most `maxChars`. */
  text: string;
  /** Rows that fit. */
  shown: number;
}

/**
 * A monospace table in a code block, cut to the rows that fit in `maxChars` (a section's 3000
 * by default). Columns are kept narrow (about 60 characters a row) so a phone shows a row on
 * one or two lines; every cell is escaped and cut to its width.
 */
export function codeTable(
  columns: TableColumn[],
  rows: string[][],
  maxChars: number = LIMITS.sectionText,
): TableResult {
  const line = (cells: string[]) =>
    columns
      .map((c, i) => cell(cells[i] ?? '', c.width, c.align))
      .join(' ')
      .trimEnd();
  const head = line(columns.map((c) => c.header));
  let text = `\`\`\`${head}\n`;
  let shown = 0;
  for (const r of rows) {
    const l = `${line(r)}\n`;
    if (text.length + l.length + 3 > maxChars) break;
    text += l;
    shown++;
  }
  return { text: `${text.trimEnd()}\`\`\``, shown };
}
