/**
 * Button values of the recipients feature (`/dwm recipients`): the search limits that keep a page
 * button's value under Slack's limit, a list page and a button on one recipient.
 *
 * Values are compact JSON checked with zod when read back (kit/blocks/values.ts).
 */
import { z } from 'zod';
import { wmValueBase as base } from '../../shared/wm/values.js';

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
