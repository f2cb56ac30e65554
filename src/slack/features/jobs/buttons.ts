/**
 * Buttons of the jobs list and the job card: Previous/Next (the list is replaced in place), Details
 * (a new card), Refresh (the card is replaced), Export CSV (the full task list as a file in the
 * user's DM, with a progress reply). Every click re-checks the workspace of the button value.
 */
import { taskCsv } from '../../../ops/jobs.js';
import { uploadFile } from '../../kit/files.js';
import { button } from '../../kit/interactions.js';
import { dmChannel } from '../../kit/support.js';
import { jobsPageValue, jobValue, WM_ACTIONS } from '../../kit/wm-values.js';
import { showJob, showJobs } from './commands.js';
import { exportDoneMessage, exportFileComment, exportStartedMessage } from './render.js';

export const pageButton = button({
  name: 'jobs.page',
  actionId: new RegExp(`^${WM_ACTIONS.jobsPage}`),
  value: jobsPageValue,
  failure: "Couldn't list jobs",
  run: (ctx, v) =>
    showJobs(
      ctx,
      {
        site: v.s,
        page: v.p,
        ...(v.st ? { statuses: v.st } : {}),
        ...(v.c ? { contentId: v.c } : {}),
        ...(v.fr ? { from: v.fr } : {}),
        ...(v.to ? { to: v.to } : {}),
      },
      true,
    ),
});

const showButton = (actionId: string, name: string, replace: boolean) =>
  button({
    name,
    actionId,
    value: jobValue,
    failure: (v) => `Couldn't show job ${v.j}`,
    run: (ctx, v) => showJob(ctx, v.s, v.j, replace),
  });

export const detailsButton = showButton(WM_ACTIONS.jobDetails, 'jobs.details', false);
export const refreshButton = showButton(WM_ACTIONS.jobRefresh, 'jobs.refresh', true);

export const exportButton = button({
  name: 'jobs.export',
  actionId: WM_ACTIONS.jobExport,
  value: jobValue,
  failure: (v) => `Couldn't export the tasks of job ${v.j}`,
  async run(ctx, v) {
    const c = await ctx.clients();
    const site = c.site(v.s);
    await ctx.respond(exportStartedMessage(v.j), { share: false });
    const tasks = await c.watermarking().getJobTasks(site, v.j);
    const csv = taskCsv(tasks.items);
    const channel = await dmChannel(ctx.client, ctx.userId);
    await uploadFile(ctx.client, channel, {
      filename: `job-${v.j}-${site}-tasks.csv`,
      content: csv,
      title: `Job ${v.j} tasks`,
      comment: exportFileComment(v.j, site, tasks.items.length),
    });
    // Recipient names left Slack's channel for a DM: audited like the other exports.
    await ctx.audit({
      action: 'wm.export',
      detail: `exported ${tasks.items.length} tasks of job ${v.j}`,
      result: 'ok',
      siteId: site,
    });
    await ctx.respond(exportDoneMessage(v.j, tasks.items.length), { share: false });
  },
});
