/**
 * Watermarking API client (spec endpoints 4.1 to 4.8). Inputs are validated before sending
 * (ValidationError), responses are checked with zod (ProtocolError) and mapped to the camelCase
 * domain types of types.ts, times turned into instants using the envelope's time_zone.
 */
import { z } from 'zod';
import { JOB_STATUS_CODES, TASK_STATUS_CODES } from './codes.js';
import {
  cleanInt,
  cleanText,
  codeOf,
  decodeEnvelope,
  intLike,
  listOf,
  parseWith,
  readCleanList,
  reqText,
  serverClockSkewMs,
  text,
  warnZeroForm,
} from './envelope.js';
import type { HttpClient, HttpMethod, QueryParams, RequestBody } from './http.js';
import { runCall } from './http.js';
import { parseServiceTime } from './time.js';
import type {
  Job,
  JobSearchQuery,
  JobTask,
  ModifiedRecipient,
  NewRecipient,
  Recipient,
  RecipientPatch,
  RecipientSearchQuery,
  TimeZoneOption,
  WatermarkingClient,
  WatermarkingCredentials,
  WmPage,
} from './types.js';
import {
  assertValid,
  checkCode,
  checkContentId,
  checkDate,
  checkDateRange,
  checkPageIndex,
  checkPageUnit,
  checkPositiveInt,
  checkRecipientBatch,
  checkRecipientPatch,
  checkSiteId,
  checkTimeZone,
  LIMITS,
} from './validate.js';
import type { WmTokenManager } from './wm-token.js';

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

const recipientSchema = z.object({
  dwm_id: intLike,
  name: reqText,
  description: text,
  reg_time: text,
  update_time: text.optional(),
});

const modifiedSchema = z.object({ dwm_id: intLike, update_time: text });

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
type RecipientWire = z.output<typeof recipientSchema>;

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

function toRecipient(w: RecipientWire, tz: string): Recipient {
  const r: Recipient = {
    dwmId: w.dwm_id,
    name: w.name,
    description: w.description,
    regTime: parseServiceTime(w.reg_time, tz),
  };
  if (w.update_time !== undefined) r.updateTime = parseServiceTime(w.update_time, tz);
  return r;
}

export interface WatermarkingClientDeps {
  http: HttpClient;
  tokens: WmTokenManager;
  /** The bot's clock (compared with the server's Date header on a 401). Default Date.now. */
  now?: () => number;
}

export function createWatermarkingClient(
  creds: WatermarkingCredentials,
  deps: WatermarkingClientDeps,
): WatermarkingClient {
  const { http, tokens } = deps;

  function call(
    endpoint: string,
    siteId: string,
    method: HttpMethod,
    path: string,
    query?: QueryParams,
    body?: RequestBody,
  ) {
    return runCall(endpoint, () =>
      tokens.withToken(creds, siteId, async (authorization) => {
        const res = await http.request({
          endpoint,
          method,
          baseUrl: creds.baseUrl,
          path,
          query,
          body,
          headers: { authorization },
        });
        const env = decodeEnvelope(endpoint, res, { api: 'wm', ...(deps.now ? { now: deps.now } : {}) });
        const skew = serverClockSkewMs(res, (deps.now ?? Date.now)());
        return skew === undefined ? env : { ...env, serverClockSkewMs: skew };
      }),
    );
  }

  const site = (siteId: string) => `/${encodeURIComponent(siteId)}`;
  const tzChecks = (tz?: string): Array<[string, string | null]> => [
    ['time zone', tz === undefined ? null : checkTimeZone(tz)],
  ];
  const pageChecks = (q: { pageUnit?: number; pageIndex?: number; from?: string; to?: string }) =>
    [
      ['page size', q.pageUnit === undefined ? null : checkPageUnit(q.pageUnit)],
      ['page', q.pageIndex === undefined ? null : checkPageIndex(q.pageIndex)],
      ['from', q.from === undefined ? null : checkDate(q.from)],
      ['to', q.to === undefined ? null : checkDate(q.to)],
      ['date range', checkDateRange(q.from, q.to)],
    ] as Array<[string, string | null]>;

  function page<T>(
    items: T[],
    env: { totalCount?: number; timeZone?: string; serverClockSkewMs?: number },
    q: { pageIndex?: number; pageUnit?: number },
    tz: string,
  ): WmPage<T> {
    const pageIndex = q.pageIndex ?? 1;
    const pageUnit = q.pageUnit ?? LIMITS.pageUnitDefault;
    return {
      items,
      // total_count is documented on every list; if a service omits it, the best lower bound for
      // display, flagged as unknown so that paging (PageWalk) does not stop there.
      totalCount: env.totalCount ?? (pageIndex - 1) * pageUnit + items.length,
      ...(env.totalCount === undefined ? { totalUnknown: true } : {}),
      pageIndex,
      pageUnit,
      timeZone: tz,
      ...(env.serverClockSkewMs !== undefined ? { serverClockSkewMs: env.serverClockSkewMs } : {}),
    };
  }

  return {
    async verify(siteId) {
      assertValid('wm.token', [['site id', checkSiteId(siteId)]]);
      await runCall('wm.token', () => tokens.header(creds, siteId));
    },

    async searchJobs(siteId, query: JobSearchQuery = {}) {
      const endpoint = 'wm.searchJobs';
      assertValid(endpoint, [
        ['site id', checkSiteId(siteId)],
        ['content id', query.contentId === undefined ? null : checkContentId(query.contentId)],
        ...(query.statuses ?? []).map(
          (s) => ['job status', checkCode(s, JOB_STATUS_CODES, 'Job status')] as [string, string | null],
        ),
        ...pageChecks(query),
        ...tzChecks(query.timeZone),
      ]);
      const env = await call(endpoint, siteId, 'GET', `/api/job${site(siteId)}`, {
        content_id: query.contentId,
        job_status: query.statuses,
        from: query.from,
        to: query.to,
        page_unit: query.pageUnit,
        page_index: query.pageIndex,
        time_zone: query.timeZone,
      });
      const tz = env.timeZone ?? query.timeZone ?? '+00:00';
      const wire = readCleanList(env.data, cleanJob) ?? parseWith(endpoint, listOf(jobSchema), env.data);
      const items = wire.map((w) => toJob(w, tz));
      return page(items, env, query, tz);
    },

    async getJob(siteId, jobId, opts: TimeZoneOption = {}) {
      const endpoint = 'wm.getJob';
      assertValid(endpoint, [
        ['site id', checkSiteId(siteId)],
        ['job id', checkPositiveInt(jobId, 'Job id')],
        ...tzChecks(opts.timeZone),
      ]);
      const env = await call(endpoint, siteId, 'GET', `/api/job${site(siteId)}/${jobId}`, {
        time_zone: opts.timeZone,
      });
      const tz = env.timeZone ?? opts.timeZone ?? '+00:00';
      // The job, or a list holding just it (some services answer every lookup with a list).
      const one = Array.isArray(env.data) && env.data.length === 1 ? env.data[0] : env.data;
      return toJob(parseWith(endpoint, jobSchema, one), tz);
    },

    async getJobTasks(siteId, jobId, opts: TimeZoneOption = {}) {
      const endpoint = 'wm.getJobTasks';
      assertValid(endpoint, [
        ['site id', checkSiteId(siteId)],
        ['job id', checkPositiveInt(jobId, 'Job id')],
        ...tzChecks(opts.timeZone),
      ]);
      const env = await call(endpoint, siteId, 'GET', `/api/job${site(siteId)}/${jobId}/recipient`, {
        time_zone: opts.timeZone,
      });
      const tz = env.timeZone ?? opts.timeZone ?? '+00:00';
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

    async searchRecipients(siteId, query: RecipientSearchQuery = {}) {
      const endpoint = 'wm.searchRecipients';
      assertValid(endpoint, [
        ['site id', checkSiteId(siteId)],
        ...(query.keywords ?? []).map(
          (k) =>
            [
              'search keyword',
              k.trim() === '' ? 'A search keyword is empty: remove it or give some text.' : null,
            ] as [string, string | null],
        ),
        ...pageChecks(query),
        ...tzChecks(query.timeZone),
      ]);
      const env = await call(endpoint, siteId, 'GET', `/api/recipient${site(siteId)}`, {
        search_keyword: query.keywords,
        from: query.from,
        to: query.to,
        page_unit: query.pageUnit,
        page_index: query.pageIndex,
        time_zone: query.timeZone,
      });
      const tz = env.timeZone ?? query.timeZone ?? '+00:00';
      const items = parseWith(endpoint, listOf(recipientSchema), env.data).map((w) => toRecipient(w, tz));
      return page(items, env, query, tz);
    },

    async getRecipient(siteId, dwmId, opts: TimeZoneOption = {}) {
      const endpoint = 'wm.getRecipient';
      assertValid(endpoint, [
        ['site id', checkSiteId(siteId)],
        ['DWM id', checkPositiveInt(dwmId, 'DWM id')],
        ...tzChecks(opts.timeZone),
      ]);
      const env = await call(endpoint, siteId, 'GET', `/api/recipient${site(siteId)}/${dwmId}`, {
        time_zone: opts.timeZone,
      });
      const tz = env.timeZone ?? opts.timeZone ?? '+00:00';
      return toRecipient(parseWith(endpoint, recipientSchema, env.data), tz);
    },

    async registerRecipients(siteId, recipients: NewRecipient[]) {
      const endpoint = 'wm.registerRecipients';
      assertValid(endpoint, [['site id', checkSiteId(siteId)], ...checkRecipientBatch(recipients)]);
      const body = {
        recipients: recipients.map((r) =>
          r.description === undefined ? { name: r.name } : { name: r.name, description: r.description },
        ),
      };
      // POST is never retried by the HTTP layer; see http.ts for how the ops layer reconciles.
      const env = await call(endpoint, siteId, 'POST', `/api/recipient${site(siteId)}`, undefined, {
        kind: 'json',
        value: body,
      });
      const tz = env.timeZone ?? '+00:00';
      // The registered recipient sent as one object instead of an array of them ("not shown": the
      // spec shows an array): read as a list holding it. Only an object carrying a dwm_id, so a
      // wrapped list ({ "list": [...] }) or an empty {} keeps its own reading (listOf).
      // When that one object leaves out the name (and description) of the only recipient sent, it
      // answers that recipient: they are read from the request. With several sent, which one it
      // is cannot be known: a ProtocolError, which the ops layer reconciles by looking names up.
      const d = env.data;
      let list = d;
      if (d !== null && typeof d === 'object' && !Array.isArray(d) && 'dwm_id' in d) {
        const one = d as Record<string, unknown>;
        const sent = recipients.length === 1 ? recipients[0] : undefined;
        list = [
          sent && (one.name === undefined || one.name === null)
            ? { ...one, name: sent.name, description: one.description ?? sent.description }
            : one,
        ];
      }
      return parseWith(endpoint, listOf(recipientSchema), list).map((w) => toRecipient(w, tz));
    },

    async modifyRecipient(siteId, dwmId, patch: RecipientPatch): Promise<ModifiedRecipient> {
      const endpoint = 'wm.modifyRecipient';
      assertValid(endpoint, [
        ['site id', checkSiteId(siteId)],
        ['DWM id', checkPositiveInt(dwmId, 'DWM id')],
        ...checkRecipientPatch(patch),
      ]);
      const body: Record<string, string> = {};
      if (patch.name !== undefined) body.name = patch.name;
      if (patch.description !== undefined) body.description = patch.description;
      const env = await call(endpoint, siteId, 'PUT', `/api/recipient${site(siteId)}/${dwmId}`, undefined, {
        kind: 'json',
        value: body,
      });
      const tz = env.timeZone ?? '+00:00';
      const w = parseWith(endpoint, modifiedSchema, env.data);
      return { dwmId: w.dwm_id, updateTime: parseServiceTime(w.update_time, tz) };
    },
  };
}
