/**
 * Values of the register feature (`/dwm register`): a registration draft (the form's metadata) and
 * a stored run's report (resume, retry the failed batches).
 *
 * Values are compact JSON checked with zod when read back (kit/blocks/values.ts).
 */
import { z } from 'zod';
import { wmValueBase as base } from '../../shared/wm/values.js';

export const draftValue = z.object({ ...base, d: z.string().min(1).max(64) });

/**
 * The registration form's metadata (`formMetadata` in ./modals.ts), also carried by the buttons
 * inside the registration modals: workspace, site, draft id.
 */
export const formMetaValue = z.object({ w: z.string(), s: z.string(), d: z.string().optional() });

export type FormMetaValue = z.infer<typeof formMetaValue>;

/** Resume (or retry the failed batches of) a stored registration run: workspace, site, report id. */
export const reportValue = z.object({ ...base, r: z.string().min(1).max(64), f: z.literal(1).optional() });

export type ReportValue = z.infer<typeof reportValue>;

export type DraftValue = z.infer<typeof draftValue>;
