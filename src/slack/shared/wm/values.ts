/**
 * Shared pieces of the watermarking renderers: action ids, button values (the state a button
 * carries: workspace, site, ids, page; never a secret); the text helpers and the value codec are
 * the shared ones of ./cards.ts and ./values.ts, re-exported here. Pure.
 *
 * Button values are compact JSON checked with zod when read back: a value that does not parse
 * (tampered, or from an older version) is refused rather than guessed at.
 */
import { z } from 'zod';
import type { CardMeta as SharedCardMeta } from '../../kit/blocks/cards.js';
import { option } from '../../kit/commands/parse.js';
import { siteIdValue } from '../svc/values.js';

/** `site:<site id>` of the `/dwm` commands (checked against the workspace's configured sites). */
export const wmSiteOption = option(siteIdValue, {
  hint: '<site id>',
  description: 'Site id (default: the workspace default site).',
});

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

const base = { w: z.string().min(1).max(64), s: z.string().min(1).max(16) };

/** Jobs list page: filters already resolved to dates (so "today" does not move while paging). */
export const jobsPageValue = z.object({
  ...base,
  p: z.number().int().min(1),
  st: z.array(z.string().max(8)).max(4).optional(),
  c: z.string().max(400).optional(),
  fr: z.string().max(10).optional(),
  to: z.string().max(10).optional(),
});
export type JobsPageValue = z.infer<typeof jobsPageValue>;

export const jobValue = z.object({ ...base, j: z.number().int().positive() });
export type JobValue = z.infer<typeof jobValue>;

/**
 * Limits of a `/dwm recipients` search, checked by the command with a clear message
 * so the paging buttons can always carry the filters: at most 40 keywords (the keyword batch that
 * ops/recipients.ts sends in one search call) and 1,500 characters of keywords in total, which
 * keeps the Previous/Next value (keywords as JSON plus workspace, site, page and dates) under Slack's
 * 2,000 characters.
 */
export const RECIPIENT_SEARCH_LIMITS = { keywords: 40, chars: 1500 } as const;

export const recipientsPageValue = z.object({
  ...base,
  p: z.number().int().min(1),
  k: z.array(z.string().max(128)).max(RECIPIENT_SEARCH_LIMITS.keywords).optional(),
  fr: z.string().max(10).optional(),
  to: z.string().max(10).optional(),
});
export type RecipientsPageValue = z.infer<typeof recipientsPageValue>;

export const recipientValue = z.object({ ...base, r: z.number().int().positive() });
export type RecipientValue = z.infer<typeof recipientValue>;

export const draftValue = z.object({ ...base, d: z.string().min(1).max(64) });

/** Resume (or retry the failed batches of) a stored registration run: workspace, site, report id. */
export const reportValue = z.object({ ...base, r: z.string().min(1).max(64), f: z.literal(1).optional() });
export type ReportValue = z.infer<typeof reportValue>;
export type DraftValue = z.infer<typeof draftValue>;

export { cardContext, count, plural, timeText } from '../../kit/blocks/cards.js';
export { decodeValue, encodeValue } from '../../kit/blocks/values.js';

/** Context line of a watermarking card: always names its site. */
export interface CardMeta extends SharedCardMeta {
  siteId: string;
}
