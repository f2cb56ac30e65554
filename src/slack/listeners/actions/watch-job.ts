/**
 * Details and Export CSV on job cards. The button value carries only the site and job id; the
 * site must be one of the clicking user's workspace's configured sites (so a card can never make
 * workspace B read A's data), and the service is called with B's own credentials.
 * Export CSV sends the full task list to the user in a direct message (recipients are not
 * re-posted to the channel).
 */
import type { App } from '@slack/bolt';
import { summariseJob, taskCsv } from '../../../ops/jobs.js';
import type { AppDeps } from '../../deps.js';
import { message, section } from '../../render/blocks.js';
import { renderError } from '../../render/errors.js';
import { code } from '../../render/mrkdwn.js';
import { parseJobRef, WATCH_ACTIONS } from '../../render/watch/card.js';
import { jobDetailsMessage } from '../../render/watch/details.js';
import { type ActionArgs, actionContext, actionValue } from '../commands/watch-shared.js';

const badButton = message('This button is out of date.', [
  section('This button is out of date: run `/dwm watches` or look at a newer card.'),
]);

export function register(app: App, deps: AppDeps): void {
  app.action(WATCH_ACTIONS.details, async (args) => {
    await args.ack();
    const ctx = actionContext(deps, args as unknown as ActionArgs);
    const ref = parseJobRef(actionValue(args.body));
    if (!ref) {
      await ctx.respond(badButton);
      return;
    }
    try {
      const clients = await ctx.clients();
      const site = clients.site(ref.s);
      const wm = clients.watermarking();
      const [job, tasks] = await Promise.all([wm.getJob(site, ref.j), wm.getJobTasks(site, ref.j)]);
      await ctx.respond(jobDetailsMessage(site, summariseJob(job, tasks.items, { limit: 20 })));
    } catch (e) {
      await ctx.respond(
        renderError(`Couldn't show job ${ref.j}`, e, { refId: ctx.refId, admins: await ctx.admins() }),
      );
    }
  });

  app.action(WATCH_ACTIONS.export, async (args) => {
    await args.ack();
    const ctx = actionContext(deps, args as unknown as ActionArgs);
    const ref = parseJobRef(actionValue(args.body));
    if (!ref) {
      await ctx.respond(badButton);
      return;
    }
    try {
      const clients = await ctx.clients();
      const site = clients.site(ref.s);
      const tasks = await clients.watermarking().getJobTasks(site, ref.j);
      const csv = taskCsv(tasks.items);
      const dm = await ctx.client.conversations.open({ users: ctx.userId });
      const channel = dm.channel?.id;
      if (!channel) throw new Error('conversations.open returned no channel');
      await ctx.client.files.uploadV2({
        channel_id: channel,
        filename: `job-${site}-${ref.j}-tasks.csv`,
        title: `Job ${ref.j} tasks (site ${site})`,
        content: csv,
        initial_comment: `Tasks of job ${ref.j} on site ${site}: ${tasks.items.length} rows, failures first.`,
      });
      await ctx.audit({
        action: 'watch.export',
        detail: `exported tasks of job ${ref.j}`,
        result: 'ok',
        siteId: site,
      });
      await ctx.respond(
        message(`Sent the task list of job ${ref.j} to you in a direct message.`, [
          section(
            `:page_facing_up: Sent the ${tasks.items.length} tasks of job ${code(ref.j)} to you in a direct message (CSV).`,
          ),
        ]),
      );
    } catch (e) {
      await ctx.respond(
        renderError(`Couldn't export job ${ref.j}`, e, { refId: ctx.refId, admins: await ctx.admins() }),
      );
    }
  });
}
