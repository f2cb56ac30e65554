/**
 * Publishing the App Home tab. `publishHome` gathers the data (src/ops/home.ts) and calls
 * views.publish for one user; `refreshHome` runs when something the tab
 * shows changes (a request declared `changesHome`, through the kit; a job the watcher saw change): it
 * re-publishes for one user, or for every user who opened the tab in the last 7 days.
 *
 * Refreshes of the same workspace/user are coalesced: while one runs, further calls mark it dirty
 * and it runs once more at the end (so a burst of 50 notifications costs two refreshes, not 50).
 * The refreshes in flight belong to the app (kit/app-state.ts): two apps never coalesce together.
 * Nothing here throws: a failed publish is logged (warn) and the next refresh tries again.
 */
import type { WebClient } from '@slack/web-api';
import pLimit from 'p-limit';
import { z } from 'zod';
import { gatherHome, type HomeData } from '../../../ops/home.js';
import { notifyHomeSummary } from '../../../ops/notify-home.js';
import type { WorkspaceKey } from '../../../store/types.js';
import type { AppDeps } from '../../deps.js';
import { appState } from '../../kit/app-state.js';
import { adminContacts, barredHomeView } from '../../kit/context/roles/refusals.js';
import { userInfo } from '../../kit/context/roles/slack-users.js';
import { isBarred, resolveStanding, roleOfStanding } from '../../kit/context/roles/standing.js';
import { webClients } from '../../kit/web/client.js';
import { homeView } from './render.js';

export const HOME_VIEWERS_NS = 'home-viewers';
/** Users who opened the tab within this window get refreshed by `refreshHome(deps, ws)`. */
export const VIEWER_WINDOW_MS = 7 * 24 * 3600_000;
/** At most this many viewers are refreshed per workspace (most recent first). */
export const MAX_VIEWERS_REFRESHED = 50;

const viewerSchema = z.object({ openedAt: z.number() });
type Viewer = z.infer<typeof viewerSchema>;

/** Remember that a user opened the tab (refreshHome without a user refreshes these). */
export async function recordViewer(deps: AppDeps, workspace: WorkspaceKey, userId: string): Promise<void> {
  await deps.store
    .docs<Viewer>(HOME_VIEWERS_NS, viewerSchema)
    .put(workspace, userId, { openedAt: deps.now() }, VIEWER_WINDOW_MS);
}

async function recentViewers(deps: AppDeps, workspace: WorkspaceKey): Promise<string[]> {
  const repo = deps.store.docs<Viewer>(HOME_VIEWERS_NS, viewerSchema);
  const out: Array<{ id: string; at: number }> = [];
  for (const id of await repo.list(workspace)) {
    const v = await repo.get(workspace, id).catch(() => undefined);
    if (v && deps.now() - v.openedAt <= VIEWER_WINDOW_MS) out.push({ id, at: v.openedAt });
  }
  return out
    .sort((a, b) => b.at - a.at)
    .slice(0, MAX_VIEWERS_REFRESHED)
    .map((v) => v.id);
}

/**
 * A Web API client for the workspace (kit/web/client.ts: cached, forgotten on uninstall):
 * undefined when the app is not installed there.
 */
export function workspaceSlackClient(deps: AppDeps, workspace: WorkspaceKey): Promise<WebClient | undefined> {
  return webClients(deps).forWorkspace(workspace);
}

/**
 * Render and publish the tab for one user (data gathered when not given). Throws on Slack errors,
 * and when the workspace settings cannot be read (who the viewer is stays unknown: no tab is
 * published rather than one with a guessed role).
 */
export async function publishHome(
  deps: AppDeps,
  client: WebClient,
  workspace: WorkspaceKey,
  userId: string,
  data?: HomeData,
): Promise<void> {
  // Who the viewer is first (users.info, cached): a barred user (GUEST_ACCESS=none: a guest, an
  // account Slack does not know in this workspace, or one of another organisation) gets a tab
  // that says so, no data, no buttons.
  const standing = await resolveStanding(deps, client, workspace, userId);
  if (isBarred(standing)) {
    await client.views.publish({
      user_id: userId,
      view: barredHomeView(standing, await adminContacts(deps, workspace)),
    });
    return;
  }
  const role = roleOfStanding(standing);
  const [d, info, notify] = await Promise.all([
    data ?? gatherHome(deps, workspace),
    userInfo(deps, client, workspace, userId),
    // The viewer's own requests, alerts and digests (store reads only); left out when unreadable.
    notifyHomeSummary(deps, workspace, userId).catch((err: unknown) => {
      deps.logger.warn({ err, workspace }, 'Home: notifications summary unavailable');
      return undefined;
    }),
  ]);
  // Nothing set up yet: a member is told who to ask.
  const notSetUp = role !== 'admin' && d.connection.ok && !d.connection.value.configured;
  const admins = notSetUp ? await adminContacts(deps, workspace).catch(() => undefined) : undefined;
  const view = homeView(d, {
    isAdmin: role === 'admin',
    timeZone: info.tz,
    ...(notify ? { notify } : {}),
    ...(admins ? { admins } : {}),
  });
  await client.views.publish({ user_id: userId, view: view });
}

interface Refresh {
  /** Another call came while this one ran: run once more at the end. */
  again: boolean;
  done: Promise<number>;
}

/** The app's refreshes in flight, by `workspace:user` (`*` for every recent viewer). */
const refreshesOf = appState(() => new Map<string, Refresh>());

function coalesce(deps: AppDeps, key: string, fn: () => Promise<number>): Promise<number> {
  const running = refreshesOf(deps);
  const cur = running.get(key);
  if (cur) {
    cur.again = true;
    return cur.done;
  }
  const entry: Refresh = { again: false, done: Promise.resolve(0) };
  entry.done = (async () => {
    let n = 0;
    try {
      do {
        entry.again = false;
        n = await fn();
      } while (entry.again);
    } finally {
      running.delete(key);
    }
    return n;
  })();
  running.set(key, entry);
  return entry.done;
}

/**
 * Re-publish the Home tab of `userId`, or of every recent viewer of the workspace. Returns how many
 * tabs were published. Never throws. Exported for other features: call it (without awaiting if
 * you like) after a change the tab shows.
 */
export function refreshHome(deps: AppDeps, workspace: WorkspaceKey, userId?: string): Promise<number> {
  return coalesce(deps, `${workspace}:${userId ?? '*'}`, async () => {
    const log = deps.logger.child({ workspace, component: 'home' });
    try {
      const client = await workspaceSlackClient(deps, workspace);
      if (!client) return 0;
      const users = userId ? [userId] : await recentViewers(deps, workspace);
      if (users.length === 0) return 0;
      const data = await gatherHome(deps, workspace);
      const limit = pLimit(2);
      const results = await Promise.all(
        users.map((u) =>
          limit(async () => {
            try {
              await publishHome(deps, client, workspace, u, data);
              return 1;
            } catch (err) {
              log.warn({ err, userId: u }, 'could not publish the Home tab');
              return 0;
            }
          }),
        ),
      );
      return results.reduce<number>((a, b) => a + b, 0);
    } catch (err) {
      log.warn({ err }, 'Home refresh failed');
      return 0;
    }
  });
}
