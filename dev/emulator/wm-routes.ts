/**
 * The watermarking API (spec: watermarking-api.md), mounted at /wm. Every endpoint of section 4,
 * the envelope of section 2 and the authentication of section 5.
 */
import { JOB_STATUS_CODES, type JobStatusCode } from '../../src/api/codes.js';
import {
  checkContentId,
  checkPageIndex,
  checkPageUnit,
  checkSiteId,
  LIMITS,
} from '../../src/api/validate.js';
import type { EmulatorBehaviours } from './behaviours.js';
import { EmuError, HttpRefusal, invalid, SUCCESS_CODE, SUCCESS_MESSAGE } from './errors.js';
import { type Reply, type RequestContext, Router } from './http.js';
import type { EmulatorState, JobRec, RecipientRec, SiteState, TaskRec } from './state.js';
import { formatLocal, parseDateRange, parseTimeZone, type Tz, UTC } from './time.js';

function ok(data: unknown, extra?: { tz?: Tz; totalCount?: number }): Reply {
  const body: Record<string, unknown> = { error_code: SUCCESS_CODE, error_message: SUCCESS_MESSAGE };
  if (extra?.tz) body.time_zone = extra.tz.text;
  if (extra?.totalCount !== undefined) body.total_count = extra.totalCount;
  body.data = data;
  return { status: 200, body };
}

export function parseIntParam(name: string, raw: string | null | undefined, def: number): number {
  if (raw === null || raw === undefined || raw === '') return def;
  if (!/^-?\d+$/.test(raw.trim())) throw invalid(`${name}: "${raw.slice(0, 20)}" is not a whole number.`);
  return Number(raw.trim());
}

/** page_unit (default 25, 1..1000) and page_index (default 1, >= 1). */
export function parsePaging(q: { get(name: string): string | null | undefined }): {
  pageUnit: number;
  pageIndex: number;
} {
  const pageUnit = parseIntParam('page_unit', q.get('page_unit'), LIMITS.pageUnitDefault);
  const pu = checkPageUnit(pageUnit);
  if (pu) throw invalid(`page_unit: ${pu}`);
  const pageIndex = parseIntParam('page_index', q.get('page_index'), 1);
  const pi = checkPageIndex(pageIndex);
  if (pi) throw invalid(`page_index: ${pi}`);
  return { pageUnit, pageIndex };
}

export function pageOf<T>(items: T[], paging: { pageUnit: number; pageIndex: number }): T[] {
  const start = (paging.pageIndex - 1) * paging.pageUnit;
  return items.slice(start, start + paging.pageUnit);
}

function basicCredentials(header: string | undefined): { accountId: string; accessKey: string } | undefined {
  if (!header) return undefined;
  const m = /^basic\s+([A-Za-z0-9+/=_-]+)\s*$/i.exec(header);
  if (!m) return undefined;
  const decoded = Buffer.from(m[1] as string, 'base64').toString('utf8');
  const i = decoded.indexOf(':');
  if (i <= 0) return undefined;
  return { accountId: decoded.slice(0, i), accessKey: decoded.slice(i + 1) };
}

export function wmRouter(
  state: EmulatorState,
  readings: { behaviours: () => EmulatorBehaviours } = { behaviours: () => ({}) },
): Router {
  /** The zone `from`/`to` are read in: the query's time_zone, or UTC (wmDatesUtc). */
  const datesTz = (tz: Tz): Tz => (readings.behaviours().wmDatesUtc ? UTC : tz);
  /**
   * Bearer token check. 401 for a missing, malformed, unknown or expired token, and for a token
   * issued for another site (the caller's refresh then fetches one for the right site); 403 when
   * the account is marked forbidden.
   */
  function authorize(ctx: RequestContext): SiteState {
    const siteId = ctx.params.siteId ?? '';
    const header = ctx.headers.authorization;
    if (!header || !/^bearer\s+\S+$/i.test(header)) {
      throw new HttpRefusal(401, 'Missing or malformed Authorization header.');
    }
    const rec = state.resolveToken(header.trim());
    if (!rec) throw new HttpRefusal(401, 'Unknown or expired token.');
    if (rec.siteId !== siteId) throw new HttpRefusal(401, 'The token was not issued for this site.');
    const acc = state.wmAccounts.get(rec.accountId);
    if (!acc) throw new HttpRefusal(401, 'User information not found.');
    if (acc.forbidden) throw new HttpRefusal(403, 'No permission to use the API.');
    const site = state.site(siteId);
    if (!site || !acc.siteIds.has(siteId)) throw new EmuError('siteNotFound', `Site ${siteId} not found.`);
    return site;
  }

  function tzOf(ctx: RequestContext): Tz {
    return parseTimeZone(ctx.query.get('time_zone'));
  }

  function jobId(ctx: RequestContext): number {
    const raw = ctx.params.jobId ?? '';
    if (!/^\d+$/.test(raw)) throw invalid(`jobId: "${raw.slice(0, 20)}" is not a number.`);
    return Number(raw);
  }

  function dwmId(ctx: RequestContext): number {
    const raw = ctx.params.dwmId ?? '';
    if (!/^\d+$/.test(raw)) throw invalid(`dwmId: "${raw.slice(0, 20)}" is not a number.`);
    return Number(raw);
  }

  function findJob(site: SiteState, id: number): JobRec {
    const job = site.jobs.get(id);
    if (!job) throw new EmuError('jobNotFound', `Job ${id} not found on site ${site.siteId}.`);
    return job;
  }

  function jsonBody(ctx: RequestContext): unknown {
    if (ctx.body.length === 0) return undefined;
    try {
      return JSON.parse(ctx.body.toString('utf8'));
    } catch {
      throw invalid('The body is not valid JSON.');
    }
  }

  const renderJob = (j: JobRec, tz: Tz) => ({
    job_id: j.jobId,
    content_id: j.contentId,
    job_status: j.status,
    reg_time: formatLocal(j.regTimeMs, tz),
    update_time: formatLocal(j.updateTimeMs, tz),
  });

  const renderTask = (site: SiteState, t: TaskRec, tz: Tz) => {
    const r = site.recipients.get(t.dwmId);
    return {
      dwm_id: t.dwmId,
      recipient: r?.name ?? '',
      description: r?.description ?? '',
      task_status: t.status,
      cli_error_code: t.cliErrorCode,
      reg_time: formatLocal(t.regTimeMs, tz),
      update_time: formatLocal(t.updateTimeMs, tz),
    };
  };

  const renderRecipient = (r: RecipientRec, tz: Tz) => ({
    dwm_id: r.dwmId,
    name: r.name,
    description: r.description,
    reg_time: formatLocal(r.regTimeMs, tz),
  });

  const router = new Router();

  // 4.1 Issue token
  router.add('GET', '/api/token/:siteId', (ctx) => {
    const creds = basicCredentials(ctx.headers.authorization);
    if (!creds) throw new HttpRefusal(401, 'Missing or malformed Basic credentials.');
    const acc = state.wmAccounts.get(creds.accountId);
    if (!acc || acc.accessKey !== creds.accessKey) throw new HttpRefusal(401, 'User information not found.');
    if (acc.forbidden) throw new HttpRefusal(403, 'No permission to use the API.');
    const siteId = ctx.params.siteId ?? '';
    const sf = checkSiteId(siteId);
    if (sf) throw invalid(`siteId: ${sf}`);
    if (!acc.siteIds.has(siteId) || !state.site(siteId)) {
      throw new EmuError('siteNotFound', `Site ${siteId} not found for this account.`);
    }
    return ok({ token: state.issueToken(acc.accountId, siteId) });
  });

  // 4.2 Search jobs
  router.add('GET', '/api/job/:siteId', (ctx) => {
    const site = authorize(ctx);
    const tz = tzOf(ctx);
    const q = ctx.query;
    const contentId = q.get('content_id') ?? undefined;
    if (contentId !== undefined && contentId !== '') {
      const f = checkContentId(contentId);
      if (f) throw invalid(`content_id: ${f}`);
    }
    const statuses = q.getAll('job_status').filter((s) => s !== '');
    for (const s of statuses) {
      if (!JOB_STATUS_CODES.includes(s as JobStatusCode)) {
        throw invalid(
          `job_status: "${s.slice(0, 20)}" is not a job status; use ${JOB_STATUS_CODES.join(', ')}.`,
        );
      }
    }
    const { fromMs, toMs } = parseDateRange(q.get('from'), q.get('to'), datesTz(tz));
    const paging = parsePaging(q);
    const all = state.searchJobs(site, {
      contentId: contentId === '' ? undefined : contentId,
      statuses: statuses as JobStatusCode[],
      fromMs,
      toMs,
    });
    return ok(
      pageOf(all, paging).map((j) => renderJob(j, tz)),
      { tz, totalCount: all.length },
    );
  });

  // 4.3 Job detail
  router.add('GET', '/api/job/:siteId/:jobId', (ctx) => {
    const site = authorize(ctx);
    const tz = tzOf(ctx);
    return ok(renderJob(findJob(site, jobId(ctx)), tz), { tz });
  });

  // 4.4 Recipients (tasks) of a job: all of them, no paging in the spec.
  router.add('GET', '/api/job/:siteId/:jobId/recipient', (ctx) => {
    const site = authorize(ctx);
    const tz = tzOf(ctx);
    const job = findJob(site, jobId(ctx));
    return ok(
      job.tasks.map((t) => renderTask(site, t, tz)),
      { tz, totalCount: job.tasks.length },
    );
  });

  // 4.5 Search recipients
  router.add('GET', '/api/recipient/:siteId', (ctx) => {
    const site = authorize(ctx);
    const tz = tzOf(ctx);
    const q = ctx.query;
    const { fromMs, toMs } = parseDateRange(q.get('from'), q.get('to'), datesTz(tz));
    const paging = parsePaging(q);
    const all = state.searchRecipients(site, { keywords: q.getAll('search_keyword'), fromMs, toMs });
    return ok(
      pageOf(all, paging).map((r) => renderRecipient(r, tz)),
      { tz, totalCount: all.length },
    );
  });

  // 4.6 Recipient detail
  router.add('GET', '/api/recipient/:siteId/:dwmId', (ctx) => {
    const site = authorize(ctx);
    const tz = tzOf(ctx);
    const id = dwmId(ctx);
    const r = site.recipients.get(id);
    if (!r) throw new EmuError('recipientNotFound', `Recipient ${id} not found on site ${site.siteId}.`);
    return ok({ ...renderRecipient(r, tz), update_time: formatLocal(r.updateTimeMs, tz) }, { tz });
  });

  // 4.7 Register recipients
  router.add('POST', '/api/recipient/:siteId', (ctx) => {
    const site = authorize(ctx);
    const tz = tzOf(ctx);
    const body = jsonBody(ctx);
    const list =
      body && typeof body === 'object' && !Array.isArray(body)
        ? (body as Record<string, unknown>).recipients
        : undefined;
    // Every name sent for registration is counted, whatever the answer (tests prove that no name
    // is sent twice without relying on the duplicate refusal).
    if (Array.isArray(list)) {
      for (const item of list) {
        const name = (item as { name?: unknown } | null)?.name;
        if (typeof name === 'string') state.countRegistrationPost(site.siteId, name);
      }
    }
    const created = state.registerRecipients(site, list);
    return ok(
      created.map((r) => renderRecipient(r, tz)),
      { tz },
    );
  });

  // 4.8 Modify recipient
  router.add('PUT', '/api/recipient/:siteId/:dwmId', (ctx) => {
    const site = authorize(ctx);
    const tz = tzOf(ctx);
    const id = dwmId(ctx);
    const body = jsonBody(ctx);
    if (body !== undefined && (typeof body !== 'object' || body === null || Array.isArray(body))) {
      throw invalid('The body must be a JSON object with name and/or description.');
    }
    const r = state.modifyRecipient(site, id, body);
    return ok({ dwm_id: r.dwmId, update_time: formatLocal(r.updateTimeMs, tz) }, { tz });
  });

  return router;
}
