/**
 * Shared pieces of the watermarking renderers: action ids, the `site:` option, what every button
 * value carries (workspace, site; the values of one feature live in its folder, e.g.
 * features/jobs/values.ts); the text helpers and the value codec are the kit's (blocks/cards.ts,
 * blocks/values.ts), re-exported here. Pure.
 *
 * Button values are compact JSON checked with zod when read back: a value that does not parse
 * (tampered, or from an older version) is refused rather than guessed at.
 */
import { z } from 'zod';
import type { CardMeta as SharedCardMeta } from '../../kit/blocks/cards.js';
import { option, values } from '../../kit/commands/parse.js';
import { siteIdValue, workspaceTag } from '../svc/values.js';

/** `site:<site id>` of the `/dwm` commands (checked against the workspace's configured sites). */
export const wmSiteOption = option(siteIdValue, {
  hint: '<site id>',
  description: 'Site id (default: the workspace default site).',
});

/**
 * The options of a Watermarking list by days (`/dwm jobs`, `/dwm recipients`): `from:` and `to:`
 * (the reader's days, described in the list's words), `site:`, `page:`.
 */
export function wmDayListOptions(describe: { from: string; to: string }) {
  return {
    from: option(values.text(10), { hint: 'yyyy-MM-dd', description: describe.from }),
    to: option(values.text(10), { hint: 'yyyy-MM-dd', description: describe.to }),
    site: wmSiteOption,
    page: option(values.int(1, 100_000), { hint: 'N', description: 'Page number (default 1).' }),
  };
}

/** What those options ask for, the ones not given left out (page 1 by default). */
export function wmDayListQuery(args: {
  from?: string | undefined;
  to?: string | undefined;
  site?: string | undefined;
  page?: number | undefined;
}) {
  return {
    ...(args.site ? { site: args.site } : {}),
    ...(args.from ? { from: args.from } : {}),
    ...(args.to ? { to: args.to } : {}),
    page: args.page ?? 1,
  };
}

/** What a paging button of a list by days carries back (`s`, `p`, `fr`, `to`), as its query. */
export function wmDayPageQuery(v: {
  s: string;
  p: number;
  fr?: string | undefined;
  to?: string | undefined;
}) {
  return { site: v.s, page: v.p, ...(v.fr ? { from: v.fr } : {}), ...(v.to ? { to: v.to } : {}) };
}

/** Action ids of every watermarking button (one listener each). */
export const WM_ACTIONS = {
  jobsPage: 'wm_jobs_page',
  jobDetails: 'wm_job_details',
  jobRefresh: 'wm_job_refresh',
  jobExport: 'wm_job_export',
  recipientsPage: 'wm_recipients_page',
  recipientDetails: 'wm_recipient_details',
  recipientEdit: 'wm_recipient_edit',
  registerBack: 'wm_register_back',
  registerInvalidCsv: 'wm_register_invalid_csv',
  registerResume: 'wm_register_resume',
  setupCheck: 'wm_setup_check',
} as const;

/** Callback ids of the watermarking modals. */
export const WM_VIEWS = {
  registerForm: 'wm_register_form',
  registerChecking: 'wm_register_checking',
  registerPreview: 'wm_register_preview',
  registerStarted: 'wm_register_started',
  recipientEdit: 'wm_recipient_edit',
} as const;

// ---------------------------------------------------------------------------------------------
// Button values
// ---------------------------------------------------------------------------------------------

/** What every watermarking button value carries: the workspace tag and the site. */
export const wmValueBase = { w: workspaceTag, s: z.string().min(1).max(16) };

export { cardContext, count, plural, timeText } from '../../kit/blocks/cards.js';
export { decodeValue, encodeValue } from '../../kit/blocks/values.js';

/** Context line of a watermarking card: always names its site. */
export interface CardMeta extends SharedCardMeta {
  siteId: string;
}
