/**
 * Button values of the members feature (`/drm members`): a list page, or a button on one member.
 *
 * Values are compact JSON checked with zod when read back (kit/blocks/values.ts).
 */
import { z } from 'zod';
import { workspaceTag } from '../../shared/svc/values.js';

const ws = workspaceTag;

/** Members list page, or a button on one member (m = member seq, e = e-mail for messages). */
export const membersValue = z.object({
  w: ws,
  p: z.number().int().min(1),
  m: z.number().int().positive().optional(),
});

export type MembersValue = z.infer<typeof membersValue>;
