/**
 * What Slack says about a user, cached: users.info (role flags, guest flags, time zone, where the
 * user belongs), the members of a user group, and the enterprise (Enterprise Grid) a workspace is
 * in. Per app (../../app-state.ts), bounded (`USER_CACHE_MAX`, `GROUP_CACHE_MAX`) and with a TTL; a
 * failed users.info is never cached (the last answer Slack gave stands in when it cannot answer).
 * What the answers MEAN for a user (admin, member, guest, external) is ./standing.ts.
 *
 * People of another organisation (Slack Connect). In a channel shared with another organisation
 * its people can click the bot's buttons (and may reach other surfaces). users.info then answers
 * with THEIR profile: `team_id` of their home workspace, possibly `is_stranger: true` (Slack's
 * mark for a user of a different workspace), `enterprise_user.enterprise_id` / `enterprise_id`
 * for Enterprise Grid accounts, and `is_admin` / `is_owner` / `is_restricted` describing their
 * own organisation, not this one. (In a block action Slack's `team` stays the workspace the app answers for and the
 * clicker's own team is `user.team_id`; a modal opened by them reports their team in `team` and
 * this one in `view.app_installed_team_id`, which ../support.ts reads first.) The rule
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
 */

import type { WebClient } from '@slack/web-api';
import { LruMap, TtlLru } from '../../../../lru.js';
import type { WorkspaceKey } from '../../../../store/types.js';
import type { AppDeps } from '../../../deps.js';
import { appState } from '../../app-state.js';

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

const USER_TTL_MS = 10 * 60_000;
const GROUP_TTL_MS = 5 * 60_000;
/** Cache caps: per process, over every workspace (OAuth installs). */
export const USER_CACHE_MAX = 5_000;
export const GROUP_CACHE_MAX = 500;

/**
 * The caches belong to the app (keyed by its configuration object, as the Web API clients are):
 * two apps in one process never share them, and a test's fresh dependencies start empty without
 * resetting anything.
 */
interface UserCaches {
  users: TtlLru<SlackUserInfo>;
  groups: TtlLru<Set<string>>;
  /** users.info calls in progress: concurrent requests of one user share one call. */
  usersInFlight: Map<string, Promise<SlackUserInfo>>;
  /** The last users.info answer per user (no TTL): used only when Slack cannot answer. */
  lastKnown: LruMap<string, SlackUserInfo>;
  /** The enterprise of each workspace (null: in none), once known (see `workspaceEnterprise`). */
  enterprises: LruMap<string, string | null>;
}
const stateOf = appState<UserCaches>(() => ({
  users: new TtlLru<SlackUserInfo>(USER_CACHE_MAX, USER_TTL_MS),
  groups: new TtlLru<Set<string>>(GROUP_CACHE_MAX, GROUP_TTL_MS),
  usersInFlight: new Map(),
  lastKnown: new LruMap<string, SlackUserInfo>(USER_CACHE_MAX),
  enterprises: new LruMap<string, string | null>(GROUP_CACHE_MAX),
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

/** The cached users.info answer (no Slack call; undefined when not cached or expired). */
export function cachedUserInfo(
  deps: Pick<AppDeps, 'now' | 'config'>,
  workspace: WorkspaceKey,
  userId: string,
): SlackUserInfo | undefined {
  return stateOf(deps).users.get(`${workspace}:${userId}`, deps.now());
}

/** The cached members of a user group (no Slack call; undefined when not cached or expired). */
export function cachedGroupMembers(
  deps: Pick<AppDeps, 'now' | 'config'>,
  workspace: WorkspaceKey,
  groupId: string,
): Set<string> | undefined {
  return stateOf(deps).groups.get(`${workspace}:${groupId}`, deps.now());
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

/** The members of a user group (cached); a group Slack cannot list counts as empty. */
export async function groupMembers(
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
