/**
 * Details and Export CSV on job cards. The button value carries the card's workspace, site and job
 * id; a click from another workspace (a Slack Connect channel shows A's card to B's users) is
 * refused (review #14). The site must be one of the workspace's configured sites, and the service
 * is called with that workspace's own credentials. Values of cards posted before `w` existed are
 * still accepted (see `parseJobRef`).
 * Export CSV sends the full task list to the user in a direct message (recipients are not
 * re-posted to the channel).
 */
import type { App } from '@slack/bolt';
import { summariseJob, taskCsv } from '../../../ops/jobs.js';
import type { AppDeps } from '../../deps.js';
import { message, section } from '../../kit/blocks.js';
import type { CommandContext } from '../../kit/context.js';
import { renderError } from '../../kit/errors.js';
import { uploadFile } from '../../kit/files.js';
import { code } from '../../kit/mrkdwn.js';
import { actionContext, dmChannel, sameWorkspace } from '../../kit/support.js';
import { type JobRef, parseJobRef, WATCH_ACTIONS } from './render-card.js';
import { jobDetailsMessage } from './render-details.js';
import { actionValue } from './shared.js';

const badButton = message('This button is out of date.', [
  section('This button is out of date: run `/dwm watches` or look at a newer card.'),
]);

/** A job card button: the context, and the job its value names (else "out of date"). */
function onJobButton(
  app: App,
  deps: AppDeps,
  actionId: string,
  run: (ctx: CommandContext, ref: JobRef) => Promise<void>,
): void {
  app.action(actionId, async (args) => {
    await args.ack();
    const ctx = actionContext(deps, args);
    const ref = parseJobRef(actionValue(args.body));
    if (!ref) {
      await ctx.respond(badButton);
      return;
    }
    if (ref.w !== undefined && !(await sameWorkspace(ctx, ref.w))) return;
    await run(ctx, ref);
  });
}

export function register(app: App, deps: AppDeps): void {
  onJobButton(app, deps, WATCH_ACTIONS.details, async (ctx, ref) => {
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

  onJobButton(app, deps, WATCH_ACTIONS.export, async (ctx, ref) => {
    try {
      const clients = await ctx.clients();
      const site = clients.site(ref.s);
      const tasks = await clients.watermarking().getJobTasks(site, ref.j);
      const csv = taskCsv(tasks.items);
      const channel = await dmChannel(ctx.client, ctx.userId);
      await uploadFile(ctx.client, channel, {
        filename: `job-${site}-${ref.j}-tasks.csv`,
        title: `Job ${ref.j} tasks (site ${site})`,
        content: csv,
        comment: `Tasks of job ${ref.j} on site ${site}: ${tasks.items.length} rows, failures first.`,
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
