/**
 * `/dwm jobs [status:…] [content:ID] [from:] [to:] [site:]` and `/dwm job <jobId> [site:]`.
 * The show functions are shared with the buttons (paging, Details, Refresh).
 */
import { z } from 'zod';
import { isServiceCondition } from '../../../api/error-codes.js';
import { type ServiceError, ValidationError } from '../../../api/errors.js';
import { JOB_STATUS_HELP, listJobs, reportedTaskTotal, summariseJob } from '../../../ops/jobs.js';
import { cardMetaOf } from '../../kit/blocks/cards.js';
import { code } from '../../kit/blocks/mrkdwn.js';
import { listOption, option, required, values } from '../../kit/commands/parse.js';
import { commandList } from '../../kit/commands/registry.js';
import type { CommandContext } from '../../kit/context/context.js';
import { notFoundMessage } from '../../kit/context/errors.js';
import { wmDayListOptions, wmDayListQuery, wmSiteOption } from '../../shared/wm/values.js';
import { JOB_CARD_TASK_LINES, jobCardMessage, jobListMessage } from './render.js';

const list = commandList();

/** Jobs a page. Ten rows keep the list readable and well under the 50-block limit. */
export const JOBS_PAGE_UNIT = 10;

export interface JobsQuery {
  site?: string;
  statuses?: string[];
  contentId?: string;
  from?: string;
  to?: string;
  page: number;
}

/** List a page of jobs; `replace` updates the message the button was on. Throws on failure. */
export async function showJobs(ctx: CommandContext, q: JobsQuery, replace = false): Promise<void> {
  const c = await ctx.clients();
  const site = c.site(q.site);
  const wm = c.watermarking();
  const tz = await ctx.timeZone();
  const statuses = (q.statuses ?? []).flatMap((s) => s.split('|')).filter(Boolean);
  const r = await listJobs(
    wm,
    site,
    {
      ...(statuses.length ? { statuses } : {}),
      ...(q.contentId ? { contentId: q.contentId } : {}),
      ...(q.from ? { from: q.from } : {}),
      ...(q.to ? { to: q.to } : {}),
      timeZone: tz,
      pageUnit: JOBS_PAGE_UNIT,
      pageIndex: q.page,
    },
    { now: ctx.deps.now() },
  );
  if (!r.ok) throw new ValidationError('jobs', r.errors);
  const msg = jobListMessage({
    siteId: site,
    workspace: ctx.workspace,
    jobs: r.page.items,
    totalCount: r.page.totalCount,
    pageIndex: q.page,
    pageUnit: JOBS_PAGE_UNIT,
    filters: {
      ...(r.query.statuses?.length ? { statuses: r.query.statuses } : {}),
      ...(r.query.contentId ? { contentId: r.query.contentId } : {}),
      // The reader's days (the query holds the UTC days that cover them).
      ...(r.days?.from ? { from: r.days.from } : {}),
      ...(r.days?.to ? { to: r.days.to } : {}),
    },
    ...(r.days ? { utcDays: { from: r.days.utcFrom, to: r.days.utcTo } } : {}),
    timeZone: tz,
    meta: cardMetaOf(ctx, tz, site),
  });
  await ctx.respond(msg, replace ? { replaceOriginal: true } : {});
}

/** The job card with its tasks. Throws on failure (job not found: the service's code). */
export async function showJob(
  ctx: CommandContext,
  siteReq: string | undefined,
  jobId: number,
  replace = false,
): Promise<void> {
  const c = await ctx.clients();
  const site = c.site(siteReq);
  const wm = c.watermarking();
  let got: [Awaited<ReturnType<typeof wm.getJob>>, Awaited<ReturnType<typeof wm.getJobTasks>>, string];
  try {
    got = await Promise.all([wm.getJob(site, jobId), wm.getJobTasks(site, jobId), ctx.timeZone()]);
  } catch (e) {
    // A job that is not there is not a failure: said in words, the service's code last.
    if (!isServiceCondition(e, 'jobNotFound')) throw e;
    await ctx.respond(
      notFoundMessage(
        `Job ${code(jobId)} isn't on site ${code(site)}.`,
        `${code('/dwm jobs')} lists recent jobs.`,
        e as ServiceError,
      ),
      replace ? { replaceOriginal: true } : {},
    );
    return;
  }
  const [job, tasks, tz] = got;
  const summary = summariseJob(job, tasks.items, {
    limit: JOB_CARD_TASK_LINES,
    reportedTotal: reportedTaskTotal(tasks),
  });
  await ctx.respond(
    jobCardMessage({
      summary,
      workspace: ctx.workspace,
      siteId: site,
      timeZone: tz,
      meta: cardMetaOf(ctx, tz, site),
    }),
    replace ? { replaceOriginal: true } : {},
  );
}

list.add({
  command: '/dwm',
  path: ['jobs'],
  args: {
    status: listOption(z.string().max(40), {
      hint: 'ready|preprocessing|completed|error',
      description: `Job status; several allowed (status:ready,error). ${JOB_STATUS_HELP}`,
    }),
    content: option(values.text(200), { hint: 'ID', description: 'Content id.' }),
    ...wmDayListOptions({
      from: 'Jobs started on or after this day, in your time zone (or today, yesterday, 7d).',
      to: 'Jobs started on or before this day.',
    }),
  },
  role: 'member',
  summary: 'List watermarking jobs with their status (newest first, paged)',
  examples: [
    'jobs',
    'jobs status:error',
    'jobs status:ready,preprocessing from:7d',
    'jobs content:MOVIE-2024001',
  ],
  async handler(ctx, args) {
    await showJobs(ctx, {
      ...wmDayListQuery(args),
      statuses: args.status,
      ...(args.content ? { contentId: args.content } : {}),
    });
  },
});

list.add({
  command: '/dwm',
  path: ['job'],
  args: {
    jobId: required(values.int(1, Number.MAX_SAFE_INTEGER), { hint: '<job id>', description: 'The job id.' }),
    site: wmSiteOption,
  },
  role: 'member',
  summary: "Show a job and its recipients' tasks (failures first, Export CSV for all)",
  examples: ['job 4812', 'job 4812 site:AB12'],
  async handler(ctx, args) {
    await showJob(ctx, args.site, args.jobId);
  },
});

/** This file's commands, in help order. */
export const commands = list.done();
