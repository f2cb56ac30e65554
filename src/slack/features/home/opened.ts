/**
 * `app_home_opened` (Home tab): Bolt acks the event at once (processBeforeResponse false); then the
 * viewer is remembered (for later refreshes), a "Loading…" tab is shown on the very first open, and
 * the full tab is published. Failures are logged, never raised (Slack does not retry usefully).
 */
import { workspaceKeyOf } from '../../../store/keys.js';
import type { EventSpec } from '../../kit/features.js';
import { publishHome, recordViewer } from './publish.js';
import { homeLoadingView } from './render.js';

export const homeOpened: EventSpec = {
  event: 'app_home_opened',
  async run(deps, { event, body, context, client }) {
    if (event.tab !== 'home') return;
    const b = body as { team_id?: string; enterprise_id?: string };
    let workspace: string;
    try {
      workspace = workspaceKeyOf({
        teamId: (context.teamId as string | undefined) ?? b.team_id,
        enterpriseId: (context.enterpriseId as string | undefined) ?? b.enterprise_id,
        isEnterpriseInstall: context.isEnterpriseInstall as boolean | undefined,
      });
    } catch (err) {
      deps.logger.warn({ err }, 'app_home_opened without a workspace');
      return;
    }
    const log = deps.logger.child({ workspace, userId: event.user, component: 'home' });
    try {
      await recordViewer(deps, workspace, event.user);
      if (!event.view) {
        await client.views.publish({ user_id: event.user, view: homeLoadingView() });
      }
      await publishHome(deps, client, workspace, event.user);
    } catch (err) {
      log.warn({ err }, 'could not publish the Home tab');
    }
  },
};
