/**
 * "Watch a channel" from the Home tab: the channel picked in the Home modal, then the watch
 * feature's own form (src/slack/render/watch/subscriptions.ts `watchModal`) for that channel, so
 * the subscription is made by the watch feature's submission handler exactly as from `/dwm watch`.
 *
 * Ownership rule (as for the slash command, which Slack only sends from conversations the user is
 * in): a member may subscribe only a channel they are a member of; any other channel is admin-only
 * (review #15). The check needs Slack calls, so the submission is acknowledged first with a
 * "Checking…" view, then updated to the form or to the refusal.
 */
import type { App, SlackViewAction } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import { loadCredentials } from '../../../ops/workspace.js';
import type { AppDeps } from '../../deps.js';
import { createContext } from '../../kit/context.js';
import { explainError } from '../../kit/errors.js';
import { payloadIdentity } from '../../kit/support.js';
import { HOME_WATCH_PICK_BLOCK, HOME_WATCH_PICK_CALLBACK } from '../home/render.js';
import {
  notInChannelText,
  watchModal,
  watchPickCheckingView,
  watchPickProblemView,
} from './render-subscriptions.js';

/** Members per conversations.members page (Slack's maximum is 1000). */
const MEMBERS_PAGE = 1000;
/**
 * Pages read before giving up (200,000 members): a bigger channel counts as "not found", and the
 * member then needs an admin, which is the safe side.
 */
const MEMBERS_MAX_PAGES = 200;

/**
 * Is `userId` a member of `channelId`? `conversations.members`, paged. `unknown` when the bot
 * cannot read the member list (a private channel it is not in: channel_not_found).
 */
export async function isChannelMember(
  client: WebClient,
  channelId: string,
  userId: string,
): Promise<'yes' | 'no' | 'unknown'> {
  let cursor: string | undefined;
  try {
    for (let page = 0; page < MEMBERS_MAX_PAGES; page++) {
      const r = await client.conversations.members({
        channel: channelId,
        limit: MEMBERS_PAGE,
        ...(cursor ? { cursor } : {}),
      });
      if (r.members?.includes(userId)) return 'yes';
      cursor = r.response_metadata?.next_cursor || undefined;
      if (!cursor) return 'no';
    }
    return 'no';
  } catch (e) {
    const code = (e as { data?: { error?: string } }).data?.error;
    if (code === 'channel_not_found') return 'unknown';
    throw e;
  }
}

export function register(app: App, deps: AppDeps): void {
  app.view<SlackViewAction>(HOME_WATCH_PICK_CALLBACK, async ({ ack, body, view, client, context }) => {
    const picked = (view.state.values[HOME_WATCH_PICK_BLOCK]?.value as { selected_conversation?: unknown })
      ?.selected_conversation;
    const channelId = typeof picked === 'string' && /^[CG][A-Z0-9]{2,}$/.test(picked) ? picked : '';
    if (!channelId) {
      await ack({ response_action: 'errors', errors: { [HOME_WATCH_PICK_BLOCK]: 'Pick a channel.' } });
      return;
    }
    await ack({ response_action: 'update', view: watchPickCheckingView() as never });
    const ctx = createContext({ deps, client, ...payloadIdentity(body, context) });
    const show = (v: unknown) =>
      client.views
        .update({ view_id: view.id, view: v as never })
        .catch((err: unknown) => ctx.logger.error({ err }, 'could not update the watch view'));
    try {
      const loaded = await loadCredentials(deps, ctx.workspace);
      if (!loaded?.credentials.watermarking) {
        await show(
          watchPickProblemView(
            'Watermarking is not set up for this workspace: an admin can run `/dwm setup`.',
          ),
        );
        return;
      }
      const member = await isChannelMember(client, channelId, ctx.userId);
      if (member !== 'yes' && (await ctx.role()) !== 'admin') {
        await ctx.audit({
          action: 'watch.create',
          detail: `refused: ${channelId} from Home, requester not in the channel (${member})`,
          result: 'refused',
        });
        await show(watchPickProblemView(notInChannelText(channelId, await ctx.admins())));
        return;
      }
      const c = loaded.credentials;
      await show(watchModal({ channelId, siteIds: c.siteIds, defaultSiteId: c.defaultSiteId }));
    } catch (e) {
      const ex = explainError(e, { refId: ctx.refId });
      if (ex.unexpected) ctx.logger.error({ err: e, refId: ctx.refId }, 'home watch pick failed');
      await show(watchPickProblemView(`Couldn't check the channel. ${ex.why} ${ex.next}`));
    }
  });
}
