/**
 * "Watch a channel" from the Home tab: the channel picked in the Home modal, then the watch
 * feature's own form (src/slack/render/watch/subscriptions.ts `watchModal`) for that channel, so
 * the subscription is made by the watch feature's submission handler exactly as from `/dwm watch`.
 */
import type { App, SlackViewAction } from '@slack/bolt';
import { loadCredentials } from '../../../ops/workspace.js';
import { workspaceKeyOf } from '../../../store/keys.js';
import type { AppDeps } from '../../deps.js';
import { HOME_WATCH_PICK_BLOCK, HOME_WATCH_PICK_CALLBACK } from '../../render/home/view.js';
import { watchModal } from '../../render/watch/subscriptions.js';
import { payloadIdentity } from '../support.js';

export function register(app: App, deps: AppDeps): void {
  app.view<SlackViewAction>(HOME_WATCH_PICK_CALLBACK, async ({ ack, body, view, context }) => {
    const picked = (view.state.values[HOME_WATCH_PICK_BLOCK]?.value as { selected_conversation?: unknown })
      ?.selected_conversation;
    const channelId = typeof picked === 'string' && /^[CG][A-Z0-9]{2,}$/.test(picked) ? picked : '';
    if (!channelId) {
      await ack({ response_action: 'errors', errors: { [HOME_WATCH_PICK_BLOCK]: 'Pick a channel.' } });
      return;
    }
    const workspace = workspaceKeyOf(payloadIdentity(body, context));
    const loaded = await loadCredentials(deps, workspace);
    if (!loaded?.credentials.watermarking) {
      await ack({
        response_action: 'errors',
        errors: {
          [HOME_WATCH_PICK_BLOCK]:
            'Watermarking is not set up for this workspace: an admin can run /dwm setup.',
        },
      });
      return;
    }
    const c = loaded.credentials;
    await ack({
      response_action: 'update',
      view: watchModal({ channelId, siteIds: c.siteIds, defaultSiteId: c.defaultSiteId }) as never,
    });
  });
}
