/**
 * `channel_shared` / `channel_unshared` (Events API): a channel the app posts in became shared
 * with another organisation (Slack Connect) or stopped being shared. Shared and not allowed by an
 * admin: its job watches, license alerts and digest are paused at once, each once, and their
 * creators are told (through the running runtimes: kit/runtime/hooks.ts). The sharing cache of the
 * senders is updated either way. Failures are logged, never raised.
 */
import { workspaceKeyOf } from '../../../store/keys.js';
import { SHARED_CHANNEL } from '../../../watch/types.js';
import {
  botCanPost,
  forgetSharing,
  rememberSharing,
  sharedChannelAllowed,
} from '../../kit/context/channels/access.js';
import type { EventSpec } from '../../kit/features.js';
import { pauseChannelSubscriptions } from '../../kit/runtime/hooks.js';

type Ctx = Record<string, unknown>;

function workspaceOf(context: Ctx, body: unknown): string {
  const b = body as { team_id?: string; enterprise_id?: string };
  return workspaceKeyOf({
    teamId: (context.teamId as string | undefined) ?? b.team_id,
    enterpriseId: (context.enterpriseId as string | undefined) ?? b.enterprise_id,
    isEnterpriseInstall: context.isEnterpriseInstall as boolean | undefined,
  });
}

export const channelShared: EventSpec = {
  event: 'channel_shared',
  async run(deps, { event, body, context, client }) {
    const channel = (event as { channel?: unknown }).channel;
    if (typeof channel !== 'string' || !channel) return;
    let ws: string;
    try {
      ws = workspaceOf(context, body);
    } catch (err) {
      deps.logger.warn({ err }, 'channel_shared without a workspace');
      return;
    }
    const log = deps.logger.child({ workspace: ws, channel, component: 'shared-channels' });
    try {
      const own = [ws, context.teamId, context.enterpriseId].filter(
        (x): x is string => typeof x === 'string',
      );
      const connected = (event as { connected_team_id?: unknown }).connected_team_id;
      // conversations.info says whether the share is with another organisation (not an org-wide
      // share); when it cannot be read, the event's other team is taken at its word.
      let external: boolean;
      try {
        const a = await botCanPost(
          {
            deps,
            workspace: ws,
            client,
            ...(typeof context.teamId === 'string' ? { teamId: context.teamId } : {}),
            ...(typeof context.enterpriseId === 'string' ? { enterpriseId: context.enterpriseId } : {}),
          },
          channel,
        );
        if (a === 'not_visible') throw new Error('channel not readable');
        external = a === 'external';
      } catch {
        external =
          !(typeof connected === 'string' && own.includes(connected)) &&
          !(await sharedChannelAllowed(deps, ws, channel));
        if (external) rememberSharing(deps, ws, channel, true);
      }
      if (!external) return;
      const n = await pauseChannelSubscriptions(deps, ws, channel, SHARED_CHANNEL);
      log.info({ runtimes: n }, 'channel shared with another organisation: its subscriptions are paused');
    } catch (err) {
      log.warn({ err }, 'could not handle channel_shared');
    }
  },
};

export const channelUnshared: EventSpec = {
  event: 'channel_unshared',
  async run(deps, { event, body, context }) {
    const channel = (event as { channel?: unknown }).channel;
    if (typeof channel !== 'string' || !channel) return;
    try {
      forgetSharing(deps, workspaceOf(context, body), channel);
    } catch (err) {
      deps.logger.warn({ err }, 'channel_unshared without a workspace');
    }
  },
};
