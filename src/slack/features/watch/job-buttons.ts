/**
 * Details and Export CSV on job cards. The button value carries the card's workspace, site and job
 * id; a click from another workspace (a Slack Connect channel shows A's card to B's users) is
 * refused. The site must be one of the workspace's configured sites, and the service
 * is called with that workspace's own credentials. Values of cards posted before `w` existed are
 * still accepted (see `parseJobRef`).
 * Export CSV sends the full task list to the user in a direct message (recipients are not
 * re-posted to the channel).
 */
import { reportedTaskTotal, summariseJob } from '../../../ops/jobs.js';
import { message, section } from '../../kit/blocks/blocks.js';
import { code } from '../../kit/blocks/mrkdwn.js';
import { button } from '../../kit/interactions/registry.js';
import { sendJobTasks } from '../../shared/jobs/export.js';
import { type JobRef, parseJobRef, WATCH_ACTIONS } from './render-card.js';
import { jobDetailsMessage } from './render-details.js';

const badButton = message('This button is out of date.', [
  section('This button is out of date: run `/dwm watches` or look at a newer card.'),
]);

const common = {
  value: (raw: string | undefined): JobRef | undefined => parseJobRef(raw),
  stale: badButton,
  untagged:
    "cards posted before values carried their workspace: the site and job are looked up with the clicking workspace's own credentials and configured sites only",
} as const;

export const detailsButton = button<JobRef>({
  ...common,
  name: 'watch.job-details',
  actionId: WATCH_ACTIONS.details,
  failure: (ref) => `Couldn't show job ${ref.j}`,
  async run(ctx, ref) {
    const clients = await ctx.clients();
    const site = clients.site(ref.s);
    const wm = clients.watermarking();
    const [job, tasks] = await Promise.all([wm.getJob(site, ref.j), wm.getJobTasks(site, ref.j)]);
    await ctx.respond(
      jobDetailsMessage(
        site,
        summariseJob(job, tasks.items, { limit: 20, reportedTotal: reportedTaskTotal(tasks) }),
      ),
    );
  },
});

export const exportButton = button<JobRef>({
  ...common,
  name: 'watch.job-export',
  actionId: WATCH_ACTIONS.export,
  failure: (ref) => `Couldn't export job ${ref.j}`,
  async run(ctx, ref) {
    const { rows } = await sendJobTasks(ctx, ref.s, ref.j, 'watch.export');
    await ctx.respond(
      message(`Sent the task list of job ${ref.j} to you in a direct message.`, [
        section(
          `:page_facing_up: Sent the ${rows} tasks of job ${code(ref.j)} to you in a direct message (CSV).`,
        ),
      ]),
    );
  },
});
