/**
 * The service check's probing: the types every check shares (`DoctorCheck`, `DoctorFinding`, the
 * settings compared with the service) and `DoctorContext`, through which a check reads the
 * services. Every request is a GET (`probe` makes no other), memoised per run so two checks
 * reading the same answer cost one call. A change to how the check reaches the services (a new
 * API, another header, another probe shared by several checks) lives here.
 */
import { API_CODE, type ServiceEndpointName } from '../../api/codes.js';
import { decodeEnvelope, type Envelope } from '../../api/envelope.js';
import type { ErrorCodeTable } from '../../api/error-codes.js';
import type { HttpClient, HttpResponse, QueryParams } from '../../api/http.js';
import type { JwtSigner } from '../../api/jwt.js';
import type { SiteRequestStatusTable } from '../../api/site-request-statuses.js';
import type {
  ServiceApiCredentials,
  WatermarkingCredentials,
  WorkspaceCredentials,
} from '../../api/types.js';
import type { WmTokenManager } from '../../api/wm-token.js';
import type { StepSentence } from '../../next-step.js';

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
  /** What to do, when anything (one sentence; one naming a command is worded by the caller). */
  next?: string | StepSentence;
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

/** The job search probe shared by the time zone, total_count and page checks. */
export function jobSearch(
  ctx: DoctorContext,
  site: string,
  query: QueryParams = { page_unit: 1, time_zone: '+09:00' },
) {
  return ctx.wmGet(site, `/api/job/${encodeURIComponent(site)}`, query);
}
