/**
 * The standing policy: who may use the bot, and as what. THE security rule of the Slack layer
 * (`resolveStanding`); everything else in ./ asks Slack for the facts, words a refusal or applies
 * the answer.
 *
 * Roles. admin = Slack workspace admins/owners (users.info), plus user ids from ADMIN_USER_IDS or
 * the workspace settings, plus members of the configured admin user group; member otherwise.
 *
 * Guests. Slack guest accounts (single- and multi-channel guests: `is_restricted` /
 * `is_ultra_restricted` in users.info) are often partners; GUEST_ACCESS says what they may do:
 * `none` (default) bars them from the bot altogether, `member` lets them act as members. A guest
 * is never an admin through Slack or the admin user group; only an id listed explicitly
 * (ADMIN_USER_IDS, `/dwm setup admins add`) makes one an admin, and that wins over guest status.
 *
 * People of another organisation (Slack Connect; how they are recognised: ./slack-users.ts
 * `belongsElsewhere`) are treated like guests: `external` with GUEST_ACCESS=none (refused, told
 * they belong to another organisation), a member with `member`; never an admin through Slack or
 * the admin user group. An id listed explicitly as admin still wins.
 *
 * Applied in ONE place per kind (./admission.ts): commands in the registry dispatcher, buttons
 * and modal submissions in ../../interactions/registry.ts, workflow steps in
 * ../../interactions/steps.ts, the Home tab where it is published.
 */

import type { WebClient } from '@slack/web-api';
import { configAdminIds, type GuestAccess } from '../../../../config.js';
import type { WorkspaceKey } from '../../../../store/types.js';
import type { AppDeps } from '../../../deps.js';
import type { Role, Standing } from '../types.js';
import {
  cachedGroupMembers,
  cachedUserInfo,
  groupMembers,
  type SlackUserInfo,
  userInfo,
} from './slack-users.js';

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
 * 3. a user of another organisation (Slack Connect, recognised in ./slack-users.ts): `external` with
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
  const s = await standingFrom(deps, workspace, userId, {
    user: () => userInfo(deps, client, workspace, userId),
    group: (groupId) => groupMembers(deps, client, workspace, groupId),
  });
  // Slack was asked: every fact is known (a failed call answers too, see userInfo / groupMembers).
  return s ?? 'member';
}

/** Where the facts of the rule come from: Slack (asked, cached), or the caches only. */
interface Facts {
  /** users.info; undefined: not known without asking Slack. */
  user(): Promise<SlackUserInfo | undefined>;
  /** The members of a user group; undefined: not known without asking Slack. */
  group(groupId: string): Promise<Set<string> | undefined>;
}

/** The rule of `resolveStanding`, on `facts`; undefined when a fact it needs is not known. */
async function standingFrom(
  deps: AppDeps,
  workspace: WorkspaceKey,
  userId: string,
  facts: Facts,
): Promise<Standing | undefined> {
  if (configAdminIds(deps.config, workspace).includes(userId)) return 'admin';
  const settings = await deps.store.settings.get(workspace);
  if (settings.adminUserIds.includes(userId)) return 'admin';
  const info = await facts.user();
  if (!info) return undefined;
  const barGuests = guestAccess(deps.config) === 'none';
  if (info.lookupFailed === 'unknown-user' && barGuests) return 'unverified';
  if (info.external) return barGuests ? 'external' : 'member';
  if (info.isGuest) return barGuests ? 'guest' : 'member';
  if (info.isAdmin || info.isOwner) return 'admin';
  if (!settings.adminUsergroupId) return 'member';
  const members = await facts.group(settings.adminUsergroupId);
  if (!members) return undefined;
  return members.has(userId) ? 'admin' : 'member';
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
  // A failed users.info is never cached: unknown here, asked again by the caller.
  return standingFrom(deps, workspace, userId, {
    user: async () => cachedUserInfo(deps, workspace, userId),
    group: async (groupId) => cachedGroupMembers(deps, workspace, groupId),
  });
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
 * The user groups that open the personal-data requests (`personalData: true` on a command entry
 * or a button) to members besides admins: PERSONAL_DATA_USERGROUP.
 */
export function personalDataGroups(config: { personalDataUsergroupIds?: string[] }): readonly string[] {
  return config.personalDataUsergroupIds ?? [];
}
