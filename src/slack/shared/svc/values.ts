/**
 * Shared pieces of the Service API (`/drm`) renderers: action and view ids, what every button
 * value carries (the workspace tag, the site id; the values of one feature live in its folder,
 * e.g. features/plan/values.ts), the monospace table of DRM data and site requests, and small
 * text helpers. Pure functions only.
 *
 * Button values are compact JSON checked with zod when read back: a value that does not parse
 * (tampered, or from an older version) is refused rather than guessed at.
 */

import { z } from 'zod';
import type { TimeValue } from '../../../api/types.js';
import { SITE_ID_RE } from '../../../api/validate.js';
import { formatTime } from '../../../time.js';
import { LIMITS } from '../../kit/blocks/blocks.js';
import { esc, truncate } from '../../kit/blocks/mrkdwn.js';

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

/** The workspace tag `w` every button value carries (checked against the signed payload's). */
export const workspaceTag = z.string().min(1).max(64);
/** A Service API site id (the ONE site-id pattern, `SITE_ID_RE`): typed in `site:`, carried in values. */
export const siteIdValue = z.string().regex(SITE_ID_RE, { error: 'must be 4 letters or digits, like DEMO' });

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
