/**
 * Who counts as an admin of a workspace besides its Slack admins/owners, and where the audit log is
 * mirrored: plain reads and updates of the workspace settings. The Slack layer decides who may call
 * these (admins only) and renders the result.
 */

import { ValidationError } from '../api/errors.js';
import type { Store, WorkspaceKey, WorkspaceSettings } from '../store/types.js';

interface Deps {
  store: Pick<Store, 'settings'>;
}

const USER_ID = /^[UW][A-Z0-9]{2,}$/;
const GROUP_ID = /^S[A-Z0-9]{2,}$/;
const CHANNEL_ID = /^[CG][A-Z0-9]{2,}$/;

function check(field: string, ids: string[], re: RegExp, what: string): void {
  const bad = ids.filter((id) => !re.test(id));
  if (bad.length > 0) {
    throw new ValidationError('admins', [
      {
        field,
        message: `${bad.map((b) => `"${b.slice(0, 40)}"`).join(', ')} is not ${what}. Mention it with Slack's autocomplete.`,
      },
    ]);
  }
}

/** Adds user ids (already decoded from `<@U…>` mentions); returns the new settings. */
export async function addAdmins(deps: Deps, ws: WorkspaceKey, userIds: string[]): Promise<WorkspaceSettings> {
  check('users', userIds, USER_ID, 'a user (like @alex)');
  const s = await deps.store.settings.get(ws);
  const next = { ...s, adminUserIds: [...new Set([...s.adminUserIds, ...userIds])] };
  await deps.store.settings.put(ws, next);
  return next;
}

export async function removeAdmins(
  deps: Deps,
  ws: WorkspaceKey,
  userIds: string[],
): Promise<{ settings: WorkspaceSettings; notAdmins: string[] }> {
  check('users', userIds, USER_ID, 'a user (like @alex)');
  const s = await deps.store.settings.get(ws);
  const notAdmins = userIds.filter((id) => !s.adminUserIds.includes(id));
  const next = { ...s, adminUserIds: s.adminUserIds.filter((id) => !userIds.includes(id)) };
  await deps.store.settings.put(ws, next);
  return { settings: next, notAdmins };
}

/** Sets (or clears with undefined) the user group whose members are admins. */
export async function setAdminGroup(
  deps: Deps,
  ws: WorkspaceKey,
  groupId: string | undefined,
): Promise<WorkspaceSettings> {
  if (groupId !== undefined) check('group', [groupId], GROUP_ID, 'a user group (like @media-admins)');
  return setOrClear(deps, ws, 'adminUsergroupId', groupId);
}

/** Sets (or clears with undefined) the channel where audit entries are mirrored. */
export async function setAuditChannel(
  deps: Deps,
  ws: WorkspaceKey,
  channelId: string | undefined,
): Promise<WorkspaceSettings> {
  if (channelId !== undefined) check('channel', [channelId], CHANNEL_ID, 'a channel (like #media-audit)');
  return setOrClear(deps, ws, 'auditChannelId', channelId);
}

/** Stores the setting (an empty or absent value removes it); returns the new settings. */
async function setOrClear(
  deps: Deps,
  ws: WorkspaceKey,
  key: 'adminUsergroupId' | 'auditChannelId',
  value: string | undefined,
): Promise<WorkspaceSettings> {
  const next: WorkspaceSettings = { ...(await deps.store.settings.get(ws)) };
  if (value) next[key] = value;
  else delete next[key];
  await deps.store.settings.put(ws, next);
  return next;
}

/** Channels shared with another organisation that the bot may post in (see WorkspaceSettings). */
export function allowedSharedChannels(
  s: WorkspaceSettings,
): Array<{ channelId: string; by: string; at: string }> {
  return s.sharedChannels ?? [];
}

/**
 * Allow the bot to post in (and share replies to) one channel shared with another organisation.
 * `already`: it was allowed before (nothing changed).
 */
export async function allowSharedChannel(
  deps: Deps,
  ws: WorkspaceKey,
  channelId: string,
  by: string,
  at: string,
): Promise<{ settings: WorkspaceSettings; already: boolean }> {
  check('channel', [channelId], CHANNEL_ID, 'a channel (like #partner-delivery)');
  const s = await deps.store.settings.get(ws);
  const list = allowedSharedChannels(s);
  if (list.some((c) => c.channelId === channelId)) return { settings: s, already: true };
  if (list.length >= 1000) {
    throw new ValidationError('admins', [
      { field: 'channel', message: 'At most 1000 shared channels can be allowed: revoke one first.' },
    ]);
  }
  const next: WorkspaceSettings = { ...s, sharedChannels: [...list, { channelId, by, at }] };
  await deps.store.settings.put(ws, next);
  return { settings: next, already: false };
}

/** Take back the allowance of a shared channel. `was`: it had been allowed. */
export async function revokeSharedChannel(
  deps: Deps,
  ws: WorkspaceKey,
  channelId: string,
): Promise<{ settings: WorkspaceSettings; was: boolean }> {
  check('channel', [channelId], CHANNEL_ID, 'a channel (like #partner-delivery)');
  const s = await deps.store.settings.get(ws);
  const list = allowedSharedChannels(s);
  const rest = list.filter((c) => c.channelId !== channelId);
  const next: WorkspaceSettings = { ...s };
  if (rest.length > 0) next.sharedChannels = rest;
  else delete next.sharedChannels;
  if (rest.length !== list.length) await deps.store.settings.put(ws, next);
  return { settings: next, was: rest.length !== list.length };
}
