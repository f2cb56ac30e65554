/**
 * Roles. admin = Slack workspace admins/owners (users.info), plus user ids from ADMIN_USER_IDS or
 * the workspace settings, plus members of the configured admin user group; member otherwise.
 *
 * Guests. Slack guest accounts (single- and multi-channel guests: `is_restricted` /
 * `is_ultra_restricted` in users.info) are often partners; GUEST_ACCESS says what they may do:
 * `none` (default) bars them from the bot altogether, `member` lets them act as members. A guest
 * is never an admin through Slack or the admin user group; only an id listed explicitly
 * (ADMIN_USER_IDS, `/dwm setup admins add`) makes one an admin, and that wins over guest status.
 * `resolveStanding` gives the role or why the user is barred.
 *
 * People of another organisation (Slack Connect). In a channel shared with another organisation
 * its people can click the bot's buttons (and may reach other surfaces). users.info then answers
 * with THEIR profile: `team_id` of their home workspace, possibly `is_stranger: true` (Slack's
 * mark for a user of a different workspace), `enterprise_user.enterprise_id` / `enterprise_id`
 * for Enterprise Grid accounts, and `is_admin` / `is_owner` / `is_restricted` describing their
 * own organisation, not this one. (In a block action Slack's `team` stays the workspace the app answers for and the
 * clicker's own team is `user.team_id`; a modal opened by them reports their team in `team` and
 * this one in `view.app_installed_team_id`, which ./support.ts reads first.) The rule
 * (`belongsElsewhere`), on the users.info answer:
 * - `is_stranger: true`: external;
 * - no `team_id`: not external (nothing to compare; the behaviour before this rule);
 * - `team_id` is this workspace (its team id, or the enterprise id of an org-wide install, whose
 *   workspace key IS that enterprise id): not external;
 * - another `team_id`, but the user is of this workspace's enterprise (`enterprise_user.
 *   enterprise_id`, `enterprise_id`, or an `E…` team id equal to it) or lists this team in
 *   `enterprise_user.teams` / `teams`: not external (a colleague of the same Enterprise Grid);
 * - otherwise external.
 * This workspace's enterprise: the workspace key of an org-wide install; else the installation in
 * the store (OAuth), else auth.test with the bot token (one call per workspace, remembered). It is
 * asked only for a user with another team id and an enterprise id. When it cannot be known
 * (auth.test failing) such a user is external for this request (the safe side: no admin, barred
 * with GUEST_ACCESS=none) and the answer is not cached, so the next request asks again.
 * An external user is treated like a guest: `external` with GUEST_ACCESS=none (refused, told
 * they belong to another organisation), a member with `member`; never an admin through Slack or
 * the admin user group. An id listed explicitly as admin still wins.
 *
 * Checked in ONE place per kind: commands in the registry dispatcher, buttons and modal
 * submissions in ./interactions.ts, workflow steps in ./functions.ts, the Home tab where it is
 * published. They all go through `admit` (commands and buttons; `requireAdmin` / `admitToModal`
 * are its admin forms), `adminGateForView` / `barredAtSubmit` (submissions) and `stepBarred`.
 */

import type { WebClient } from '@slack/web-api';
import { configAdminIds, type GuestAccess } from '../../../config.js';
import { LruMap, TtlLru } from '../../../lru.js';
import type { WorkspaceKey } from '../../../store/types.js';
import type { AppDeps } from '../../deps.js';
import {
  context,
  type HomeView,
  header,
  LIMITS,
  type Message,
  type ModalView,
  message,
  modal,
  section,
} from '../blocks/blocks.js';
import { esc, truncate, userMention } from '../blocks/mrkdwn.js';
import { appState } from './app-state.js';
import { renderRefused } from './errors.js';
import type { CommandContext, Role, Standing } from './types.js';

export type { Role, Standing };

export interface SlackUserInfo {
  id: string;
  tz: string;
  isAdmin: boolean;
  isOwner: boolean;
  /** A single- or multi-channel guest (users.info `is_restricted` / `is_ultra_restricted`). */
  isGuest: boolean;
  /** An account of another organisation (Slack Connect): see the rule in the file header. */
  external?: boolean;
  /**
   * users.info failed and no earlier answer is known (never cached; the next request asks again):
   * `unknown-user` when Slack says it does not know the user here (`user_not_found`,
   * `user_not_visible`: a user of another workspace or organisation), `unavailable` otherwise
   * (rate limit, network, Slack down, a method the workspace does not offer).
   */
  lookupFailed?: 'unknown-user' | 'unavailable';
}

/**
 * Why a user may not use the bot at all (GUEST_ACCESS=none): a guest, a user Slack does not know
 * in this workspace (`unverified`), or a user of another organisation (`external`).
 */
export type Barred = Exclude<Standing, Role>;

export function isBarred(s: Standing | undefined): s is Barred {
  return s === 'guest' || s === 'unverified' || s === 'external';
}

/** GUEST_ACCESS of the app (`none` when the configuration does not say: the safe side). */
export function guestAccess(config: { guestAccess?: GuestAccess }): GuestAccess {
  return config.guestAccess ?? 'none';
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
  /** The last users.info answer per user (no TTL): used only when Slack cannot answer. */
  lastKnown: LruMap<string, SlackUserInfo>;
  /** The enterprise of each workspace (null: in none), once known (see `workspaceEnterprise`). */
  enterprises: LruMap<string, string | null>;
  budgetMs: number;
}
const stateOf = appState<RoleState>(() => ({
  users: new TtlLru<SlackUserInfo>(USER_CACHE_MAX, USER_TTL_MS),
  groups: new TtlLru<Set<string>>(GROUP_CACHE_MAX, GROUP_TTL_MS),
  usersInFlight: new Map(),
  lastKnown: new LruMap<string, SlackUserInfo>(USER_CACHE_MAX),
  enterprises: new LruMap<string, string | null>(GROUP_CACHE_MAX),
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
 * users.info, cached per workspace+user with a TTL. On failure: a non-admin, non-guest in UTC,
 * marked `lookupFailed` (not cached). Roles are never granted because Slack could not be asked;
 * whether such a user may use the bot at all is `resolveStanding`'s decision (GUEST_ACCESS).
 */
export async function userInfo(
  deps: Pick<AppDeps, 'now' | 'logger' | 'config' | 'store'>,
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
  const call = fetchUserInfo(deps, client, workspace, userId, userCache, key).finally(() =>
    st.usersInFlight.delete(key),
  );
  st.usersInFlight.set(key, call);
  return call;
}

/** A user users.info told nothing about: no role, no guest flag, UTC (see `lookupFailed`). */
function unknownUser(id: string, why: NonNullable<SlackUserInfo['lookupFailed']>): SlackUserInfo {
  return { id, tz: 'UTC', isAdmin: false, isOwner: false, isGuest: false, lookupFailed: why };
}

/** Where users.info says a user belongs (the fields `belongsElsewhere` reads). */
export interface UserOrigin {
  /** `is_stranger`: Slack marks the user as of a different workspace. */
  stranger: boolean;
  /** `team_id`: the user's home team (an `E…` id for some Enterprise Grid answers). */
  teamId?: string;
  /** `enterprise_user.enterprise_id` and `enterprise_id`. */
  enterpriseIds: string[];
  /** `enterprise_user.teams` and `teams`: the workspaces of the user's Grid they belong to. */
  teams: string[];
}

type UsersInfoUser = NonNullable<Awaited<ReturnType<WebClient['users']['info']>>['user']>;

export function originOf(u: UsersInfoUser | undefined): UserOrigin {
  const str = (x: unknown): x is string => typeof x === 'string' && x.length > 0;
  const list = (x: unknown): string[] => (Array.isArray(x) ? x.filter(str) : []);
  return {
    stranger: u?.is_stranger === true,
    ...(str(u?.team_id) ? { teamId: u.team_id } : {}),
    enterpriseIds: [u?.enterprise_user?.enterprise_id, u?.enterprise_id].filter(str),
    teams: [...list(u?.enterprise_user?.teams), ...list(u?.teams)],
  };
}

/**
 * Whether a user of `origin` belongs to another organisation than `workspace` (the rule in the
 * file header). `enterprise` gives the workspace's enterprise (null: in none; undefined: could not
 * be known) and is called only when the answer depends on it. undefined: it could not be known.
 */
export async function belongsElsewhere(
  origin: UserOrigin,
  workspace: WorkspaceKey,
  enterprise: () => Promise<string | null | undefined>,
): Promise<boolean | undefined> {
  if (origin.stranger) return true;
  if (!origin.teamId || origin.teamId === workspace) return false;
  if (origin.teams.includes(workspace)) return false;
  const ids = [...origin.enterpriseIds, ...(origin.teamId.startsWith('E') ? [origin.teamId] : [])];
  if (ids.length === 0) return true;
  const home = await enterprise();
  if (home === undefined) return undefined;
  return home === null || !ids.includes(home);
}

/**
 * The enterprise (Enterprise Grid) `workspace` belongs to: null when none, undefined when it
 * cannot be known now (not remembered). An org-wide install's key is its enterprise id; else the
 * installation in the store (OAuth), else auth.test with the workspace's bot token.
 */
export async function workspaceEnterprise(
  deps: Pick<AppDeps, 'logger' | 'config' | 'store'>,
  client: WebClient,
  workspace: WorkspaceKey,
): Promise<string | null | undefined> {
  if (workspace.startsWith('E')) return workspace;
  const known = stateOf(deps).enterprises.get(workspace);
  if (known !== undefined) return known;
  let found: string | null | undefined;
  if (deps.config.distribution === 'oauth') {
    const inst = (await deps.store.installations.get(workspace).catch(() => undefined)) as
      | { enterprise?: { id?: string } | null }
      | undefined;
    if (inst) found = inst.enterprise?.id ?? null;
  }
  if (found === undefined) {
    try {
      const r = await client.auth.test();
      found = typeof r.enterprise_id === 'string' && r.enterprise_id ? r.enterprise_id : null;
    } catch (err) {
      deps.logger.warn(
        { err, workspace },
        "auth.test failed: this workspace's enterprise is unknown for now",
      );
      return undefined;
    }
  }
  stateOf(deps).enterprises.set(workspace, found);
  return found;
}

async function fetchUserInfo(
  deps: Pick<AppDeps, 'now' | 'logger' | 'config' | 'store'>,
  client: WebClient,
  workspace: WorkspaceKey,
  userId: string,
  userCache: TtlLru<SlackUserInfo>,
  key: string,
): Promise<SlackUserInfo> {
  let u: UsersInfoUser | undefined;
  try {
    u = (await client.users.info({ user: userId })).user;
  } catch (err) {
    return userInfoFailed(deps, userId, key, err);
  }
  const external = await belongsElsewhere(originOf(u), workspace, () =>
    workspaceEnterprise(deps, client, workspace),
  );
  const info: SlackUserInfo = {
    id: userId,
    tz: typeof u?.tz === 'string' && u.tz ? u.tz : 'UTC',
    isAdmin: u?.is_admin === true,
    isOwner: u?.is_owner === true || u?.is_primary_owner === true,
    isGuest: u?.is_restricted === true || u?.is_ultra_restricted === true,
    ...(external !== false ? { external: true } : {}),
  };
  if (external === undefined) {
    // This workspace's enterprise is unknown for now: external for this request only.
    deps.logger.warn({ userId }, 'users.info: a user of another team; treated as external for now');
    return info;
  }
  userCache.set(key, info, deps.now());
  stateOf(deps).lastKnown.set(key, info);
  return info;
}

function userInfoFailed(
  deps: Pick<AppDeps, 'logger' | 'config'>,
  userId: string,
  key: string,
  err: unknown,
): SlackUserInfo {
  const code = (err as { code?: string; data?: { error?: string } } | undefined)?.data?.error;
  if (code === 'user_not_found' || code === 'user_not_visible') {
    deps.logger.warn({ userId, error: code }, 'users.info: Slack does not know this user in this workspace');
    return unknownUser(userId, 'unknown-user');
  }
  // Slack could not answer (rate limit, network, outage): the last answer it gave, if any (a
  // known guest stays a guest, an admin is NOT granted from memory: see resolveStanding).
  const last = stateOf(deps).lastKnown.get(key);
  if (last) {
    deps.logger.warn({ err, userId }, 'users.info failed; using the last answer Slack gave');
    return { ...last, isAdmin: false, isOwner: false };
  }
  deps.logger.warn({ err, userId }, 'users.info failed; the user is treated as a member (UTC)');
  return unknownUser(userId, 'unavailable');
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

/**
 * Is the user a member of one of `groups` (PERSONAL_DATA_USERGROUP: who may read end viewers'
 * personal data besides admins)? Never a guest or a person of another organisation (a group is
 * not an explicit listing, as for the admin group); a group Slack cannot list counts as empty.
 */
export async function inUserGroups(
  deps: AppDeps,
  client: WebClient,
  workspace: WorkspaceKey,
  userId: string,
  groups: readonly string[],
): Promise<boolean> {
  if (groups.length === 0) return false;
  const info = await userInfo(deps, client, workspace, userId);
  if (info.isGuest || info.external || info.lookupFailed) return false;
  for (const g of groups) {
    if ((await groupMembers(deps, client, workspace, g)).has(userId)) return true;
  }
  return false;
}

/**
 * The user's standing in the workspace:
 * 1. an id listed as admin (ADMIN_USER_IDS, the workspace's admin ids): admin, guest or not, and
 *    without asking Slack;
 * 2. users.info failed:
 *    - Slack says it does not know the user here (`user_not_found` / `user_not_visible`: someone
 *      of another workspace or organisation): `unverified` with GUEST_ACCESS=none (refused, like
 *      a guest), a member with `member`;
 *    - Slack could not answer (rate limit, network, outage): the last answer Slack gave for the
 *      user is used (a known guest stays barred; admin rights are never taken from memory); a
 *      user the process has never seen is a member for this request (never an admin). Refusing
 *      them would lock every member out whenever users.info is rate-limited or down, and the
 *      admin-only actions stay closed;
 * 3. a user of another organisation (Slack Connect, see the file header): `external` with
 *    GUEST_ACCESS=none, else `member` (their `is_admin` / `is_owner` / `is_restricted` describe
 *    their own organisation: never an admin here through Slack or the admin user group);
 * 4. a guest: `guest` with GUEST_ACCESS=none, else `member` (never admin through Slack or the
 *    admin user group: a group is not an explicit listing);
 * 5. Slack admins / owners, then the admin user group: admin; member otherwise.
 */
export async function resolveStanding(
  deps: AppDeps,
  client: WebClient,
  workspace: WorkspaceKey,
  userId: string,
): Promise<Standing> {
  if (configAdminIds(deps.config, workspace).includes(userId)) return 'admin';
  const settings = await deps.store.settings.get(workspace);
  if (settings.adminUserIds.includes(userId)) return 'admin';
  const info = await userInfo(deps, client, workspace, userId);
  const barGuests = guestAccess(deps.config) === 'none';
  if (info.lookupFailed === 'unknown-user' && barGuests) return 'unverified';
  if (info.external) return barGuests ? 'external' : 'member';
  if (info.isGuest) return barGuests ? 'guest' : 'member';
  if (info.isAdmin || info.isOwner) return 'admin';
  if (settings.adminUsergroupId) {
    const members = await groupMembers(deps, client, workspace, settings.adminUsergroupId);
    if (members.has(userId)) return 'admin';
  }
  return 'member';
}

/** The user's role in the workspace (a barred user is not an admin). */
export async function resolveRole(
  deps: AppDeps,
  client: WebClient,
  workspace: WorkspaceKey,
  userId: string,
): Promise<Role> {
  return roleOfStanding(await resolveStanding(deps, client, workspace, userId));
}

export function roleOfStanding(s: Standing): Role {
  return s === 'admin' ? 'admin' : 'member';
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
  return admit(ctx, { role: 'admin', what, action });
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
  const s = await localStanding(deps, workspace, userId);
  return s === undefined ? undefined : roleOfStanding(s);
}

/** `resolveStanding` as far as it is known without a Slack call (see `localRole`). */
export async function localStanding(
  deps: AppDeps,
  workspace: WorkspaceKey,
  userId: string,
): Promise<Standing | undefined> {
  if (configAdminIds(deps.config, workspace).includes(userId)) return 'admin';
  const settings = await deps.store.settings.get(workspace);
  if (settings.adminUserIds.includes(userId)) return 'admin';
  // A failed users.info is never cached: unknown here, asked again by the caller.
  const info = stateOf(deps).users.get(`${workspace}:${userId}`, deps.now());
  if (!info) return undefined;
  const barGuests = guestAccess(deps.config) === 'none';
  if (info.external) return barGuests ? 'external' : 'member';
  if (info.isGuest) return barGuests ? 'guest' : 'member';
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
  const s = await standingWithin(ctx, budgetMs);
  return s === undefined ? undefined : roleOfStanding(s);
}

/** The standing if it is known within the budget, else undefined (the check goes on). */
export async function standingWithin(
  ctx: CommandContext,
  budgetMs = stateOf(ctx.deps).budgetMs,
): Promise<Standing | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), budgetMs);
    timer.unref?.();
  });
  try {
    return await Promise.race([ctx.standing(), late]);
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

export interface AdmitRequest extends AdmitOptions {
  /** The role the request needs: 'member' (anyone the bot serves) or 'admin'. */
  role: Role;
  /**
   * With `role: 'admin'`: Slack user groups whose members pass too (PERSONAL_DATA_USERGROUP for
   * the requests that show end viewers' personal data; `personalDataGroups`).
   */
  groups?: readonly string[];
  /** The request opens a modal with the trigger id (3 s): wait for the role only briefly. */
  modal?: boolean;
}

/** Audit detail of a refusal: why (guest, unverified, external, not an admin) and what was tried. */
function refusalDetail(s: Standing, o: AdmitOptions): string {
  const base = o.detail ?? `refused: ${o.what}`;
  if (s === 'guest') return `${base} (guest account)`;
  if (s === 'unverified') return `${base} (Slack does not know the user in this workspace)`;
  if (s === 'external') return `${base} (account of another organisation)`;
  return base;
}

function allowed(s: Standing, role: Role): boolean {
  return !isBarred(s) && (role === 'member' || s === 'admin');
}

/** The reply to a refused user: barred (guest / unverified / external) or not an admin. */
export async function refusalFor(ctx: CommandContext, s: Standing, what: string): Promise<Message> {
  const admins = await ctx.admins();
  return isBarred(s) ? renderBarred(s, admins) : renderRefused(what, admins);
}

/**
 * The check of a command or button (the only one: the registry and ./interactions.ts call it):
 * barred users (GUEST_ACCESS=none: guests, users Slack does not know in this workspace, users of
 * another organisation) are refused
 * whatever the role; `role: 'admin'` refuses members too. A refusal is audited and answered
 * (ephemeral). Returns true when the caller may go on.
 *
 * With `modal` (the caller opens a modal with the trigger id, which lasts 3 s) the standing is
 * awaited only for a short budget (`standingWithin`):
 * - known in time: as above (a refusal is a reply, no modal);
 * - not known in time: a "Checking…" modal is opened with the trigger id, then the standing is
 *   awaited: a refused user sees the modal turn into the refusal (audited); otherwise
 *   `ctx.openView` is replaced so that the caller's modal fills the one already open
 *   (views.update).
 */
export async function admit(ctx: CommandContext, o: AdmitRequest): Promise<boolean> {
  const refuse = async (s: Standing) => {
    await ctx.audit({ action: o.action, detail: refusalDetail(s, o), result: 'refused' });
  };
  const pass = async (s: Standing) =>
    allowed(s, o.role) ||
    (!isBarred(s) &&
      (o.groups?.length ?? 0) > 0 &&
      (await inUserGroups(ctx.deps, ctx.client, ctx.workspace, ctx.userId, o.groups ?? [])));
  const quick = o.modal ? await standingWithin(ctx) : await ctx.standing();
  if (quick !== undefined) {
    if (await pass(quick)) return true;
    await refuse(quick);
    await ctx.respond(await refusalFor(ctx, quick, o.what), { share: false });
    return false;
  }
  const viewId = await ctx.openView(checkingView(o.title ?? 'Please wait'));
  const s = await ctx.standing();
  if (await pass(s)) {
    ctx.openView = async (view) => {
      if (!viewId) throw new Error('views.open returned no view id');
      await ctx.client.views.update({ view_id: viewId, view: view });
      return viewId;
    };
    return true;
  }
  await refuse(s);
  if (viewId) {
    const admins = await ctx.admins();
    await ctx.client.views.update({
      view_id: viewId,
      view: isBarred(s) ? barredView(s, admins) : refusedView(o.what, admins),
    });
  }
  return false;
}

/**
 * The admin check of a command or button that opens a modal (`admit` with `role: 'admin'` and
 * `modal`): the trigger id lasts 3 s, so the standing is awaited only for a short budget.
 * Returns true when the caller may go on (its `ctx.openView` may then fill the "Checking…" modal).
 */
export async function admitToModal(ctx: CommandContext, o: AdmitOptions): Promise<boolean> {
  return admit(ctx, { ...o, role: 'admin', modal: true });
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
  const known = await localStanding(ctx.deps, ctx.workspace, ctx.userId);
  if (known === 'admin') return { ok: true, acked: false };
  if (isBarred(known)) {
    await refuseSubmission(ctx, ack, known, o);
    return { ok: false };
  }
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
  const s = await ctx.standing();
  if (s === 'admin') return { ok: true, acked: true };
  await ctx.audit({ action: o.action, detail: refusalDetail(s, o), result: 'refused' });
  const admins = await ctx.admins();
  await ctx.client.views
    .update({ view_id: o.viewId, view: isBarred(s) ? barredView(s, admins) : refusedView(o.what, admins) })
    .catch((err: unknown) => ctx.logger.warn({ err }, 'could not show the refusal in the modal'));
  return { ok: false };
}

/** A barred user's submission known before the ack: the form becomes the refusal (audited). */
async function refuseSubmission(
  ctx: CommandContext,
  // biome-ignore lint/suspicious/noExplicitAny: Bolt's view ack is a union of AckFn types
  ack: (r?: any) => Promise<void>,
  s: Barred,
  o: { what: string; action: string },
): Promise<void> {
  await ack({ response_action: 'update', view: barredView(s, await ctx.admins()) });
  await ctx.audit({ action: o.action, detail: refusalDetail(s, o), result: 'refused' });
}

/**
 * The guest check of every modal submission (./interactions.ts), in two steps because nothing
 * may call Slack before the ack:
 * - `before` (ahead of the form's own checks, no Slack call): a user known to be barred
 *   (`localStanding`) sees the form become the refusal; returns false;
 * - `after` (once the submission is acked, before `submit` runs): when the standing was not
 *   known locally it is asked from Slack now; a barred user is refused (audited), in the modal
 *   when it is still open (`viewId`, the view shown at the ack), else by a direct message.
 *   Returns false then, and `submit` must not run.
 * Admin submissions get the same through `adminGateForView`.
 */
export function barredAtSubmit(ctx: CommandContext, o: { what: string; action: string }) {
  let known: Standing | undefined;
  return {
    async before(
      // biome-ignore lint/suspicious/noExplicitAny: Bolt's view ack is a union of AckFn types
      ack: (r?: any) => Promise<void>,
    ): Promise<boolean> {
      known = await localStanding(ctx.deps, ctx.workspace, ctx.userId);
      if (!isBarred(known)) return true;
      await refuseSubmission(ctx, ack, known, o);
      return false;
    },
    async after(viewId: string | undefined): Promise<boolean> {
      if (known !== undefined) return true;
      const s = await ctx.standing();
      if (!isBarred(s)) return true;
      await ctx.audit({ action: o.action, detail: refusalDetail(s, o), result: 'refused' });
      const admins = await ctx.admins();
      const shown = viewId
        ? await ctx.client.views
            .update({ view_id: viewId, view: barredView(s, admins) })
            .then(() => true)
            .catch(() => false)
        : false;
      if (!shown) await ctx.respond(renderBarred(s, admins), { share: false });
      return false;
    },
  };
}

// -- What a barred user is told ------------------------------------------------------------------

const GUEST_WHAT = "Guest accounts can't use this bot in this workspace.";
const UNVERIFIED_WHAT = "Couldn't confirm your account in this workspace, so nothing was done.";
const EXTERNAL_WHAT = "Accounts of other organisations can't use this bot in this workspace.";

/** What / why / next of a barred user, mrkdwn (`admins` from `adminContacts`). */
function barredParts(s: Barred, admins: string): { what: string; why: string; next: string } {
  if (s === 'guest') {
    return {
      what: GUEST_WHAT,
      why: 'Your Slack account is a guest account, and this workspace lets only its full members use DRM ChatOps.',
      next: `If you need something done, ask ${admins}.`,
    };
  }
  if (s === 'external') {
    return {
      what: EXTERNAL_WHAT,
      why: 'Your Slack account belongs to another organisation (you reach this workspace through a shared Slack Connect channel), and this workspace lets only its own full members use DRM ChatOps.',
      next: `If you need something done here, ask ${admins}.`,
    };
  }
  return {
    what: UNVERIFIED_WHAT,
    why: 'Slack does not know your account in this workspace (an account of another workspace or organisation), and this workspace lets only its full members use DRM ChatOps.',
    next: `If you need something done here, ask ${admins}.`,
  };
}

/** The reply to a barred user (commands, buttons, submissions answered by message). */
export function renderBarred(s: Barred, admins: string): Message {
  const p = barredParts(s, admins);
  return message(p.what, [section(`:lock: *${p.what}*\n${p.why}`), section(p.next)]);
}

/** The modal a barred user's form or "Checking…" modal turns into. */
export function barredView(s: Barred, admins: string): ModalView {
  const p = barredParts(s, admins);
  return modal(
    CHECK_CALLBACK,
    'Not available',
    [section(`:lock: *${p.what}*`), section(p.why), section(p.next)],
    { close: 'Close' },
  );
}

/** The Home tab of a barred user: what / why / next, no buttons. */
export function barredHomeView(s: Barred, admins: string): HomeView {
  const p = barredParts(s, admins);
  return {
    type: 'home',
    blocks: [
      header('DRM ChatOps'),
      section(`:lock: *${p.what}*`),
      section(p.why),
      section(p.next),
      context('This tab shows no data and no actions to accounts the bot does not serve.'),
    ],
  };
}

/**
 * The check of a Workflow Builder step run for `userId` (./functions.ts): the text the step
 * fails with when that user is barred, else undefined. A step that names no user runs as the
 * workflow (its builder, a member, chose so) and is not checked here.
 */
export async function stepBarred(ctx: CommandContext): Promise<string | undefined> {
  const s = await ctx.standing();
  if (!isBarred(s)) return undefined;
  const p = barredParts(s, await ctx.admins());
  return [p.what, p.why, p.next].join(' ');
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

/**
 * The user groups that open the personal-data requests (`personalData: true` on a command entry
 * or a button) to members besides admins: PERSONAL_DATA_USERGROUP.
 */
export function personalDataGroups(config: { personalDataUsergroupIds?: string[] }): readonly string[] {
  return config.personalDataUsergroupIds ?? [];
}
