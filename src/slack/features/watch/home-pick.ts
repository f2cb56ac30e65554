/**
 * "Watch a channel" from the Home tab: the channel picked in the Home modal, then the watch
 * feature's own form (./render-subscriptions.ts `watchModal`) for that channel, so
 * the subscription is made by the watch feature's submission handler exactly as from `/dwm watch`.
 *
 * Ownership rule (as for the slash command, which Slack only sends from conversations the user is
 * in): a member may subscribe only a channel they are a member of; any other channel is admin-only.
 * The check needs Slack calls, so the submission is acknowledged first with a "Checking…" view,
 * then updated to the form or to the refusal. The watch form re-checks the same rule at its own
 * submission (its channel rides in metadata).
 */

import type { WebClient } from '@slack/web-api';
import { z } from 'zod';
import { loadCredentials } from '../../../ops/workspace.js';
import { isChannelMember } from '../../kit/context/channels/access.js';
import type { CommandContext } from '../../kit/context/context.js';
import { explainError } from '../../kit/context/errors.js';
import { modal } from '../../kit/interactions/registry.js';
import {
  HOME_WATCH_PICK_BLOCK,
  HOME_WATCH_PICK_CALLBACK,
  notInChannelText,
  watchModal,
  watchPickCheckingView,
  watchPickProblemView,
} from './render-subscriptions.js';

/**
 * May the user subscribe `channelId`? Members: only a channel they are a member of; admins: any.
 * 'unknown' (the bot cannot read the member list: a private channel it is not in) is left to
 * `subscribeChannel`, which refuses to subscribe where the bot cannot post and says how to invite
 * it. Refusals are audited. Needs Slack calls: run it after the ack.
 */
export async function mayWatchChannel(
  ctx: CommandContext,
  client: WebClient,
  channelId: string,
  from: string,
): Promise<'ok' | 'refused'> {
  // A direct message: only the user's own conversation with the bot (conversations.open answers
  // with it; reading an IM's members would need a scope the bot does not ask for).
  const member = channelId.startsWith('D')
    ? (await client.conversations.open({ users: ctx.userId })).channel?.id === channelId
      ? 'yes'
      : 'no'
    : await isChannelMember(client, channelId, ctx.userId);
  if (member === 'yes' || (await ctx.role()) === 'admin') return 'ok';
  if (member === 'unknown' && from === 'the watch form') return 'ok';
  await ctx.audit({
    action: 'watch.create',
    detail: `refused: ${channelId} from ${from}, requester not in the channel (${member})`,
    result: 'refused',
  });
  return 'refused';
}

const pickMeta = z.object({ w: z.string().min(1) });

export const homePickModal = modal<z.infer<typeof pickMeta>, { channelId: string }>({
  name: 'watch.home-pick',
  callbackId: HOME_WATCH_PICK_CALLBACK,
  meta: pickMeta,
  stale: {
    view: watchPickProblemView('This form is out of date: close it and press Watch a channel again.'),
  },
  ackView: () => watchPickCheckingView(),
  failure: "Couldn't check the channel",
  check(_ctx, _meta, view) {
    const picked = (view.state.values[HOME_WATCH_PICK_BLOCK]?.value as { selected_conversation?: unknown })
      ?.selected_conversation;
    const channelId = typeof picked === 'string' && /^[CG][A-Z0-9]{2,}$/.test(picked) ? picked : '';
    if (!channelId) return { errors: { [HOME_WATCH_PICK_BLOCK]: 'Pick a channel.' } };
    return { ok: { channelId } };
  },
  async submit(ctx, _meta, { channelId }, { client }) {
    try {
      const loaded = await loadCredentials(ctx.deps, ctx.workspace);
      if (!loaded?.credentials.watermarking) {
        return {
          view: watchPickProblemView(
            'Watermarking is not set up for this workspace: an admin can run `/dwm setup`.',
          ),
        };
      }
      if ((await mayWatchChannel(ctx, client, channelId, 'Home')) !== 'ok') {
        return { view: watchPickProblemView(notInChannelText(channelId, await ctx.admins())) };
      }
      const c = loaded.credentials;
      return {
        view: watchModal({
          workspace: ctx.workspace,
          channelId,
          siteIds: c.siteIds,
          defaultSiteId: c.defaultSiteId,
        }),
      };
    } catch (e) {
      const ex = explainError(e, { refId: ctx.refId });
      return {
        again: { error: e, view: watchPickProblemView(`Couldn't check the channel. ${ex.why} ${ex.next}`) },
      };
    }
  },
});
