/**
 * Roles. admin = Slack workspace admins/owners (users.info), plus user ids from ADMIN_USER_IDS or
 * the workspace settings, plus members of the configured admin user group; member otherwise.
 * Commands are checked in ONE place (the registry dispatcher); actions use `requireAdmin` (or
 * `admitToModal` when they open a modal) and modal submissions `adminGateForView`.
 */

import type { WebClient } from '@slack/web-api';
import { configAdminIds } from '../../config.js';
import type { WorkspaceKey } from '../../store/types.js';
import type { AppDeps } from '../deps.js';
import { appState } from './app-state.js';
import { LIMITS, type Message, type ModalView, modal, section } from './blocks.js';
import type { CommandContext, Role } from './context-types.js';
import { renderRefused } from './errors.js';
import { TtlLru } from './lru.js';
import { esc, truncate, userMention } from './mrkdwn.js';

export type { Role };

export interface SlackUserInfo {
  id: string;
  tz: string;
  isAdmin: boolean;
  isOwner: boolean;
}

const USER_TTL_MS = 10 * 60_000;
const GROUP_TTL_MS = 5 * 60_000;
/** Cache caps: per process, over every workspace (OAuth installs). */
export const USER_CACHE_MAX = 5_000;
export const GROUP_CACHE_MAX = 500;

/**
 * The caches and the role-check budget belong to the app (keyed by its configuration object, as
 * the Web API clients are): two apps in one process never share them, and a test's fresh
 * dependencies start empty without resetting anything.
 */
interface RoleState {
  users: TtlLru<SlackUserInfo>;
  groups: TtlLru<Set<string>>;
  /** users.info calls in progress: concurrent requests of one user share one call. */
  usersInFlight: Map<string, Promise<SlackUserInfo>>;
  budgetMs: number;
}
const stateOf = appState<RoleState>(() => ({
  users: new TtlLru<SlackUserInfo>(USER_CACHE_MAX, USER_TTL_MS),
  groups: new TtlLru<Set<string>>(GROUP_CACHE_MAX, GROUP_TTL_MS),
  usersInFlight: new Map(),
  budgetMs: DEFAULT_ROLE_BUDGET_MS,
}));

/** Forget cached users.info / user group answers (after the admin settings change). */
export function clearRoleCaches(deps: { config: object }): void {
  const st = stateOf(deps);
  st.users.clear();
  st.groups.clear();
}

/** How many users / groups are cached (tests, metrics). */
export function roleCacheSizes(deps: { config: object }): { users: number; groups: number } {
  const st = stateOf(deps);
  return { users: st.users.size, groups: st.groups.size };
}

/**
 * users.info, cached per workspace+user with a TTL. On failure the user is treated as a plain
 * member in UTC (the safe side): roles are never granted because Slack could not be asked.
 */
export async function userInfo(
  deps: Pick<AppDeps, 'now' | 'logger' | 'config'>,
  client: WebClient,
  workspace: WorkspaceKey,
  userId: string,
): Promise<SlackUserInfo> {
  const st = stateOf(deps);
  const userCache = st.users;
  const key = `${workspace}:${userId}`;
  const hit = userCache.get(key, deps.now());
  if (hit) return hit;
  // A burst of one user's commands asks Slack once (the map holds only calls in progress).
  const pending = st.usersInFlight.get(key);
  if (pending) return pending;
  const call = fetchUserInfo(deps, client, userId, userCache, key).finally(() =>
    st.usersInFlight.delete(key),
  );
  st.usersInFlight.set(key, call);
  return call;
}

async function fetchUserInfo(
  deps: Pick<AppDeps, 'now' | 'logger' | 'config'>,
  client: WebClient,
  userId: string,
  userCache: TtlLru<SlackUserInfo>,
  key: string,
): Promise<SlackUserInfo> {
  try {
    const r = await client.users.info({ user: userId });
    const u = r.user;
    const info: SlackUserInfo = {
      id: userId,
      tz: typeof u?.tz === 'string' && u.tz ? u.tz : 'UTC',
      isAdmin: u?.is_admin === true,
      isOwner: u?.is_owner === true || u?.is_primary_owner === true,
    };
    userCache.set(key, info, deps.now());
    return info;
  } catch (err) {
    deps.logger.warn({ err, userId }, 'users.info failed; treating the user as a member in UTC');
    return { id: userId, tz: 'UTC', isAdmin: false, isOwner: false };
  }
}

async function groupMembers(
  deps: Pick<AppDeps, 'now' | 'logger' | 'config'>,
  client: WebClient,
  workspace: WorkspaceKey,
  groupId: string,
): Promise<Set<string>> {
  const groupCache = stateOf(deps).groups;
  const key = `${workspace}:${groupId}`;
  const hit = groupCache.get(key, deps.now());
  if (hit) return hit;
  try {
    const r = await client.usergroups.users.list({ usergroup: groupId });
    const users = new Set(r.users ?? []);
    groupCache.set(key, users, deps.now());
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
  if (configAdminIds(deps.config, workspace).includes(userId)) return 'admin';
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
  const ids = [...new Set([...configAdminIds(deps.config, workspace), ...settings.adminUserIds])];
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
 * The role as far as it is known WITHOUT a Slack call: config and workspace settings (a store
 * read), then the cached users.info and admin-group answers. undefined when Slack must be asked.
 * For the places that must answer Slack first (view submissions: 3 s to ack).
 */
export async function localRole(
  deps: AppDeps,
  workspace: WorkspaceKey,
  userId: string,
): Promise<Role | undefined> {
  if (configAdminIds(deps.config, workspace).includes(userId)) return 'admin';
  const settings = await deps.store.settings.get(workspace);
  if (settings.adminUserIds.includes(userId)) return 'admin';
  const info = stateOf(deps).users.get(`${workspace}:${userId}`, deps.now());
  if (!info) return undefined;
  if (info.isAdmin || info.isOwner) return 'admin';
  if (!settings.adminUsergroupId) return 'member';
  const members = stateOf(deps).groups.get(`${workspace}:${settings.adminUsergroupId}`, deps.now());
  if (!members) return undefined;
  return members.has(userId) ? 'admin' : 'member';
}

/**
 * How long a modal-opening command or button waits for the role before it opens a "Checking…"
 * modal with the trigger id (which lasts 3 s). Normally users.info answers in well under a
 * second and members get a plain refusal with no modal; when Slack is slow or rate-limits
 * users.info (Tier 4, SDK retries of 0.5-3 s), the modal opens in time and the answer follows in
 * it. 1 s leaves room for the views.open round trip.
 */
const DEFAULT_ROLE_BUDGET_MS = 1_000;

/** Change the budget above for one app (tests); returns the previous value. */
export function setRoleCheckBudgetMs(deps: { config: object }, ms: number): number {
  const st = stateOf(deps);
  const before = st.budgetMs;
  st.budgetMs = ms;
  return before;
}

/** The role if it is known within the budget, else undefined (the check goes on in the background). */
export async function roleWithin(
  ctx: CommandContext,
  budgetMs = stateOf(ctx.deps).budgetMs,
): Promise<Role | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), budgetMs);
    timer.unref?.();
  });
  try {
    return await Promise.race([ctx.role(), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** A modal that stands in while the role is asked from Slack. */
export function checkingView(title: string): ModalView {
  return modal(CHECK_CALLBACK, title, [section(':hourglass_flowing_sand: Checking that you can do this…')]);
}

/** A modal that says who can do `what` (a refusal found after the modal opened). */
export function refusedView(what: string, admins: string): ModalView {
  return modal(
    CHECK_CALLBACK,
    'Admins only',
    [
      section(`:lock: *Only admins can ${esc(what)}.*`),
      section(`Ask ${admins} to do it, or to make you an admin.`),
    ],
    { close: 'Close' },
  );
}

/** callback_id of the checking and refusal modals (they have no submit button). */
export const CHECK_CALLBACK = 'role_check';

export interface AdmitOptions {
  /** What the user tried, after "Only admins can …" ("change the DRM settings"). */
  what: string;
  /** Audit action of a refusal. */
  action: string;
  /** Audit detail of a refusal (default "refused: <what>"). */
  detail?: string;
  /** Title of the "Checking…" modal (default "Please wait"). */
  title?: string;
}

/**
 * The role check of a command or button that opens a modal: the trigger id lasts
 * 3 s, so the role is awaited only for a short budget (`roleWithin`).
 * - known in time: admins go on (the caller opens its modal with `ctx.openView`); members are
 *   refused as by `requireAdmin` (audited, ephemeral reply, no modal);
 * - not known in time: a "Checking…" modal is opened with the trigger id, then the role is
 *   awaited: members see the modal turn into a refusal (audited); for admins `ctx.openView` is
 *   replaced so that the caller's modal fills the one already open (views.update).
 * Returns true when the caller may go on.
 */
export async function admitToModal(ctx: CommandContext, o: AdmitOptions): Promise<boolean> {
  const detail = o.detail ?? `refused: ${o.what}`;
  const quick = await roleWithin(ctx);
  if (quick === 'admin') return true;
  if (quick === 'member') {
    await ctx.audit({ action: o.action, detail, result: 'refused' });
    await ctx.respond(renderRefused(o.what, await ctx.admins()), { share: false });
    return false;
  }
  const viewId = await ctx.openView(checkingView(o.title ?? 'Please wait'));
  if ((await ctx.role()) === 'admin') {
    ctx.openView = async (view) => {
      if (!viewId) throw new Error('views.open returned no view id');
      await ctx.client.views.update({ view_id: viewId, view: view });
      return viewId;
    };
    return true;
  }
  await ctx.audit({ action: o.action, detail, result: 'refused' });
  if (viewId) {
    await ctx.client.views.update({
      view_id: viewId,
      view: refusedView(o.what, await ctx.admins()),
    });
  }
  return false;
}

/** Ok to go on; `acked` says whether the submission was already answered with the pending view. */
export type ViewGate = { ok: true; acked: boolean } | { ok: false };

/**
 * The role check of an admin-only modal submission, run after the form's own checks
 * (so inline errors stay possible). It never calls Slack before the ack:
 * - role known locally (`localRole`): an admin goes on with nothing acked; a member gets an
 *   inline refusal on `blockId` (the modal stays open) and the refusal is audited after the ack;
 * - not known locally: the submission is acked with `pending` (`response_action: 'update'`,
 *   e.g. "Saving…"), then the role is asked from Slack; an admin goes on (`acked: true`: the
 *   caller ends with views.update on `viewId`), a member sees the modal become a refusal view.
 * The modal was opened only for admins (the opening is checked too): this is the re-check.
 */
export async function adminGateForView(
  ctx: CommandContext,
  // biome-ignore lint/suspicious/noExplicitAny: Bolt's view ack is a union of AckFn types
  ack: (r?: any) => Promise<void>,
  o: { viewId: string; blockId: string; what: string; action: string; pending: ModalView },
): Promise<ViewGate> {
  const known = await localRole(ctx.deps, ctx.workspace, ctx.userId);
  if (known === 'admin') return { ok: true, acked: false };
  if (known === 'member') {
    const admins = (await ctx.admins())
      .replace(/<@([A-Z0-9]+)>/g, '@$1')
      .replace(/<!subteam\^([A-Z0-9]+)>/g, 'the admin group');
    await ack({
      response_action: 'errors',
      errors: { [o.blockId]: truncate(`Only admins can ${o.what}. Ask ${admins}.`, LIMITS.inlineError) },
    });
    await ctx.audit({ action: o.action, detail: `refused: ${o.what}`, result: 'refused' });
    return { ok: false };
  }
  await ack({ response_action: 'update', view: o.pending });
  if ((await ctx.role()) === 'admin') return { ok: true, acked: true };
  await ctx.audit({ action: o.action, detail: `refused: ${o.what}`, result: 'refused' });
  await ctx.client.views
    .update({ view_id: o.viewId, view: refusedView(o.what, await ctx.admins()) })
    .catch((err: unknown) => ctx.logger.warn({ err }, 'could not show the refusal in the modal'));
  return { ok: false };
}

/**
 * Who reads a reply, for deciding which buttons to render: the ephemeral reader's role, or
 * 'everyone' when the reply goes to the channel (the `share` flag). Hidden is not a guard: every
 * admin-only button is checked again when clicked (`role` of the button, `requireAdmin`).
 */
export type Audience = Role | 'everyone';

/** The audience of `ctx`'s replies (`share` overrides the command's own flag). */
export async function replyAudience(ctx: CommandContext, share: boolean = ctx.share): Promise<Audience> {
  return share ? 'everyone' : ctx.role();
}

/**
 * Whether a button needing `role` may be rendered for `audience`: member buttons for all; admin
 * buttons only for an admin reading alone (a channel message is read by members too: it names the
 * admin command instead).
 */
export function mayRender(audience: Audience, role: Role): boolean {
  return role === 'member' || audience === 'admin';
}
