/**
 * Button values of the DRM data feature (`/drm licenses|users|devices|cids|packaging`): the table
 * kinds, the filters a table carries, its paging and export buttons and the packaging "More"
 * cursor.
 *
 * Values are compact JSON checked with zod when read back (kit/blocks/values.ts).
 */
import { z } from 'zod';
import { CURSOR_MAX_CHARS } from '../../../ops/service/drm-data.js';
import { isIanaTimeZone } from '../../../time.js';
import { siteIdValue, workspaceTag } from '../../shared/svc/values.js';

const ws = workspaceTag;
const site = siteIdValue;

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
