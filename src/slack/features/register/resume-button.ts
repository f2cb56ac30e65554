/**
 * The Resume / Retry failed button of a registration report (shared/registration/report.ts):
 * acks at once, refuses another workspace's button, then resumes the stored run in the
 * background (resumeFromButton: the run's user or an admin; a double click is refused by the
 * report's claim; batches already registered are never sent again). What stops it from running
 * is said to the user through the button's response_url.
 */
import { button } from '../../kit/interactions/registry.js';
import { WM_ACTIONS } from '../../shared/wm/values.js';
import { resumeFromButton } from './run.js';
import { reportValue } from './values.js';

export const resumeButton = button({
  name: 'register.resume',
  actionId: WM_ACTIONS.registerResume,
  value: reportValue,
  failure: "Couldn't resume the registration",
  async run(ctx, v, { client }) {
    const r = await resumeFromButton(ctx.deps, ctx, client, v.r, v.f === 1);
    if (!r.ok) {
      await ctx.respond({ text: `:warning: ${r.message}` }, { share: false }).catch((err: unknown) => {
        ctx.logger.warn({ err }, 'could not tell why the registration did not resume');
      });
    }
  },
});
