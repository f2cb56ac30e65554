/**
 * Buttons of the jobs list and the job card: Previous/Next (the list is replaced in place), Details
 * (a new card), Refresh (the card is replaced), Export CSV (the full task list as a file in the
 * user's DM, with a progress reply). Every click re-checks the workspace of the button value.
 */
import { button } from '../../kit/interactions/registry.js';
import { sendJobTasks } from '../../shared/jobs/export.js';
import { WM_ACTIONS, wmDayPageQuery } from '../../shared/wm/values.js';
import { showJob, showJobs } from './commands.js';
import { exportDoneMessage, exportStartedMessage } from './render.js';
import { jobsPageValue, jobValue } from './values.js';

export const pageButton = button({
  name: 'jobs.page',
  actionId: new RegExp(`^${WM_ACTIONS.jobsPage}`),
  value: jobsPageValue,
  failure: "Couldn't list jobs",
  run: (ctx, v) =>
    showJobs(
      ctx,
      {
        ...wmDayPageQuery(v),
        ...(v.st ? { statuses: v.st } : {}),
        ...(v.c ? { contentId: v.c } : {}),
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
    // The site is checked before "Exporting…" is said.
    const site = (await ctx.clients()).site(v.s);
    await ctx.respond(exportStartedMessage(v.j), { share: false });
    const { rows } = await sendJobTasks(ctx, site, v.j, 'wm.export');
    await ctx.respond(exportDoneMessage(v.j, rows), { share: false });
  },
});
