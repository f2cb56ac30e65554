/**
 * `/dwm jobs` list and `/dwm job <id>` card. Pure functions of data.
 */
import { TASK_STATUS_CODES } from '../../../api/codes.js';
import type { Job, JobTask } from '../../../api/types.js';
import { isTaskFailed, type JobSummary } from '../../../ops/jobs.js';
import {
  actions,
  type Block,
  button,
  context,
  divider,
  fields,
  header,
  type Message,
  message,
  section,
} from '../../kit/blocks/blocks.js';
import { listedTasksLine } from '../../kit/blocks/cards.js';
import { code, esc, truncate } from '../../kit/blocks/mrkdwn.js';
import { countedPaging, pagingButtons } from '../../kit/blocks/paging.js';
import { type UtcDays, utcDaysNote } from '../../kit/blocks/reader-dates.js';
import { failureLabel, failureNextSteps, jobStatus, taskStatus } from '../../kit/blocks/status.js';
import { dayListBlocks, pageCount } from '../../shared/wm/day-list.js';
import {
  type CardMeta,
  cardContext,
  count,
  encodeValue,
  plural,
  timeText,
  WM_ACTIONS,
} from '../../shared/wm/values.js';
import type { JobsPageValue } from './values.js';

export interface JobListInput {
  siteId: string;
  workspace: string;
  jobs: Job[];
  totalCount: number;
  pageIndex: number;
  pageUnit: number;
  /** Filters as resolved (status codes, content id, yyyy-MM-dd dates). */
  filters: { statuses?: string[]; contentId?: string; from?: string; to?: string };
  timeZone: string;
  /**
   * Set when `from`/`to` were given: the UTC days the service was asked for (they cover the
   * reader's days). Its total_count is of those days; the rows shown are the reader's days only.
   */
  utcDays?: UtcDays;
  meta?: CardMeta;
}

/** The filters as applied; dates are the reader's days, in their zone, said once. */
function filterText(f: JobListInput['filters'], timeZone: string): string {
  const parts: string[] = [];
  if (f.statuses?.length) parts.push(`status ${f.statuses.map((s) => jobStatus(s)).join(', ')}`);
  if (f.contentId) parts.push(`content ${code(f.contentId)}`);
  if (f.from) parts.push(`from ${code(f.from)}`);
  if (f.to) parts.push(`to ${code(f.to)}`);
  const zone = f.from || f.to ? ` · dates and times in your time zone (${esc(timeZone)})` : '';
  return parts.length ? `Filters: ${parts.join(' · ')}${zone}` : 'No filters: every job, newest first.';
}

export function jobListMessage(input: JobListInput): Message {
  const { jobs, totalCount, pageIndex, pageUnit, siteId } = input;
  const pages = pageCount(totalCount, pageUnit);
  const utc = input.utcDays;
  // With the reader's days, the service's count is of the covering UTC days: not said as theirs.
  const title = utc ? `Jobs on ${siteId}` : `Jobs on ${siteId}: ${count(totalCount)} total`;
  const rows = jobs.map((j) => {
    const value = encodeValue({ w: input.workspace, s: siteId, j: j.jobId });
    return section(
      `${jobStatus(j.status)} · ${code(truncate(j.contentId, 200))} · job ${code(j.jobId)}\n` +
        `Started ${timeText(j.regTime, input.timeZone)} · updated ${timeText(j.updateTime, input.timeZone)}`,
      { accessory: button('Details', WM_ACTIONS.jobDetails, { value }) },
    );
  });
  const blocks = dayListBlocks({
    title,
    filterLine: filterText(input.filters, input.timeZone),
    utcNote: utc ? utcDaysNote(utc, plural(totalCount, 'job'), 'jobs started on', pageUnit) : undefined,
    totalCount,
    pageIndex,
    pageUnit,
    pages,
    rows,
    noMatch: 'No jobs match these filters. Try fewer filters, or a wider date range with `from:` and `to:`.',
    noun: 'job',
    onDays: 'started on',
  });
  const pageValue = (p: number): string => {
    const v: JobsPageValue = { w: input.workspace, s: siteId, p };
    const f = input.filters;
    if (f.statuses?.length) v.st = f.statuses;
    if (f.contentId) v.c = f.contentId;
    if (f.from) v.fr = f.from;
    if (f.to) v.to = f.to;
    return encodeValue(v);
  };
  const nav = pagingButtons(countedPaging(pageIndex, pages, WM_ACTIONS.jobsPage, pageValue)).buttons;
  if (nav.length) blocks.push(actions(nav, 'wm_jobs_nav'));
  if (input.meta) blocks.push(context(cardContext(input.meta)));
  return message(title, blocks);
}

// ---------------------------------------------------------------------------------------------
// Job card
// ---------------------------------------------------------------------------------------------

/** Task lines shown on the card (the rest: "and N more" + Export CSV). */
export const JOB_CARD_TASK_LINES = 30;
const LINES_PER_SECTION = 10;

export function taskLine(t: JobTask): string {
  const failed = isTaskFailed(t);
  const cli = t.cliErrorCode.trim();
  // The code in plain words (src/api/error-codes.ts); "What to do" follows the task list.
  const codePart = failed && cli && cli !== '0' ? ` · ${failureLabel(cli)}` : '';
  return `${taskStatus(t.status)} · ${esc(truncate(t.recipient, 128))} · DWM ID ${code(t.dwmId)}${codePart}`;
}

export interface JobCardInput {
  summary: JobSummary;
  workspace: string;
  siteId: string;
  timeZone: string;
  meta?: CardMeta;
}

export function jobCardMessage(input: JobCardInput): Message {
  const { summary, siteId } = input;
  const job = summary.job;
  const title = `Job ${job.jobId} · ${truncate(job.contentId || '(no content id)', 100)}`;
  const value = encodeValue({ w: input.workspace, s: siteId, j: job.jobId });
  const countsText = TASK_STATUS_CODES.filter((c) => summary.counts[c] > 0)
    .map((c) => `${taskStatus(c)}: ${count(summary.counts[c])}`)
    .join('\n');
  const failuresText =
    summary.failures.length === 0
      ? 'none'
      : `${count(summary.failures.length)}${
          summary.failureCodes.length
            ? ` (${summary.failureCodes
                .slice(0, 5)
                .map((f) => `${failureLabel(f.code)} ×${f.count}`)
                .join(', ')})`
            : ''
        }`;
  const blocks: Block[] = [
    header(title),
    section(undefined, {
      fields: fields([
        ['Status', jobStatus(job.status)],
        ['Content', code(job.contentId)],
        ['Started', timeText(job.regTime, input.timeZone)],
        ['Updated', timeText(job.updateTime, input.timeZone)],
        ['Recipients', count(summary.total)],
        ['Failed tasks', failuresText],
        ['Tasks by status', countsText || 'no tasks'],
      ]),
    }),
  ];
  if (summary.total > 0) {
    blocks.push(divider());
    const lines = summary.shown.map(taskLine);
    const heading = summary.failures.length > 0 ? '*Tasks, failures first*' : '*Tasks*';
    for (let i = 0; i < lines.length; i += LINES_PER_SECTION) {
      const chunk = lines.slice(i, i + LINES_PER_SECTION).join('\n');
      blocks.push(section(i === 0 ? `${heading}\n${chunk}` : chunk));
    }
    if (summary.hiddenCount > 0) {
      blocks.push(
        context(
          `…and ${plural(summary.hiddenCount, 'more task')} not shown. Export CSV sends the full list of ${count(summary.total)} to you as a file.`,
        ),
      );
    }
  }
  const listed = listedTasksLine(summary.total, summary.reportedTotal);
  if (listed) blocks.push(context(listed));
  const steps = failureNextSteps(summary.failureCodes.map((f) => f.code));
  if (steps) blocks.push(section(steps));
  const buttons = [button('Refresh', WM_ACTIONS.jobRefresh, { value, style: 'primary' })];
  if (summary.total > 0) buttons.push(button('Export CSV', WM_ACTIONS.jobExport, { value }));
  blocks.push(actions(buttons, 'wm_job_actions'));
  if (input.meta) blocks.push(context(cardContext(input.meta)));
  const fallback = `${title}: ${jobStatus(job.status).replace(/^:[a-z_]+: /, '')}, ${plural(summary.total, 'recipient')}, ${plural(summary.failures.length, 'failed task')}`;
  return message(esc(fallback), blocks, (hidden) => `…and ${hidden} more blocks not shown; use Export CSV.`);
}

// ---------------------------------------------------------------------------------------------
// CSV export messages
// ---------------------------------------------------------------------------------------------

export function exportStartedMessage(jobId: number): Message {
  const t = `:hourglass_flowing_sand: Exporting the tasks of job ${jobId}… the CSV file will arrive in your direct messages with me.`;
  return message(t, [section(t)]);
}

export function exportDoneMessage(jobId: number, rows: number, permalink?: string): Message {
  const where = permalink ? `<${permalink}|in your direct messages>` : 'in your direct messages';
  const t = `:white_check_mark: The CSV of job ${jobId} (${plural(rows, 'task')}) is ${where} with me.`;
  return message(t.replace(/<[^<|]+\|([^>]+)>/, '$1'), [section(t)]);
}
