/**
 * Keeps the Home tab current without every feature having to call `refreshHome`: a global
 * middleware that, AFTER a request was handled (`await next()`), refreshes the tab of the
 * workspace's recent viewers when the request changed something the tab shows:
 * - setup saved (the setup modal), a watch added/removed/resumed (`/dwm watch|unwatch`, the watch
 *   form, the subscription buttons), a plan request sent or cancelled (plan buttons and modal, and
 *   the direct forms `/drm plan trial|resume|suspend|cancel`).
 * The refresh runs in the background (never delays or fails the request) and is coalesced per
 * workspace by `refreshHome`. Features may still call `refreshHome` themselves (background work
 * such as job notifications is not a Slack request, so it is not seen here).
 */
import type { App } from '@slack/bolt';
import { workspaceKeyOf } from '../../../store/keys.js';
import type { AppDeps } from '../../deps.js';
import { SVC_ACTIONS, SVC_VIEWS } from '../../kit/svc-values.js';
import { SETUP_CALLBACK } from '../setup/render.js';
import { WATCH_ACTIONS } from '../watch/render-card.js';
import { WATCH_MODAL_CALLBACK } from '../watch/render-subscriptions.js';
import { refreshHome } from './publish.js';

const COMMAND_WORDS = new Set(['watch', 'unwatch', 'setup']);
const PLAN_WORDS = new Set(['trial', 'resume', 'suspend', 'cancel']);
const VIEWS = new Set<string>([SETUP_CALLBACK, WATCH_MODAL_CALLBACK, SVC_VIEWS.planRequest]);
const ACTIONS = new Set<string>([
  WATCH_ACTIONS.unsubscribe,
  WATCH_ACTIONS.resume,
  SVC_ACTIONS.planRequest,
  SVC_ACTIONS.planCancel,
]);

type Body = {
  type?: string;
  command?: string;
  text?: string;
  team_id?: string;
  enterprise_id?: string;
  team?: { id?: string } | null;
  enterprise?: { id?: string } | null;
  view?: { callback_id?: string };
  actions?: Array<{ action_id?: string }>;
};

/** Does this request change something the Home tab shows? (pure, exported for tests) */
export function changesHome(body: Body): boolean {
  if (typeof body.command === 'string') {
    const [first = '', second = ''] = (body.text ?? '').trim().toLowerCase().split(/\s+/);
    if (body.command === '/dwm') return COMMAND_WORDS.has(first);
    // The direct forms of plan requests (`/drm plan trial|resume|suspend|cancel`) change the
    // latest plan request the tab shows.
    return body.command === '/drm' && first === 'plan' && PLAN_WORDS.has(second);
  }
  if (body.type === 'view_submission') return VIEWS.has(body.view?.callback_id ?? '');
  if (body.type === 'block_actions') return (body.actions ?? []).some((a) => ACTIONS.has(a.action_id ?? ''));
  return false;
}

export function register(app: App, deps: AppDeps): void {
  app.use(async ({ body, context, next }) => {
    await next();
    try {
      const b = body as Body;
      if (!changesHome(b)) return;
      const workspace = workspaceKeyOf({
        teamId: context.teamId ?? b.team_id ?? b.team?.id ?? undefined,
        enterpriseId: context.enterpriseId ?? b.enterprise_id ?? b.enterprise?.id ?? undefined,
        isEnterpriseInstall: context.isEnterpriseInstall,
      });
      // Background: the views.update/replies of the handler may still be in flight.
      setTimeout(() => void refreshHome(deps, workspace), 250).unref();
    } catch (err) {
      deps.logger.debug({ err }, 'no Home refresh for this request');
    }
  });
}
