/**
 * The service check (`npm run doctor`, and "Check the service" in `/dwm setup`): READ-ONLY calls
 * (GET only, never a POST or PUT: `probe` refuses any other method) against the configured
 * services with a workspace's credentials, reporting for each point the specs leave open ("not
 * shown") which reading this service uses, and the exact settings to add when the bot's defaults
 * do not match it.
 *
 * Each open point is one `DoctorCheck` in `DOCTOR_CHECKS` (an ordered list: add a check by adding
 * an entry). A check reads through the shared `DoctorContext` (probes are memoised per call, so
 * two checks reading the same answer cost one call) and returns one `DoctorFinding`:
 * - `ok`: the service does what the bot expects (or the bot handles every reading of it);
 * - `info`: a reading worth knowing that needs no setting;
 * - `setting`: the bot needs a setting (`env`: the lines to add);
 * - `failed`: something to fix first (credentials refused, the service unreachable);
 * - `not-observed`: this service gave nothing to observe (said as such, never guessed).
 * The process exit code (CLI) is non-zero when a finding is `setting` or `failed`.
 */
import { API_CODE, type ServiceEndpointName } from '../api/codes.js';
import { decodeEnvelope, type Envelope } from '../api/envelope.js';
import { type ApiName, type ErrorCodeTable, errorCondition, loadErrorCodes } from '../api/error-codes.js';
import { AuthError, isApiError, PermissionError, refusalExplanation, ServiceError } from '../api/errors.js';
import type { HttpClient, HttpResponse, QueryParams } from '../api/http.js';
import type { JwtSigner } from '../api/jwt.js';
import {
  loadSiteRequestStatuses,
  type SiteRequestStatusTable,
  siteRequestReading,
} from '../api/site-request-statuses.js';
import type { ServiceApiCredentials, WatermarkingCredentials, WorkspaceCredentials } from '../api/types.js';
import type { WmTokenManager } from '../api/wm-token.js';
import type { Config } from '../config.js';
import { CLOCK_ALLOWANCE_MS } from '../watch/intents.js';

export type DoctorStatus = 'ok' | 'info' | 'setting' | 'failed' | 'not-observed';

/** One .env line to add: a plain value, or entries of a JSON object setting (merged). */
export type DoctorEnv = { name: string; value: string } | { name: string; entries: Record<string, string> };

export interface DoctorFinding {
  id: string;
  /** The open point, in words ("Service API login", "A plan request that does not exist"). */
  point: string;
  status: DoctorStatus;
  /** What this service does, in words. */
  reading: string;
  /** What to do, when anything (one sentence). */
  next?: string;
  env?: DoctorEnv[];
}

/** The settings in force that the checks compare the service with. */
export interface DoctorSettings {
  errorCodes: ErrorCodeTable;
  siteStatuses: SiteRequestStatusTable;
  /** SERVICE_JWT_TTL_SECONDS (0: no exp claim). */
  jwtTtlSeconds: number;
  /** WATCH_CLOCK_ALLOWANCE_SECONDS (default 5): how far behind a service clock a watch allows for. */
  watchClockAllowanceSeconds?: number;
  /** The raw values of the JSON settings, merged into the proposed lines. */
  serviceErrorCodesJson?: string;
  siteStatusesJson?: string;
  bodyEncoding: string;
  apiCodeIn: string;
}

export interface DoctorInput {
  api: { http: HttpClient; jwt: JwtSigner; tokens: WmTokenManager };
  credentials: WorkspaceCredentials;
  settings: DoctorSettings;
  now: () => number;
  /** The checks to run (default DOCTOR_CHECKS). */
  checks?: readonly DoctorCheck[];
}

export interface DoctorCheck {
  id: string;
  point: string;
  run(ctx: DoctorContext): Promise<Omit<DoctorFinding, 'id' | 'point'>>;
}

export interface DoctorReport {
  findings: DoctorFinding[];
  /** The .env lines to add (JSON settings merged with their current values). */
  envLines: string[];
  /** True when a setting is needed or something failed (the CLI exits 1). */
  needsAction: boolean;
}

/** One GET's answer: the response, its envelope or the typed error, and the body as JSON. */
export interface Probe {
  res?: HttpResponse;
  env?: Envelope;
  err?: unknown;
  body?: Record<string, unknown>;
}

/** WATCH_CLOCK_ALLOWANCE_SECONDS's default (the poller's). */
const DEFAULT_WATCH_CLOCK_ALLOWANCE_SECONDS = CLOCK_ALLOWANCE_MS / 1000;

/** An id no service hands out (beyond every seeded or realistic id, still a safe integer). */
export const IMPOSSIBLE_ID = 987_654_321_987;

export class DoctorContext {
  private readonly memo = new Map<string, Promise<Probe>>();
  /** Read by the plan check, reused by the plan status check. */
  planAnswers: Array<{ siteId: string; serviceCode: string; probe: Probe }> | undefined;
  constructor(readonly input: DoctorInput) {}

  get svc(): ServiceApiCredentials | undefined {
    return this.input.credentials.service;
  }
  get wm(): WatermarkingCredentials | undefined {
    return this.input.credentials.watermarking;
  }
  get siteIds(): readonly string[] {
    return this.input.credentials.siteIds;
  }
  get settings(): DoctorSettings {
    return this.input.settings;
  }

  /** A Service API GET (memoised). */
  svcGet(name: ServiceEndpointName, path: string, query: QueryParams = {}): Promise<Probe> {
    const creds = this.svc;
    if (!creds) return Promise.resolve({ err: new Error('no Service API credentials') });
    return this.once(`svc ${path} ${JSON.stringify(query)}`, async () => {
      const authorization = await this.input.api.jwt.header(creds);
      return this.probe(`doctor.svc.${name}`, 'svc', creds.baseUrl, `/api/v2${path}`, {
        query: { api_code: API_CODE[name], ...query },
        authorization,
      });
    });
  }

  /** A watermarking API GET of a site (token first; memoised). */
  wmGet(siteId: string, path: string, query: QueryParams = {}): Promise<Probe> {
    const creds = this.wm;
    if (!creds) return Promise.resolve({ err: new Error('no watermarking credentials') });
    return this.once(`wm ${siteId} ${path} ${JSON.stringify(query)}`, async () => {
      let authorization: string;
      try {
        authorization = await this.input.api.tokens.header(creds, siteId);
      } catch (err) {
        return { err };
      }
      return this.probe('doctor.wm', 'wm', creds.baseUrl, path, { query, authorization });
    });
  }

  private once(key: string, f: () => Promise<Probe>): Promise<Probe> {
    let p = this.memo.get(key);
    if (!p) {
      p = f().catch((err: unknown) => ({ err }));
      this.memo.set(key, p);
    }
    return p;
  }

  /** The one request of the check: GET only. */
  private async probe(
    endpoint: string,
    api: 'wm' | 'svc',
    baseUrl: string,
    path: string,
    o: { query: QueryParams; authorization: string },
  ): Promise<Probe> {
    const method = 'GET' as const;
    const res = await this.input.api.http.request({
      endpoint,
      method,
      baseUrl,
      path,
      query: o.query,
      headers: { authorization: o.authorization },
    });
    const out: Probe = { res };
    try {
      const j: unknown = JSON.parse(res.text);
      if (j && typeof j === 'object' && !Array.isArray(j)) out.body = j as Record<string, unknown>;
    } catch {
      // not JSON: the envelope decoding says what it is
    }
    try {
      out.env = decodeEnvelope(endpoint, res, { api, now: this.input.now });
    } catch (err) {
      out.err = err;
    }
    return out;
  }
}

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

const notObserved = (reading: string): Omit<DoctorFinding, 'id' | 'point'> => ({
  status: 'not-observed',
  reading,
});

/** Why a probe failed, in words (the API layer's explanation of a refusal). */
function failureText(err: unknown): string {
  if (err instanceof AuthError || err instanceof PermissionError) return refusalExplanation(err);
  if (err instanceof ServiceError) return `refused with ${err.code}: ${err.serviceMessage}`;
  if (isApiError(err)) return err.message;
  return err instanceof Error ? err.message : String(err);
}

function dataOf(p: Probe): unknown {
  return p.body?.data;
}

/** How a "nothing there" answer came: data null, an empty list, an empty object, or a refusal. */
type NoneReading =
  | { kind: 'null' | 'empty-list' | 'empty-object' }
  | { kind: 'refusal'; code: string; message: string; httpStatus?: number }
  | { kind: 'data' }
  | { kind: 'failed'; err: unknown };

function noneReading(p: Probe): NoneReading {
  if (p.err instanceof ServiceError)
    return {
      kind: 'refusal',
      code: p.err.code,
      message: p.err.serviceMessage,
      ...(p.err.httpStatus ? { httpStatus: p.err.httpStatus } : {}),
    };
  if (p.err) return { kind: 'failed', err: p.err };
  const d = dataOf(p);
  if (d === null || d === undefined || d === '') return { kind: 'null' };
  if (Array.isArray(d)) return d.length === 0 ? { kind: 'empty-list' } : { kind: 'data' };
  if (typeof d === 'object') {
    const o = d as Record<string, unknown>;
    if (Object.keys(o).length === 0) return { kind: 'empty-object' };
    if ('req_group_id' in o && (o.req_group_id === null || o.req_group_id === ''))
      return { kind: 'empty-object' };
  }
  return { kind: 'data' };
}

function noneWords(r: NoneReading): string {
  switch (r.kind) {
    case 'null':
      return 'data null';
    case 'empty-list':
      return 'an empty list';
    case 'empty-object':
      return 'an object without a request';
    case 'refusal':
      return `a refusal with code ${r.code}${r.httpStatus ? ` (HTTP ${r.httpStatus})` : ''} ("${r.message.slice(0, 120)}")`;
    case 'data':
      return 'data';
    default:
      return `a failure (${failureText(r.err)})`;
  }
}

/**
 * A not-found answer compared with the code table: a refusal whose code is not the condition's
 * gets the SERVICE_ERROR_CODES entry; null / empty answers need nothing.
 */
function notFoundFinding(
  ctx: DoctorContext,
  r: NoneReading,
  condition: 'jobNotFound' | 'recipientNotFound' | 'requestNotFound',
  what: string,
  api: ApiName,
): Omit<DoctorFinding, 'id' | 'point'> {
  if (r.kind === 'failed') return { status: 'failed', reading: `could not be read: ${failureText(r.err)}` };
  if (r.kind === 'data') return notObserved(`${what} answered with data: nothing to learn from`);
  if (r.kind !== 'refusal') return { status: 'ok', reading: `${noneWords(r)}: read as none` };
  // Through the table's own lookup (robust to a table with several codes per condition).
  const known = String(ctx.settings.errorCodes[condition]);
  if (errorCondition(r.code, ctx.settings.errorCodes, api) === condition)
    return { status: 'ok', reading: `${noneWords(r)}: the code the bot expects` };
  // Learnt from one API only: the per-API key, so the other API's codes keep their meaning.
  const key = `${api}.${condition}`;
  return {
    status: 'setting',
    reading: `${noneWords(r)}; the bot expects ${known} for this`,
    next: `Tell the bot the code ${r.code} means ${condition} on the ${api === 'wm' ? 'watermarking' : 'Service'} API.`,
    env: [{ name: 'SERVICE_ERROR_CODES', entries: { [key]: r.code } }],
  };
}

function firstSite(ctx: DoctorContext): string | undefined {
  return ctx.siteIds[0];
}

function describeSkew(ms: number): string {
  const s = Math.round(Math.abs(ms) / 1000);
  const amount = s >= 120 ? `${Math.round(s / 60)} minutes` : `${s} second${s === 1 ? '' : 's'}`;
  return `${amount} ${ms > 0 ? 'ahead of' : 'behind'} the bot's clock`;
}

function dateHeader(p: Probe): number | undefined {
  const d = p.res?.headers.date;
  const v = Array.isArray(d) ? d[0] : d;
  if (!v) return undefined;
  const t = Date.parse(v);
  return Number.isNaN(t) ? undefined : t;
}

// ---------------------------------------------------------------------------------------------
// The checks (one per open point; order = report order)
// ---------------------------------------------------------------------------------------------

const svcLogin: DoctorCheck = {
  id: 'svc.login',
  point: 'Service API login (JWT)',
  async run(ctx) {
    if (!ctx.svc) return notObserved('no Service API credentials');
    const p = await ctx.svcGet('getSites', '/account/siteId');
    if (p.err instanceof PermissionError) {
      return {
        status: 'info',
        reading: `the JWT was accepted, but the site list is not permitted for this account (permissions are per API). ${refusalExplanation(p.err)}`,
      };
    }
    if (p.err) {
      return {
        status: 'failed',
        reading: failureText(p.err),
        next: 'Fix the credentials (or the SERVICE_JWT_* settings named above) and run the check again.',
      };
    }
    return { status: 'ok', reading: 'the JWT was accepted' };
  },
};

const wmLogin: DoctorCheck = {
  id: 'wm.login',
  point: 'Watermarking API login (token)',
  async run(ctx) {
    if (!ctx.wm) return notObserved('no watermarking credentials');
    const refused: string[] = [];
    for (const siteId of ctx.siteIds.slice(0, 10)) {
      const p = await ctx.wmGet(siteId, `/api/job/${encodeURIComponent(siteId)}`, {
        page_unit: 1,
        time_zone: '+09:00',
      });
      if (p.err instanceof AuthError || p.err instanceof PermissionError)
        refused.push(`${siteId}: ${failureText(p.err)}`);
      else if (p.err && !(p.err instanceof ServiceError)) refused.push(`${siteId}: ${failureText(p.err)}`);
    }
    if (refused.length) {
      return {
        status: 'failed',
        reading: refused.join(' '),
        next: 'Fix the watermarking account id / access key or the site ids, and run the check again.',
      };
    }
    return {
      status: 'ok',
      reading: `a token was issued and accepted for ${ctx.siteIds.slice(0, 10).join(', ')}`,
    };
  },
};

const clockSkew: DoctorCheck = {
  id: 'clock',
  point: "The service's clock (Date header)",
  async run(ctx) {
    const now = ctx.input.now();
    const site = firstSite(ctx);
    const probes: Array<[string, Probe]> = [];
    if (ctx.svc) probes.push(['Service API', await ctx.svcGet('getSites', '/account/siteId')]);
    if (ctx.wm && site)
      probes.push([
        'Watermarking API',
        await ctx.wmGet(site, `/api/job/${encodeURIComponent(site)}`, { page_unit: 1, time_zone: '+09:00' }),
      ]);
    const seen = probes.flatMap(([label, p]) => {
      const t = dateHeader(p);
      return t === undefined ? [] : [{ label, skew: t - now }];
    });
    if (seen.length === 0) return notObserved('no Date header in the answers');
    const text = seen.map((s) => `${s.label} ${describeSkew(s.skew)}`).join('; ');
    // A JWT expires after SERVICE_JWT_TTL_SECONDS by the bot's clock: a service further ahead
    // than that sees every token as expired.
    const svcSkew = seen.find((s) => s.label === 'Service API')?.skew ?? 0;
    const ttl = ctx.settings.jwtTtlSeconds;
    if (ttl > 0 && svcSkew > (ttl - 30) * 1000) {
      const need = Math.ceil(svcSkew / 1000) + 300;
      return {
        status: 'setting',
        reading: `${text}: a JWT living ${ttl} s looks expired to the Service API`,
        next: 'Fix the clock of either side, or lengthen the JWT lifetime.',
        env: [{ name: 'SERVICE_JWT_TTL_SECONDS', value: String(need) }],
      };
    }
    // A watch hears job changes stamped up to the allowance (plus the skew its polls measure)
    // before its creation: a service further behind than the allowance stamps a change made just
    // after /dwm watch earlier than that until a poll has measured its clock.
    const allowance = ctx.settings.watchClockAllowanceSeconds ?? DEFAULT_WATCH_CLOCK_ALLOWANCE_SECONDS;
    const behindMs = Math.max(0, ...seen.map((s) => -s.skew));
    if (behindMs > allowance * 1000) {
      const need = Math.min(3600, Math.ceil(behindMs / 1000) + DEFAULT_WATCH_CLOCK_ALLOWANCE_SECONDS);
      return {
        status: 'setting',
        reading: `${text}: more than the ${allowance} s a watch allows for (WATCH_CLOCK_ALLOWANCE_SECONDS)`,
        next: 'Fix the clock of the service, or raise the allowance so a job change right after /dwm watch is told.',
        env: [{ name: 'WATCH_CLOCK_ALLOWANCE_SECONDS', value: String(need) }],
      };
    }
    const off = seen.some((s) => Math.abs(s.skew) > 5_000);
    return { status: off ? 'info' : 'ok', reading: text };
  },
};

/** The job search probe shared by the time zone, total_count and page checks. */
function jobSearch(
  ctx: DoctorContext,
  site: string,
  query: QueryParams = { page_unit: 1, time_zone: '+09:00' },
) {
  return ctx.wmGet(site, `/api/job/${encodeURIComponent(site)}`, query);
}

const timeZoneEcho: DoctorCheck = {
  id: 'wm.timeZone',
  point: 'time_zone echoed by the watermarking API',
  async run(ctx) {
    const site = firstSite(ctx);
    if (!ctx.wm || !site) return notObserved('no watermarking credentials');
    const p = await jobSearch(ctx, site);
    if (p.err) return { status: 'failed', reading: failureText(p.err) };
    const tz = p.body?.time_zone;
    if (tz === undefined || tz === null) {
      return { status: 'info', reading: 'not echoed: the bot reads times in the zone it asked for' };
    }
    if (tz === '+09:00') return { status: 'ok', reading: 'echoed as the offset asked for (+09:00)' };
    return {
      status: 'info',
      reading: `echoed as "${String(tz).slice(0, 40)}" when +09:00 was asked: the bot reads times in the zone it asked for`,
    };
  },
};

const totalCount: DoctorCheck = {
  id: 'wm.totalCount',
  point: 'total_count on task and job lists',
  async run(ctx) {
    const site = firstSite(ctx);
    if (!ctx.wm || !site) return notObserved('no watermarking credentials');
    const jobs = await jobSearch(ctx, site);
    if (jobs.err) return { status: 'failed', reading: failureText(jobs.err) };
    const parts = [
      `job search: ${jobs.env?.totalCount !== undefined ? 'carries total_count' : 'no total_count'}`,
    ];
    const first = (dataOf(jobs) as Array<Record<string, unknown>> | undefined)?.[0];
    const jobId = first?.job_id;
    let tasksCarry: boolean | undefined;
    if (typeof jobId === 'number' || typeof jobId === 'string') {
      const tasks = await ctx.wmGet(
        site,
        `/api/job/${encodeURIComponent(site)}/${encodeURIComponent(String(jobId))}/recipient`,
        { time_zone: '+09:00' },
      );
      if (!tasks.err) {
        tasksCarry = tasks.env?.totalCount !== undefined;
        parts.push(`task list: ${tasksCarry ? 'carries total_count' : 'no total_count'}`);
      }
    } else parts.push('task list: not observed (no job)');
    const missing = jobs.env?.totalCount === undefined || tasksCarry === false;
    return {
      status: missing ? 'info' : 'ok',
      reading: `${parts.join('; ')}${missing ? ': lists without it say "more may exist" instead of a total' : ''}`,
    };
  },
};

const pageCap: DoctorCheck = {
  id: 'pageCap',
  point: 'Page size caps (page_unit up to 1000)',
  async run(ctx) {
    const site = firstSite(ctx);
    const parts: string[] = [];
    let capped = false;
    if (ctx.wm && site) {
      const p = await ctx.wmGet(site, `/api/recipient/${encodeURIComponent(site)}`, {
        page_unit: 1000,
        time_zone: '+00:00',
      });
      const n = (dataOf(p) as unknown[] | undefined)?.length ?? 0;
      const total = p.env?.totalCount;
      if (p.err) parts.push(`recipients: ${failureText(p.err)}`);
      else if (total !== undefined && total > n && n < 1000) {
        capped = true;
        parts.push(`recipients: ${n} of ${total} on a page of 1000 asked (capped at ${n})`);
      } else
        parts.push(
          `recipients: not capped as far as seen (${n} on one page${total !== undefined ? ` of ${total}` : ''})`,
        );
    }
    if (ctx.svc && site) {
      const q = { site_id: site, page_unit: 1000 };
      const p1 = await ctx.svcGet('listLicenses', '/drm/license', q);
      const n = (dataOf(p1) as unknown[] | undefined)?.length ?? 0;
      if (p1.err) parts.push(`licenses: ${failureText(p1.err)}`);
      else if (n > 0 && n < 1000) {
        const p2 = await ctx.svcGet('listLicenses', '/drm/license', { ...q, page_index: 2 });
        const m = (dataOf(p2) as unknown[] | undefined)?.length ?? 0;
        if (m > 0) {
          capped = true;
          parts.push(`licenses: a second page after ${n} of 1000 asked (capped at ${n})`);
        } else parts.push(`licenses: not capped as far as seen (${n} in all)`);
      } else parts.push(`licenses: ${n === 0 ? 'none to observe' : 'not capped (1000 on one page)'}`);
    }
    if (parts.length === 0) return notObserved('no credentials');
    return {
      status: capped ? 'info' : 'ok',
      reading: `${parts.join('; ')}${capped ? ': the bot pages at the size the service gives' : ''}`,
    };
  },
};

const SVC_PRODUCT_CODES = ['PD001', 'PD002'] as const;

const planNone: DoctorCheck = {
  id: 'svc.planNone',
  point: 'A product without plan requests (endpoint 8)',
  async run(ctx) {
    if (!ctx.svc) return notObserved('no Service API credentials');
    const sites = await ctx.svcGet('getSites', '/account/siteId');
    const listed = Array.isArray(dataOf(sites)) ? (dataOf(sites) as Array<Record<string, unknown>>) : [];
    const pairs: Array<[string, string]> = [];
    for (const s of listed) {
      const id = typeof s.site_id === 'string' ? s.site_id : undefined;
      if (!id || !ctx.siteIds.includes(id)) continue;
      const products = Array.isArray(s.product_list)
        ? (s.product_list as Array<Record<string, unknown>>)
        : [];
      for (const pr of products) if (typeof pr.service_code === 'string') pairs.push([id, pr.service_code]);
    }
    // The site list not permitted (or no product listed): every site id with both products.
    if (pairs.length === 0)
      for (const id of ctx.siteIds) for (const c of SVC_PRODUCT_CODES) pairs.push([id, c]);
    ctx.planAnswers = [];
    const readings: NoneReading[] = [];
    for (const [siteId, code] of pairs.slice(0, 20)) {
      const probe = await ctx.svcGet(
        'getLatestStatusRequest',
        `/plan/request/status/${encodeURIComponent(siteId)}`,
        {
          service_code: code,
        },
      );
      ctx.planAnswers.push({ siteId, serviceCode: code, probe });
      readings.push(noneReading(probe));
    }
    const none = readings.filter((r) => r.kind !== 'data' && r.kind !== 'failed');
    if (none.length === 0) {
      const failed = readings.find((r) => r.kind === 'failed');
      if (failed && failed.kind === 'failed') return { status: 'failed', reading: failureText(failed.err) };
      return notObserved('every product has a plan request: nothing to learn from');
    }
    // Refusals first: a code the table does not know is the one that needs a setting.
    const refusal = none.find(
      (r) =>
        r.kind === 'refusal' && errorCondition(r.code, ctx.settings.errorCodes, 'svc') !== 'requestNotFound',
    );
    return notFoundFinding(ctx, refusal ?? (none[0] as NoneReading), 'requestNotFound', 'endpoint 8', 'svc');
  },
};

const planStatuses: DoctorCheck = {
  id: 'svc.planStatuses',
  point: 'Plan request status words (reg_status)',
  async run(ctx) {
    if (!ctx.svc) return notObserved('no Service API credentials');
    if (!ctx.planAnswers) await planNone.run(ctx);
    const words = new Set<string>();
    for (const a of ctx.planAnswers ?? []) {
      const d = dataOf(a.probe);
      const o = (Array.isArray(d) ? d[0] : d) as Record<string, unknown> | undefined;
      if (o && typeof o.reg_status === 'string' && o.reg_status !== '') words.add(o.reg_status);
    }
    if (words.size === 0) return notObserved('no plan request to read a status from');
    const unknown = [...words].filter((w) => !['ST001', 'ST002', 'ST003'].includes(w));
    if (unknown.length === 0)
      return { status: 'ok', reading: `seen: ${[...words].join(', ')} (all listed in the spec)` };
    return {
      status: 'info',
      reading: `seen: ${[...words].join(', ')}; not in the spec: ${unknown.join(', ')}. A request at such a status stays followed and is told as it is once it has stood SITE_REQUEST_UNKNOWN_STATUS_MINUTES`,
    };
  },
};

/** A watermarking lookup of an id no service hands out: how "not found" is said, and its code. */
function missingCheck(
  id: string,
  point: string,
  kind: 'job' | 'recipient',
  condition: 'jobNotFound' | 'recipientNotFound',
): DoctorCheck {
  return {
    id,
    point,
    async run(ctx) {
      const site = firstSite(ctx);
      if (!ctx.wm || !site) return notObserved('no watermarking credentials');
      const p = await ctx.wmGet(site, `/api/${kind}/${encodeURIComponent(site)}/${IMPOSSIBLE_ID}`, {
        time_zone: '+00:00',
      });
      return notFoundFinding(ctx, noneReading(p), condition, `a ${kind} id that cannot exist`, 'wm');
    },
  };
}

const missingJob = missingCheck('wm.jobNotFound', 'A job that does not exist', 'job', 'jobNotFound');
const missingRecipient = missingCheck(
  'wm.recipientNotFound',
  'A recipient that does not exist',
  'recipient',
  'recipientNotFound',
);

const siteRequestStatuses: DoctorCheck = {
  id: 'svc.siteRequestStatuses',
  point: 'Additional-site request status words',
  async run(ctx) {
    if (!ctx.svc) return notObserved('no Service API credentials');
    const p = await ctx.svcGet('listAdditionalSiteRequests', '/account/siteId/approve', { page_unit: 1000 });
    if (p.err) return { status: 'failed', reading: failureText(p.err) };
    const rows = Array.isArray(dataOf(p)) ? (dataOf(p) as Array<Record<string, unknown>>) : [];
    const words = [
      ...new Set(rows.map((r) => (typeof r.status === 'string' ? r.status : '')).filter(Boolean)),
    ];
    if (words.length === 0) return notObserved('no additional-site request to read a status from');
    const unknown = words.filter((w) => siteRequestReading(w, ctx.settings.siteStatuses) === undefined);
    const known = words
      .filter((w) => !unknown.includes(w))
      .map((w) => `${w} (${siteRequestReading(w, ctx.settings.siteStatuses)})`);
    if (unknown.length === 0) return { status: 'ok', reading: `seen: ${known.join(', ')}` };
    return {
      status: 'setting',
      reading: `seen: ${[...known, ...unknown.map((w) => `${w} (unknown)`)].join(', ')}`,
      next: `Say what ${unknown.map((w) => `"${w}"`).join(', ')} mean${unknown.length === 1 ? 's' : ''}: replace each "pending|approved|cancelled" by one of the three.`,
      env: [
        {
          name: 'SERVICE_SITE_REQUEST_STATUSES',
          entries: Object.fromEntries(unknown.map((w) => [w, 'pending|approved|cancelled'])),
        },
      ],
    };
  },
};

const placement: DoctorCheck = {
  id: 'svc.placement',
  point: 'Where POST/PUT parameters go',
  async run(ctx) {
    return notObserved(
      `cannot be observed without a write (this check only reads); the bot sends SERVICE_BODY_ENCODING=${ctx.settings.bodyEncoding}, SERVICE_API_CODE_IN=${ctx.settings.apiCodeIn}. If a change through the bot is refused with "api_code" or a parameter missing, try query, or body/both`,
    );
  },
};

/** Every check, in report order. Add an open point by adding its check here. */
export const DOCTOR_CHECKS: readonly DoctorCheck[] = [
  svcLogin,
  wmLogin,
  clockSkew,
  timeZoneEcho,
  totalCount,
  pageCap,
  planNone,
  planStatuses,
  missingJob,
  missingRecipient,
  siteRequestStatuses,
  placement,
];

// ---------------------------------------------------------------------------------------------
// Running and reporting
// ---------------------------------------------------------------------------------------------

function parseJsonObject(json: string | undefined): Record<string, unknown> {
  if (!json?.trim()) return {};
  try {
    const j: unknown = JSON.parse(json);
    return j && typeof j === 'object' && !Array.isArray(j) ? (j as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** The .env lines of the findings: JSON settings merged with their current values, one line each. */
export function envLinesOf(findings: readonly DoctorFinding[], settings: DoctorSettings): string[] {
  const current: Record<string, string | undefined> = {
    SERVICE_ERROR_CODES: settings.serviceErrorCodesJson,
    SERVICE_SITE_REQUEST_STATUSES: settings.siteStatusesJson,
  };
  const json = new Map<string, Record<string, unknown>>();
  const plain = new Map<string, string>();
  for (const f of findings) {
    for (const e of f.env ?? []) {
      if ('value' in e) plain.set(e.name, e.value);
      else {
        const base = json.get(e.name) ?? parseJsonObject(current[e.name]);
        json.set(e.name, { ...base, ...e.entries });
      }
    }
  }
  return [
    ...[...json].map(([name, obj]) => `${name}=${JSON.stringify(obj)}`),
    ...[...plain].map(([name, v]) => `${name}=${v}`),
  ];
}

/** Run every check (one failing check is a finding, never the end of the report). */
export async function runDoctor(input: DoctorInput): Promise<DoctorReport> {
  const ctx = new DoctorContext(input);
  const findings: DoctorFinding[] = [];
  for (const check of input.checks ?? DOCTOR_CHECKS) {
    let r: Omit<DoctorFinding, 'id' | 'point'>;
    try {
      r = await check.run(ctx);
    } catch (err) {
      r = { status: 'failed', reading: `the check failed: ${failureText(err)}` };
    }
    findings.push({ id: check.id, point: check.point, ...r });
  }
  return {
    findings,
    envLines: envLinesOf(findings, input.settings),
    needsAction: findings.some((f) => f.status === 'setting' || f.status === 'failed'),
  };
}

const STATUS_WORD: Record<DoctorStatus, string> = {
  ok: 'ok',
  info: 'note',
  setting: 'SETTING NEEDED',
  failed: 'FAILED',
  'not-observed': 'not observed',
};

/** The report as plain text: one line per point ("point: status. reading. next"), then the .env lines. */
export function doctorText(report: DoctorReport): string {
  const width = Math.max(...report.findings.map((f) => f.point.length));
  const lines = report.findings.map(
    (f) =>
      `${f.point.padEnd(width)}  ${STATUS_WORD[f.status].padEnd(14)}  ${f.reading}${f.next ? `. ${f.next}` : ''}`,
  );
  const out = ['Service check (read-only: GET calls only)', '', ...lines, ''];
  if (report.envLines.length) {
    out.push('Add to .env (then restart the bot):', ...report.envLines, '');
  } else if (!report.needsAction) {
    out.push('No setting needed: the bot reads this service as it answers.', '');
  }
  return out.join('\n');
}

/** The settings in force, from the configuration (the same loaders as the bot's start). */
export function doctorSettingsOf(
  config: Pick<Config, 'serviceErrorCodes' | 'siteRequestStatuses' | 'serviceJwtTtlSeconds' | 'serviceApi'> &
    Partial<Pick<Config, 'watchClockAllowanceSeconds'>>,
): DoctorSettings {
  return {
    ...(config.watchClockAllowanceSeconds !== undefined
      ? { watchClockAllowanceSeconds: config.watchClockAllowanceSeconds }
      : {}),
    errorCodes: loadErrorCodes(config.serviceErrorCodes ?? '{}'),
    siteStatuses: loadSiteRequestStatuses(config.siteRequestStatuses ?? '{}'),
    jwtTtlSeconds: config.serviceJwtTtlSeconds,
    ...(config.serviceErrorCodes ? { serviceErrorCodesJson: config.serviceErrorCodes } : {}),
    ...(config.siteRequestStatuses ? { siteStatusesJson: config.siteRequestStatuses } : {}),
    bodyEncoding: config.serviceApi.bodyEncoding,
    apiCodeIn: config.serviceApi.apiCodeIn,
  };
}
