/**
 * Export CSV of a watermarking job (the jobs card and the watched job card): the full task list,
 * failures first, as ONE file name (`job-<site>-<job>-tasks.csv`) sent to the user in a direct
 * message (recipient names are never re-posted to a channel), audited like the other exports.
 */
import { reportedTaskTotal, taskCsv } from '../../../ops/jobs.js';
import { listedTasksLine, plural } from '../../kit/blocks/cards.js';
import { code } from '../../kit/blocks/mrkdwn.js';
import { dmChannel } from '../../kit/context/support.js';
import type { CommandContext } from '../../kit/context/types.js';
import { uploadFile } from '../../kit/web/files.js';

/** The file name of a job's task export. */
export function jobTasksFilename(siteId: string, jobId: number): string {
  return `job-${siteId}-${jobId}-tasks.csv`;
}

/** The comment posted with the file. */
export function jobTasksComment(siteId: string, jobId: number, rows: number): string {
  return `Tasks of job ${code(jobId)} on site ${code(siteId)}: ${plural(rows, 'row')}, failures first.`;
}

/**
 * Reads every task of job `jobId` on `site` (`undefined`: the workspace default site) with the
 * workspace's credentials, sends the CSV to the user's DM and audits it as `auditAction`.
 * Returns the site used and the number of tasks.
 */
export async function sendJobTasks(
  ctx: CommandContext,
  site: string | undefined,
  jobId: number,
  auditAction: string,
): Promise<{ siteId: string; rows: number }> {
  const clients = await ctx.clients();
  const siteId = clients.site(site);
  const tasks = await clients.watermarking().getJobTasks(siteId, jobId);
  const channel = await dmChannel(ctx.client, ctx.userId);
  await uploadFile(
    ctx.client,
    channel,
    {
      filename: jobTasksFilename(siteId, jobId),
      title: `Job ${jobId} tasks (site ${siteId})`,
      content: taskCsv(tasks.items),
      comment: [
        jobTasksComment(siteId, jobId, tasks.items.length),
        listedTasksLine(tasks.items.length, reportedTaskTotal(tasks)),
      ]
        .filter(Boolean)
        .join('\n'),
    },
    ctx,
  );
  // Recipient names left Slack's channel for a DM: audited like the other exports.
  await ctx.audit({
    action: auditAction,
    detail: `exported ${tasks.items.length} tasks of job ${jobId}`,
    result: 'ok',
    siteId,
  });
  return { siteId, rows: tasks.items.length };
}
