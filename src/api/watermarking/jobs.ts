/**
 * The Watermarking API's jobs of a site: the job search, one job, and a job's tasks (one per
 * recipient). Also what a failed task is (`taskFailed`), the one rule the ops layer reads too.
 * Job and task lists in their usual, clean shape are read without zod (cleanJob, cleanTask: a
 * site's list is read at every poll); anything else goes through the schemas.
 */
import { z } from 'zod';
import { JOB_STATUS_CODES, TASK_STATUS_CODES } from '../codes.js';
import { listOf, parseWith, readCleanList } from '../envelope.js';
import { cleanInt, cleanText, codeOf, intLike, text, warnZeroForm } from '../fields.js';
import { parseServiceTime } from '../time.js';
import type { Job, JobSearchQuery, JobTask, TimeZoneOption, WatermarkingClient } from '../types.js';
import {
  assertValid,
  type Check,
  checkCode,
  checkContentId,
  checkPageQuery,
  checkSiteId,
} from '../validate.js';
import { getByNumber, listParams, page, site, tzChecks, type WmCall, zoneOf } from './call.js';

/**
 * A job's content id and a task's recipient name are read as text: null or absent is "" (a job
 * card's title then says "(no content id)"). The spec lists them without saying they are always present ("not shown"), and
 * one job without a content id must not make a whole site's job list unreadable.
 */
const jobSchema = z.object({
  job_id: intLike,
  content_id: text,
  job_status: codeOf(JOB_STATUS_CODES, 'job_status'),
  reg_time: text,
  update_time: text,
});

const taskFields = z.object({
  dwm_id: intLike,
  recipient: text,
  description: text,
  task_status: codeOf(TASK_STATUS_CODES, 'task_status'),
  cli_error_code: text,
  reg_time: text,
  update_time: text,
});

/**
 * A task's recipient name in `name` (as the recipient endpoints call it) when `recipient` is
 * absent or null: "not shown" in the spec (it says `recipient`), seen from a service reusing its
 * recipient fields. `recipient` wins when it is sent.
 */
function recipientOrName(o: Record<string, unknown>): unknown {
  return o.recipient === undefined || o.recipient === null ? (o.name ?? o.recipient) : o.recipient;
}

const taskSchema = z.preprocess(
  (v) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? { ...v, recipient: recipientOrName(v as Record<string, unknown>) }
      : v,
  taskFields,
);

type JobWire = z.output<typeof jobSchema>;
type TaskWire = z.output<typeof taskSchema>;

const JOB_CODES = new Set<string>(JOB_STATUS_CODES);
const TASK_CODES = new Set<string>(TASK_STATUS_CODES);

/**
 * A job item in its usual, clean shape (integer id, text fields as strings, a known status code
 * without spaces), read without zod; undefined otherwise (the page then goes through jobSchema).
 * Same output as jobSchema for what it accepts.
 */
function cleanJob(o: Record<string, unknown>): JobWire | undefined {
  const id = cleanInt(o.job_id);
  const content = o.content_id;
  const status = o.job_status;
  const reg = cleanText(o.reg_time);
  const upd = cleanText(o.update_time);
  if (id === undefined || typeof content !== 'string' || typeof status !== 'string') return undefined;
  if (!JOB_CODES.has(status) || reg === undefined || upd === undefined) return undefined;
  return {
    job_id: id,
    content_id: content,
    job_status: status as JobWire['job_status'],
    reg_time: reg,
    update_time: upd,
  };
}

/** A task item in its usual, clean shape (see cleanJob); undefined otherwise. */
function cleanTask(o: Record<string, unknown>): TaskWire | undefined {
  const id = cleanInt(o.dwm_id);
  const recipient = recipientOrName(o);
  const status = o.task_status;
  const description = cleanText(o.description);
  const cli = cleanText(o.cli_error_code);
  const reg = cleanText(o.reg_time);
  const upd = cleanText(o.update_time);
  if (id === undefined || typeof recipient !== 'string' || typeof status !== 'string') return undefined;
  if (!TASK_CODES.has(status) || description === undefined || cli === undefined) return undefined;
  if (reg === undefined || upd === undefined) return undefined;
  return {
    dwm_id: id,
    recipient,
    description,
    task_status: status as TaskWire['task_status'],
    cli_error_code: cli,
    reg_time: reg,
    update_time: upd,
  };
}

function toJob(w: JobWire, tz: string): Job {
  return {
    jobId: w.job_id,
    contentId: w.content_id,
    status: w.job_status,
    regTime: parseServiceTime(w.reg_time, tz),
    updateTime: parseServiceTime(w.update_time, tz),
  };
}

/** Task statuses of a task that has run to its end (codes.ts: COMPLETE, FAIL). */
const FINISHED_TASK = new Set(['TK002', 'TK005']);

/**
 * A task failed when its status is TK005 or its pre-embedder code says so. Spec: cli_error_code
 * "0" means success, any other value failure: "00" or "0000" too (logged once when read). An
 * empty code on a task still waiting or running is "not reported yet"; on a finished task it is
 * not the spec's success, so it is a failure (reported with no code) rather than a success the
 * service never said.
 */
export function taskFailed(status: string, cliErrorCode: string): boolean {
  const cli = cliErrorCode.trim();
  if (status === 'TK005') return true;
  if (cli === '') return FINISHED_TASK.has(status);
  return cli !== '0';
}

function toTask(w: TaskWire, tz: string): JobTask {
  const cli = w.cli_error_code.trim();
  if (cli !== '0' && /^0+$/.test(cli)) warnZeroForm('cli_error_code', cli);
  return {
    dwmId: w.dwm_id,
    recipient: w.recipient,
    description: w.description,
    status: w.task_status,
    cliErrorCode: cli,
    failed: taskFailed(w.task_status, cli),
    regTime: parseServiceTime(w.reg_time, tz),
    updateTime: parseServiceTime(w.update_time, tz),
  };
}

const jobNumber = (value: number) => ({ field: 'job id', label: 'Job id', value });

export type JobEndpoints = Pick<WatermarkingClient, 'searchJobs' | 'getJob' | 'getJobTasks'>;

export function jobEndpoints(call: WmCall): JobEndpoints {
  return {
    async searchJobs(siteId, query: JobSearchQuery = {}) {
      const endpoint = 'wm.searchJobs';
      assertValid(endpoint, [
        ['site id', checkSiteId(siteId)],
        ['content id', query.contentId === undefined ? null : checkContentId(query.contentId)],
        ...(query.statuses ?? []).map(
          (s): Check => ['job status', checkCode(s, JOB_STATUS_CODES, 'Job status')],
        ),
        ...checkPageQuery(query),
        ...tzChecks(query.timeZone),
      ]);
      const env = await call(endpoint, siteId, 'GET', `/api/job${site(siteId)}`, {
        content_id: query.contentId,
        job_status: query.statuses,
        ...listParams(query),
      });
      const tz = zoneOf(env, query.timeZone);
      const wire = readCleanList(env.data, cleanJob) ?? parseWith(endpoint, listOf(jobSchema), env.data);
      const items = wire.map((w) => toJob(w, tz));
      return page(items, env, query, tz);
    },

    async getJob(siteId, jobId, opts: TimeZoneOption = {}) {
      const endpoint = 'wm.getJob';
      const jobPath = { base: '/api/job', rest: `/${jobId}` };
      const { env, tz } = await getByNumber(call, endpoint, siteId, jobNumber(jobId), jobPath, opts.timeZone);
      // The job, or a list holding just it (some services answer every lookup with a list).
      const one = Array.isArray(env.data) && env.data.length === 1 ? env.data[0] : env.data;
      return toJob(parseWith(endpoint, jobSchema, one), tz);
    },

    async getJobTasks(siteId, jobId, opts: TimeZoneOption = {}) {
      const endpoint = 'wm.getJobTasks';
      const tasksPath = { base: '/api/job', rest: `/${jobId}/recipient` };
      const { env, tz } = await getByNumber(
        call,
        endpoint,
        siteId,
        jobNumber(jobId),
        tasksPath,
        opts.timeZone,
      );
      const wire = readCleanList(env.data, cleanTask) ?? parseWith(endpoint, listOf(taskSchema), env.data);
      const items = wire.map((w) => toTask(w, tz));
      // This list is not paged: one page holding every task.
      return {
        items,
        totalCount: env.totalCount ?? items.length,
        pageIndex: 1,
        pageUnit: Math.max(items.length, 1),
        timeZone: tz,
      };
    },
  };
}
