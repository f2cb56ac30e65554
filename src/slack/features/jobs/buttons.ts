/**
 * Buttons of the jobs list and the job card: Prev/Next (the list is replaced in place), Details
 * (a new card), Refresh (the card is replaced), Export CSV (the full task list as a file in the
 * user's DM, with a progress reply). Every click re-checks the workspace of the button value.
 */
import type { App, BlockButtonAction } from '@slack/bolt';
import { taskCsv } from '../../../ops/jobs.js';
import type { AppDeps } from '../../deps.js';
import { uploadFile } from '../../kit/files.js';
import { actionContext, buttonValue, dmChannel, respondError } from '../../kit/support.js';
import { jobsPageValue, jobValue, WM_ACTIONS } from '../../kit/wm-values.js';
import { showJob, showJobs } from './commands.js';
import { exportDoneMessage, exportFileComment, exportStartedMessage } from './render.js';

export function register(app: App, deps: AppDeps): void {
  app.action<BlockButtonAction>(new RegExp(`^${WM_ACTIONS.jobsPage}`), async (a) => {
    await a.ack();
    const ctx = actionContext(deps, a);
    const v = await buttonValue(ctx, jobsPageValue, a.action.value);
    if (!v) return;
    try {
      await showJobs(
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
      );
    } catch (e) {
      await respondError(ctx, "Couldn't list jobs", e);
    }
  });

  for (const [actionId, replace] of [
    [WM_ACTIONS.jobDetails, false],
    [WM_ACTIONS.jobRefresh, true],
  ] as const) {
    app.action<BlockButtonAction>(actionId, async (a) => {
      await a.ack();
      const ctx = actionContext(deps, a);
      const v = await buttonValue(ctx, jobValue, a.action.value);
      if (!v) return;
      try {
        await showJob(ctx, v.s, v.j, replace);
      } catch (e) {
        await respondError(ctx, `Couldn't show job ${v.j}`, e);
      }
    });
  }

  app.action<BlockButtonAction>(WM_ACTIONS.jobExport, async (a) => {
    await a.ack();
    const ctx = actionContext(deps, a);
    const v = await buttonValue(ctx, jobValue, a.action.value);
    if (!v) return;
    try {
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
      // Recipient names left Slack's channel for a DM: audited like the other exports (review #17).
      await ctx.audit({
        action: 'wm.export',
        detail: `exported ${tasks.items.length} tasks of job ${v.j}`,
        result: 'ok',
        siteId: site,
      });
      await ctx.respond(exportDoneMessage(v.j, tasks.items.length), { share: false });
    } catch (e) {
      await respondError(ctx, `Couldn't export the tasks of job ${v.j}`, e);
    }
  });
}
