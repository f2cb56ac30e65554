/**
 * Button values of the settings feature (`/drm settings`): the edit button (workspace and site).
 *
 * Values are compact JSON checked with zod when read back (kit/blocks/values.ts).
 */
import { z } from 'zod';
import { siteIdValue, workspaceTag } from '../../shared/svc/values.js';

const ws = workspaceTag;
const site = siteIdValue;

export const settingsValue = z.object({ w: ws, s: site });

export type SettingsValue = z.infer<typeof settingsValue>;
