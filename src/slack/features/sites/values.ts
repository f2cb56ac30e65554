/**
 * Button values of the sites feature (`/drm site-requests`): the filters of a site request list
 * and its paging buttons.
 *
 * Values are compact JSON checked with zod when read back (kit/blocks/values.ts).
 */
import { z } from 'zod';
import { workspaceTag } from '../../shared/svc/values.js';

const ws = workspaceTag;

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
