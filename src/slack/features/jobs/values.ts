/**
 * Button values of the jobs feature (`/dwm jobs`, `/dwm job`): a jobs list page (filters already
 * resolved to dates) and a button on one job.
 *
 * Values are compact JSON checked with zod when read back (kit/blocks/values.ts).
 */
import { z } from 'zod';
import { wmValueBase as base } from '../../shared/wm/values.js';

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
