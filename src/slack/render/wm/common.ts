/**
 * Shared pieces of the watermarking renderers: action ids, button values (the state a button
 * carries: workspace, site, ids, page; never a secret) and small text helpers. Pure.
 *
 * Button values are compact JSON checked with zod when read back: a value that does not parse
 * (tampered, or from an older version) is refused rather than guessed at.
 */
import { z } from 'zod';
import type { TimeValue } from '../../../api/types.js';
import { LIMITS } from '../blocks.js';
import { code, dateToken, esc, userMention } from '../mrkdwn.js';

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

export const recipientsPageValue = z.object({
  ...base,
  p: z.number().int().min(1),
  k: z.array(z.string().max(128)).max(20).optional(),
  fr: z.string().max(10).optional(),
  to: z.string().max(10).optional(),
});
export type RecipientsPageValue = z.infer<typeof recipientsPageValue>;

export const recipientValue = z.object({ ...base, r: z.number().int().positive() });
export type RecipientValue = z.infer<typeof recipientValue>;

export const draftValue = z.object({ ...base, d: z.string().min(1).max(64) });
export type DraftValue = z.infer<typeof draftValue>;

/** JSON for a button value; throws when over Slack's 2000 characters (a bug: values are small). */
export function encodeValue(v: object): string {
  const s = JSON.stringify(v);
  if (s.length > LIMITS.buttonValue) throw new Error('button value over 2000 characters');
  return s;
}

/** Parse a button value with its schema; undefined when it is not one of ours. */
export function decodeValue<T>(schema: z.ZodType<T>, raw: string | undefined): T | undefined {
  if (!raw) return undefined;
  try {
    const r = schema.safeParse(JSON.parse(raw));
    return r.success ? r.data : undefined;
  } catch {
    return undefined;
  }
}

// ---------------------------------------------------------------------------------------------
// Text
// ---------------------------------------------------------------------------------------------

/** A service time as a date token (each reader's zone), or the raw text escaped, or "—". */
export function timeText(t: TimeValue | undefined, timeZone: string): string {
  if (!t) return '—';
  if (t.epochMs !== null) return dateToken(t.epochMs, timeZone);
  return t.raw ? esc(t.raw) : '—';
}

/** "1,234" */
export function count(n: number): string {
  return n.toLocaleString('en-US');
}

/** "3 recipients" / "1 recipient" */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${count(n)} ${n === 1 ? one : many}`;
}

/** Context line of a card: site, who asked, reference. */
export interface CardMeta {
  siteId: string;
  /** Who asked (Slack user id). */
  userId?: string;
  /** When the card was made (epoch ms). */
  atMs?: number;
  /** Reference id of the request. */
  refId?: string;
  timeZone?: string;
}

/** Context line of a card: site, who asked, when, reference id. */
export function cardContext(m: CardMeta): string {
  const parts = [`Site ${code(m.siteId)}`];
  if (m.userId) parts.push(`asked by ${userMention(m.userId)}`);
  if (m.atMs !== undefined) parts.push(dateToken(m.atMs, m.timeZone ?? 'UTC'));
  if (m.refId) parts.push(`ref ${code(m.refId)}`);
  return parts.join(' · ');
}
