/**
 * Roles. admin = Slack workspace admins/owners (users.info), plus user ids from ADMIN_USER_IDS or
 * the workspace settings, plus members of the configured admin user group; member otherwise.
 * Commands are checked in ONE place (the registry dispatcher); actions and views use `requireAdmin`.
 */
import type { WebClient } from '@slack/web-api';
import type { WorkspaceKey } from '../store/types.js';
import type { CommandContext } from './context.js';
import type { AppDeps } from './deps.js';
import type { Message } from './render/blocks.js';
import { renderRefused } from './render/errors.js';
import { userMention } from './render/mrkdwn.js';

export type Role = 'member' | 'admin';

export interface SlackUserInfo {
  id: string;
  tz: string;
  isAdmin: boolean;
  isOwner: boolean;
}

const USER_TTL_MS = 10 * 60_000;
const GROUP_TTL_MS = 5 * 60_000;
const userCache = new Map<string, { at: number; info: SlackUserInfo }>();
const groupCache = new Map<string, { at: number; users: Set<string> }>();

/** Forget cached users.info / user group answers (tests, settings changes). */
export function clearRoleCaches(): void {
  userCache.clear();
  groupCache.clear();
}

/**
 * users.info, cached per workspace+user with a TTL. On failure the user is treated as a plain
 * member in UTC (the safe side): roles are never granted because Slack could not be asked.
 */
export async function userInfo(
  deps: Pick<AppDeps, 'now' | 'logger'>,
  client: WebClient,
  workspace: WorkspaceKey,
  userId: string,
): Promise<SlackUserInfo> {
  const key = `${workspace}:${userId}`;
  const hit = userCache.get(key);
  if (hit && deps.now() - hit.at < USER_TTL_MS) return hit.info;
  try {
    const r = await client.users.info({ user: userId });
    const u = r.user;
    const info: SlackUserInfo = {
      id: userId,
      tz: typeof u?.tz === 'string' && u.tz ? u.tz : 'UTC',
      isAdmin: u?.is_admin === true,
      isOwner: u?.is_owner === true || u?.is_primary_owner === true,
    };
    userCache.set(key, { at: deps.now(), info });
    return info;
  } catch (err) {
    deps.logger.warn({ err, userId }, 'users.info failed; treating the user as a member in UTC');
    return { id: userId, tz: 'UTC', isAdmin: false, isOwner: false };
  }
}

async function groupMembers(
  deps: Pick<AppDeps, 'now' | 'logger'>,
  client: WebClient,
  workspace: WorkspaceKey,
  groupId: string,
): Promise<Set<string>> {
  const key = `${workspace}:${groupId}`;
  const hit = groupCache.get(key);
  if (hit && deps.now() - hit.at < GROUP_TTL_MS) return hit.users;
  try {
    const r = await client.usergroups.users.list({ usergroup: groupId });
    const users = new Set(r.users ?? []);
    groupCache.set(key, { at: deps.now(), users });
    return users;
  } catch (err) {
    deps.logger.warn({ err, groupId }, 'usergroups.users.list failed; group members not treated as admins');
    return new Set();
  }
}

/** The user's role in the workspace. */
export async function resolveRole(
  deps: AppDeps,
  client: WebClient,
  workspace: WorkspaceKey,
  userId: string,
): Promise<Role> {
  if (deps.config.adminUserIds.includes(userId)) return 'admin';
  const settings = await deps.store.settings.get(workspace);
  if (settings.adminUserIds.includes(userId)) return 'admin';
  const info = await userInfo(deps, client, workspace, userId);
  if (info.isAdmin || info.isOwner) return 'admin';
  if (settings.adminUsergroupId) {
    const members = await groupMembers(deps, client, workspace, settings.adminUsergroupId);
    if (members.has(userId)) return 'admin';
  }
  return 'member';
}

/**
 * Who to ask, mrkdwn: the configured admins by mention (ephemeral replies do not notify), the
 * admin user group, or "a workspace admin".
 */
export async function adminContacts(deps: AppDeps, workspace: WorkspaceKey): Promise<string> {
  const settings = await deps.store.settings.get(workspace);
  const ids = [...new Set([...deps.config.adminUserIds, ...settings.adminUserIds])];
  const parts: string[] = ids.slice(0, 5).map(userMention);
  if (ids.length > 5) parts.push(`${ids.length - 5} more`);
  if (settings.adminUsergroupId && /^S[A-Z0-9]+$/.test(settings.adminUsergroupId)) {
    parts.push(`<!subteam^${settings.adminUsergroupId}>`);
  }
  parts.push('a workspace admin');
  return parts.length === 1 ? parts[0]! : `${parts.slice(0, -1).join(', ')} or ${parts[parts.length - 1]}`;
}

/** The refusal message for `what` ("change the setup"). */
export async function refusal(deps: AppDeps, workspace: WorkspaceKey, what: string): Promise<Message> {
  return renderRefused(what, await adminContacts(deps, workspace));
}

/**
 * The role check for block actions (buttons, menus): the same rule as the dispatcher. When the
 * user is not an admin: audited as 'refused', told who can do it, and false is returned.
 */
export async function requireAdmin(ctx: CommandContext, what: string, action: string): Promise<boolean> {
  if ((await ctx.role()) === 'admin') return true;
  await ctx.audit({ action, detail: `refused: ${what}`, result: 'refused' });
  await ctx.respond(renderRefused(what, await ctx.admins()), { share: false });
  return false;
}

/**
 * The role check for view submissions: a refusal is shown inline on `blockId` (the modal stays
 * open) with who can do it. Returns false after acking; the caller must not ack again.
 */
export async function requireAdminForView(
  ctx: CommandContext,
  // biome-ignore lint/suspicious/noExplicitAny: Bolt's view ack is a union of AckFn types
  ack: (r?: any) => Promise<void>,
  blockId: string,
  what: string,
  action: string,
): Promise<boolean> {
  if ((await ctx.role()) === 'admin') return true;
  const admins = (await ctx.admins())
    .replace(/<@([A-Z0-9]+)>/g, '@$1')
    .replace(/<!subteam\^([A-Z0-9]+)>/g, 'the admin group');
  await ack({
    response_action: 'errors',
    errors: { [blockId]: `Only admins can ${what}. Ask ${admins}.`.slice(0, 150) },
  });
  await ctx.audit({ action, detail: `refused: ${what}`, result: 'refused' });
  return false;
}
