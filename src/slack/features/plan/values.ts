/**
 * Button values of the plan feature (`/drm plan`): the request and cancel buttons.
 *
 * Values are compact JSON checked with zod when read back (kit/blocks/values.ts).
 */
import { z } from 'zod';
import { siteIdValue, workspaceTag } from '../../shared/svc/values.js';

const ws = workspaceTag;
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
