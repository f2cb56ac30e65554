/**
 * Service API client (spec endpoints 1 to 19).
 *
 * Parameter placement. GET: every parameter (and api_code) in the query string, as the spec says.
 * POST/PUT: the spec does not show the placement. Default: `api_code` in the query string (so it
 * is present whatever body parser the server uses) and the other fields as a JSON body;
 * `bodyEncoding` 'form' (urlencoded) or 'query' (everything in the query string) and `apiCodeIn`
 * 'body' or 'both' for a deployment that wants otherwise (`placeServiceParams`). The certificate
 * upload (18) carries files, so it is always multipart form data (undici FormData + Blob), with
 * api_code placed by `apiCodeIn`.
 *
 * Endpoint 14: the path is `cid-License` in the table and `cid-drmLicense` in one sample. The
 * preferred spelling is tried first; on HTTP 404 the other is tried, and the one that worked is
 * remembered per base URL (shared by every client of the factory).
 *
 * Endpoint 8: when the site has no request yet the service may answer with null/empty data or a
 * not-found refusal (the requestNotFound code of SERVICE_ERROR_CODES); the client returns null. The spec lists this endpoint's response as "service status change request
 * fields" without saying `data` (every other endpoint says `data`): the fields are read from
 * `data` and, when `data` is empty but the envelope itself carries `req_group_id`, from the
 * envelope's top level.
 */
import { Blob } from 'node:buffer';
import { FormData } from 'undici';
import { z } from 'zod';
import {
  API_CODE,
  LICENSE_SEARCH_CONDITIONS,
  MEMBER_GROUP_SEQS,
  MEMBER_STATUS,
  type MemberStatusCode,
  PRODUCT_STATUS,
  type ProductStatusCode,
  REGISTRABLE_REQUEST_TYPES,
  REQUEST_STATUS,
  REQUEST_TYPE,
  type RequestStatusCode,
  SERVICE_CODES,
  type ServiceEndpointName,
} from './codes.js';
import {
  codeOf,
  countLike,
  decodeEnvelope,
  type Envelope,
  intLike,
  listOf,
  parseWith,
  reqText,
  siteIdSchema,
  text,
} from './envelope.js';
import { isServiceCondition } from './error-codes.js';
import { AuthError, ServiceError, TransportError } from './errors.js';
import type { HttpClient, HttpMethod, QueryParams, RequestBody } from './http.js';
import { runCall } from './http.js';
import type { JwtSigner } from './jwt.js';
import { coveringDaysIn, normalizeTimeZone, parseServiceTime } from './time.js';
import type {
  AdditionalSiteRequest,
  PageQuery,
  ServiceApiCredentials,
  ServiceClient,
  StatusRequest,
  SvcPage,
} from './types.js';
import {
  assertValid,
  checkCode,
  checkDate,
  checkDateRange,
  checkEmail,
  checkFileExtension,
  checkKeyPassword,
  checkNonEmpty,
  checkPageIndex,
  checkPageUnit,
  checkPositiveInt,
  checkSiteId,
  checkTokenDuration,
  checkUrl,
  LIMITS,
} from './validate.js';

export type CidLicensePath = 'cid-License' | 'cid-drmLicense';

/** SERVICE_BODY_ENCODING: where the non-header parameters of a POST/PUT go. */
export type BodyEncoding = 'json' | 'form' | 'query';
/** SERVICE_API_CODE_IN: where api_code goes in a POST/PUT. */
export type ApiCodeIn = 'query' | 'body' | 'both';

export interface ParamPlacement {
  bodyEncoding: BodyEncoding;
  apiCodeIn: ApiCodeIn;
}

/**
 * Where one Service API call's parameters go (the ONE placement rule; the spec shows it only for
 * GET). GET: everything in the query string. POST/PUT: `bodyEncoding` json (a JSON body), form
 * (an urlencoded body) or query (everything in the query string, no body); `apiCodeIn` query, body
 * or both. A multipart upload (endpoint 18) keeps its fields and files in the form whatever the
 * encoding (its secrets never go into a URL); its api_code follows `apiCodeIn`. With query
 * encoding and no multipart there is no body: api_code goes in the query string (config refuses
 * `body` with `query`).
 */
export function placeServiceParams(
  method: HttpMethod,
  apiCode: string,
  params: QueryParams,
  placement: ParamPlacement,
  multipart?: FormData,
): { query: QueryParams; body?: RequestBody } {
  if (method === 'GET') return { query: { api_code: apiCode, ...params } };
  const inQuery = placement.apiCodeIn !== 'body';
  const inBody = placement.apiCodeIn !== 'query';
  if (multipart) {
    if (inBody) multipart.set('api_code', apiCode);
    return { query: inQuery ? { api_code: apiCode } : {}, body: { kind: 'multipart', value: multipart } };
  }
  const fields: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null) fields[k] = v;
  if (placement.bodyEncoding === 'query') return { query: { api_code: apiCode, ...params } };
  const query: QueryParams = inQuery ? { api_code: apiCode } : {};
  const withCode = inBody ? { api_code: apiCode, ...fields } : fields;
  if (placement.bodyEncoding === 'form') {
    const form: Record<string, string> = {};
    for (const [k, v] of Object.entries(withCode)) form[k] = String(v);
    return { query, body: { kind: 'form', value: form } };
  }
  return { query, body: { kind: 'json', value: withCode } };
}

export interface ServiceClientOptions {
  /** Where POST/PUT parameters go (placement not shown in the spec). Default 'json'. */
  bodyEncoding?: BodyEncoding;
  /** Where api_code goes in a POST/PUT (not shown in the spec). Default 'query'. */
  apiCodeIn?: ApiCodeIn;
  /** Spelling of endpoint 14 tried first. Default 'cid-License'. */
  cidLicensePath?: CidLicensePath;
  /**
   * UTC offset the license list's `reg_time` is written in (SERVICE_LICENSE_TIME_ZONE, e.g.
   * "+09:00"). The spec gives that field no zone (only reg_dt/update_dt say "UTC +00:00").
   * Default UTC. A time that carries its own offset or `Z` is read with that one.
   */
  licenseTimeZone?: string;
  /**
   * UTC offset of the other times the spec leaves unzoned (SERVICE_TIME_ZONE): additional-site
   * reg_time / update_time and packaging created_time / update_time, and the packaging list's
   * `from`/`to` days (sent as the days of this offset that cover the UTC days asked). Default UTC.
   */
  timeZone?: string;
}

export interface ServiceClientDeps {
  http: HttpClient;
  jwt: JwtSigner;
  /** baseUrl -> spelling of endpoint 14 that worked (shared across clients). */
  cidPathMemo?: Map<string, CidLicensePath>;
  /** The bot's clock (compared with the server's Date header on a 401). Default Date.now. */
  now?: () => number;
}

/**
 * Service API times are read as UTC. The spec says so for reg_dt/update_dt ("UTC +00:00"); for
 * the other times (additional-site reg_time/update_time, license reg_time, packaging times) it
 * shows no zone: additional-site and packaging times are read in `timeZone` (SERVICE_TIME_ZONE,
 * default UTC), and the license list's reg_time, whose
 * offset is a setting (`licenseTimeZone`, SERVICE_LICENSE_TIME_ZONE, default UTC): the license
 * alerts count the records of a window by that time, so a service writing it in local time must
 * be read in that zone. A time string that carries its own offset or `Z` is read with that offset
 * instead (time.ts).
 */
const UTC = '+00:00';

/**
 * Fields a real service may leave out or send as null although the spec lists them ("not shown"
 * whether they may be): read with safe defaults instead of failing the whole answer.
 * - a count (license_cnt, success, ...): null, "" or absent -> 0;
 * - an optional number (group_seq, token_duration): null, "" or absent -> 0, which no table
 *   lists (a group 0 is shown with the service's group_name; a token duration 0 as "not set").
 */
const REQUEST_TYPE_CODES = Object.keys(REQUEST_TYPE);

const orZero = z
  .preprocess(
    (v) => (typeof v === 'string' && v.trim() === '' ? null : v),
    z.union([intLike, z.null()]).optional(),
  )
  .transform((v) => v ?? 0);

/** A count (license_cnt, success, ...): the envelope's count (also "1,234"), null or absent -> 0. */
const countOrZero = countLike.transform((v) => v ?? 0);

const siteSchema = z.object({
  site_id: siteIdSchema,
  service_name: text,
  product_list: listOf(
    z.object({
      service_code: codeOf(SERVICE_CODES, 'service_code'),
      status_code: codeOf(Object.keys(PRODUCT_STATUS) as ProductStatusCode[], 'product status_code'),
    }),
  ),
});

const additionalSiteSchema = z.object({
  seq: intLike,
  account_id: text,
  site_id: text,
  service_name: text,
  status: text,
  update_time: text,
  reg_time: text,
});

const subMemberSchema = z.object({
  group_name: text,
  group_seq: orZero,
  member_seq: intLike,
  member_email: reqText,
  status_code: codeOf(Object.keys(MEMBER_STATUS) as MemberStatusCode[], 'member status_code'),
  reg_date: text,
});

const statusRequestSchema = z.object({
  site_id: text,
  req_group_id: reqText,
  // A free text in the schema, but a code of REQUEST_TYPE: read case-insensitively like the others.
  reg_type: text.transform((v) => REQUEST_TYPE_CODES.find((c) => c === v.trim().toUpperCase()) ?? v),
  reg_message: text,
  reg_status: z
    .preprocess(
      (v) => (typeof v === 'string' && v.trim() === '' ? null : v),
      z
        .union([codeOf(Object.keys(REQUEST_STATUS) as RequestStatusCode[], 'reg_status'), z.null()])
        .optional(),
    )
    .transform((v) => v ?? undefined),
  reg_id: text,
  reg_dt: text,
  update_dt: text.optional(),
});

const licenseSchema = z.object({
  cid: reqText,
  // Spec values are `success` / `fail`; case is not significant ("SUCCESS", "Fail" are read the
  // same). Any other word is kept as sent (lower-cased) like every unknown code: it is neither a
  // success nor a failure, and renderers show it as "unknown (word)".
  status: z.preprocess(
    (v) => (typeof v === 'string' ? v.trim().toLowerCase() : v),
    codeOf(['success', 'fail'] as const, 'license status'),
  ),
  error_code: text,
  drm_type: text,
  user_id: text,
  device_id: text,
  device_model: text,
  license_type: text,
  platform_name: text,
  reg_time: text,
});

const userSchema = z.object({
  user_id: reqText,
  license_cnt: countOrZero,
  device_cnt: countOrZero,
  success: countOrZero,
  fail: countOrZero,
});

const deviceSchema = z.object({
  device_id: reqText,
  device_model: text,
  license_cnt: countOrZero,
  success: countOrZero,
  fail: countOrZero,
});

const cidSchema = z.object({ cid: reqText, license_cnt: countOrZero });

const packSchema = z.object({
  site_id: text,
  cid: reqText,
  track: text,
  created_time: text,
  update_time: text,
});

const settingsSchema = z.object({
  site_id: text,
  site_key: text,
  access_key: text,
  license_callback_url: text,
  package_callback_url: text,
  kms_token: text,
  token_duration: orZero,
  iv: text,
});

const statsSchema = z.object({
  license_cnt: countOrZero,
  user_acc_cnt: countOrZero,
  device_acc_cnt: countOrZero,
  // Absent or empty: the date asked for (getMonthlyStats).
  target_date: text,
});

const seqSchema = z.object({ seq: intLike });
const memberSeqSchema = z.object({ member_seq: intLike });

type Check = [field: string, finding: string | null];

function pageChecks(q: PageQuery & { from?: string; to?: string }): Check[] {
  return [
    ['page size', q.pageUnit === undefined ? null : checkPageUnit(q.pageUnit)],
    ['page', q.pageIndex === undefined ? null : checkPageIndex(q.pageIndex)],
    ['from', q.from === undefined ? null : checkDate(q.from)],
    ['to', q.to === undefined ? null : checkDate(q.to)],
    ['date range', checkDateRange(q.from, q.to)],
  ];
}

function searchChecks(q: {
  searchCondition?: string;
  searchKeyword?: string;
  searchStatus?: string;
}): Check[] {
  return [
    [
      'search status',
      q.searchStatus === undefined ? null : checkCode(q.searchStatus, ['success', 'fail'], 'Search status'),
    ],
    [
      'search condition',
      q.searchCondition === undefined
        ? null
        : checkCode(q.searchCondition, LICENSE_SEARCH_CONDITIONS, 'Search condition'),
    ],
    [
      'search keyword',
      q.searchKeyword !== undefined && 'searchCondition' in q && q.searchCondition === undefined
        ? `A search keyword needs a search condition (one of ${LICENSE_SEARCH_CONDITIONS.join(', ')}).`
        : null,
    ],
  ];
}

function toStatusRequest(w: z.output<typeof statusRequestSchema>): StatusRequest {
  const r: StatusRequest = {
    siteId: w.site_id,
    requestId: w.req_group_id,
    type: w.reg_type,
    message: w.reg_message,
    registeredBy: w.reg_id,
    regTime: parseServiceTime(w.reg_dt, UTC),
  };
  if (w.reg_status !== undefined) r.status = w.reg_status;
  if (w.update_dt !== undefined) r.updateTime = parseServiceTime(w.update_dt, UTC);
  return r;
}

/**
 * Calls whose answer's data the client never reads (updates, the password reset, the certificate
 * upload): an HTTP 204 or an empty body is their success (decodeEnvelope `noData`). `verify` is
 * not one: it is there to prove a real envelope comes back.
 */
const NO_DATA_CALLS: ReadonlySet<ServiceEndpointName> = new Set<ServiceEndpointName>([
  'resetSubMemberPassword',
  'updateSubMember',
  'updateSettings',
  'uploadFpsCert',
]);

function isEmptyData(d: unknown): boolean {
  return (
    d === null ||
    d === undefined ||
    d === '' ||
    (Array.isArray(d) && d.length === 0) ||
    (typeof d === 'object' && !Array.isArray(d) && Object.keys(d).length === 0)
  );
}

export function createServiceClient(
  creds: ServiceApiCredentials,
  deps: ServiceClientDeps,
  opts: ServiceClientOptions = {},
): ServiceClient {
  const { http, jwt } = deps;
  const placement: ParamPlacement = {
    bodyEncoding: opts.bodyEncoding ?? 'json',
    apiCodeIn: opts.apiCodeIn ?? 'query',
  };
  const preferredCid: CidLicensePath = opts.cidLicensePath ?? 'cid-License';
  const licenseTz = normalizeTimeZone(opts.licenseTimeZone ?? UTC) ?? UTC;
  const unzonedTz = normalizeTimeZone(opts.timeZone ?? UTC) ?? UTC;
  const cidMemo = deps.cidPathMemo ?? new Map<string, CidLicensePath>();

  /** One logical call: JWT, request, envelope; one re-sign and retry on 401 (nothing processed). */
  function call(
    name: ServiceEndpointName,
    method: HttpMethod,
    path: string,
    params: QueryParams = {},
    multipart?: FormData,
  ): Promise<Envelope> {
    const endpoint = `svc.${name}`;
    const { query, body } = placeServiceParams(method, API_CODE[name], params, placement, multipart);
    const once = async () => {
      const authorization = await jwt.header(creds);
      const res = await http.request({
        endpoint,
        method,
        baseUrl: creds.baseUrl,
        path: `/api/v2${path}`,
        query,
        body,
        headers: { authorization },
      });
      return decodeEnvelope(endpoint, res, {
        api: 'svc',
        noData: NO_DATA_CALLS.has(name),
        ...(deps.now ? { now: deps.now } : {}),
      });
    };
    return runCall(endpoint, async () => {
      try {
        return await once();
      } catch (e) {
        if (!(e instanceof AuthError)) throw e;
        // A 401 was not processed: re-sign (clock skew, expiry race) and try once more.
        jwt.invalidate(creds);
        return once();
      }
    });
  }

  function svcPage<T>(items: T[], env: Envelope, q: PageQuery): SvcPage<T> {
    return {
      items,
      count: env.count ?? items.length,
      pageIndex: q.pageIndex ?? 1,
      pageUnit: q.pageUnit ?? LIMITS.pageUnitDefault,
    };
  }

  const enc = encodeURIComponent;
  const ep = (name: ServiceEndpointName) => `svc.${name}`;

  return {
    async verify() {
      // Only the credentials are checked: the call must come back as a 200 envelope with
      // error_code 0000. The site list itself is not validated here, so a product or status code
      // the spec does not list (a service newer than the spec) cannot make setup fail.
      await call('getSites', 'GET', '/account/siteId');
    },

    async getSites() {
      const env = await call('getSites', 'GET', '/account/siteId');
      return parseWith(ep('getSites'), listOf(siteSchema), env.data).map((w) => ({
        siteId: w.site_id,
        name: w.service_name,
        products: w.product_list.map((p) => ({ serviceCode: p.service_code, status: p.status_code })),
      }));
    },

    async requestAdditionalSite(serviceName) {
      assertValid(ep('requestAdditionalSite'), [['site name', checkNonEmpty(serviceName, 'The site name')]]);
      const env = await call('requestAdditionalSite', 'POST', '/account/siteId/approve', {
        service_name: serviceName,
      });
      return { seq: parseWith(ep('requestAdditionalSite'), seqSchema, env.data).seq };
    },

    async listAdditionalSiteRequests(query = {}) {
      const name = 'listAdditionalSiteRequests';
      assertValid(ep(name), [
        ...pageChecks(query),
        [
          'search type',
          query.searchType === undefined
            ? null
            : checkCode(query.searchType, ['account_id', 'site_id'], 'Search type'),
        ],
        [
          'search keyword',
          query.searchKeyword !== undefined && query.searchType === undefined
            ? 'A search keyword needs a search type (account_id or site_id).'
            : null,
        ],
      ]);
      const env = await call(name, 'GET', '/account/siteId/approve', {
        from: query.from,
        to: query.to,
        req_status: query.reqStatus,
        search_type: query.searchType,
        search_keyword: query.searchKeyword,
        page_unit: query.pageUnit,
        page_index: query.pageIndex,
      });
      const items = parseWith(ep(name), listOf(additionalSiteSchema), env.data).map(
        (w): AdditionalSiteRequest => ({
          seq: w.seq,
          accountId: w.account_id,
          siteId: w.site_id,
          serviceName: w.service_name,
          status: w.status,
          updateTime: parseServiceTime(w.update_time, unzonedTz),
          regTime: parseServiceTime(w.reg_time, unzonedTz),
        }),
      );
      return svcPage(items, env, query);
    },

    async listSubMembers(query = {}) {
      const name = 'listSubMembers';
      assertValid(ep(name), pageChecks(query));
      const env = await call(name, 'GET', '/account/member', {
        page_unit: query.pageUnit,
        page_index: query.pageIndex,
      });
      const items = parseWith(ep(name), listOf(subMemberSchema), env.data).map((w) => ({
        groupName: w.group_name,
        groupSeq: w.group_seq,
        memberSeq: w.member_seq,
        email: w.member_email,
        status: w.status_code,
        regDate: w.reg_date,
      }));
      return svcPage(items, env, query);
    },

    async createSubMember(email, groupSeq) {
      const name = 'createSubMember';
      assertValid(ep(name), [
        ['e-mail', checkEmail(email)],
        ['group', groupSeq === undefined ? null : checkCode(String(groupSeq), MEMBER_GROUP_SEQS, 'Group')],
      ]);
      const env = await call(name, 'POST', '/account/member', { member_email: email, group_seq: groupSeq });
      return { memberSeq: parseWith(ep(name), memberSeqSchema, env.data).member_seq };
    },

    async resetSubMemberPassword(memberSeq) {
      const name = 'resetSubMemberPassword';
      assertValid(ep(name), [['member', checkPositiveInt(memberSeq, 'Member number')]]);
      await call(name, 'PUT', '/account/member/repw', { member_seq: memberSeq });
    },

    async updateSubMember(update) {
      const name = 'updateSubMember';
      assertValid(ep(name), [
        ['member', checkPositiveInt(update.memberSeq, 'Member number')],
        [
          'status',
          update.status === undefined
            ? null
            : checkCode(update.status, Object.keys(MEMBER_STATUS), 'Member status'),
        ],
        [
          'group',
          update.groupSeq === undefined
            ? null
            : checkCode(String(update.groupSeq), MEMBER_GROUP_SEQS, 'Group'),
        ],
        [
          'update',
          update.status === undefined && update.groupSeq === undefined
            ? 'Nothing to change: give a new status, a new group, or both.'
            : null,
        ],
      ]);
      await call(name, 'PUT', '/account/member', {
        member_seq: update.memberSeq,
        member_status: update.status,
        group_seq: update.groupSeq,
      });
    },

    async getLatestStatusRequest(siteId, serviceCode) {
      const name = 'getLatestStatusRequest';
      assertValid(ep(name), [
        ['site id', checkSiteId(siteId)],
        ['service', checkCode(serviceCode, SERVICE_CODES, 'Service code')],
      ]);
      let env: Envelope;
      try {
        env = await call(name, 'GET', `/plan/request/status/${enc(siteId)}`, { service_code: serviceCode });
      } catch (e) {
        // "No request yet" as a not-found refusal (the spec: any other number means failure):
        // none, like data null or an empty list. The code is the table's requestNotFound
        // (SERVICE_ERROR_CODES).
        if (isServiceCondition(e, 'requestNotFound')) return null;
        throw e;
      }
      let d: unknown = env.data;
      if (isEmptyData(d) && env.raw.req_group_id !== undefined && env.raw.req_group_id !== null) {
        d = env.raw; // fields at the top level of the envelope (see the file comment)
      }
      if (isEmptyData(d)) return null;
      // Tolerate a one-element list.
      if (Array.isArray(d)) d = d[0];
      // Every field present but empty (req_group_id null or ""): no request either ("not shown"
      // how a service says "none"; an object of nulls is read as that, not as a broken answer).
      const id = d && typeof d === 'object' ? (d as Record<string, unknown>).req_group_id : undefined;
      if (id === null || (typeof id === 'string' && id.trim() === '')) return null;
      return toStatusRequest(parseWith(ep(name), statusRequestSchema, d));
    },

    async registerStatusRequest(siteId, req) {
      const name = 'registerStatusRequest';
      assertValid(ep(name), [
        ['site id', checkSiteId(siteId)],
        ['service', checkCode(req.serviceCode, SERVICE_CODES, 'Service code')],
        ['request type', checkCode(req.requestType, REGISTRABLE_REQUEST_TYPES, 'Request type')],
      ]);
      const env = await call(name, 'POST', `/plan/request/status/${enc(siteId)}`, {
        service_code: req.serviceCode,
        request_type: req.requestType,
        request_message: req.message,
      });
      return toStatusRequest(parseWith(ep(name), statusRequestSchema, env.data));
    },

    async cancelStatusRequest(siteId, req) {
      const name = 'cancelStatusRequest';
      assertValid(ep(name), [
        ['site id', checkSiteId(siteId)],
        ['service', checkCode(req.serviceCode, SERVICE_CODES, 'Service code')],
        ['request id', checkNonEmpty(req.requestId, 'The request id')],
      ]);
      const env = await call(name, 'PUT', `/plan/request/status/${enc(siteId)}`, {
        service_code: req.serviceCode,
        request_type: 'SM004',
        request_group_id: req.requestId,
      });
      return toStatusRequest(parseWith(ep(name), statusRequestSchema, env.data));
    },

    async listLicenses(siteId, query = {}) {
      const name = 'listLicenses';
      assertValid(ep(name), [
        ['site id', checkSiteId(siteId)],
        ...pageChecks(query),
        ...searchChecks({ searchCondition: undefined, ...query }),
      ]);
      const env = await call(name, 'GET', '/drm/license', {
        site_id: siteId,
        from: query.from,
        to: query.to,
        page_unit: query.pageUnit,
        page_index: query.pageIndex,
        search_status: query.searchStatus,
        search_condition: query.searchCondition,
        search_keyword: query.searchKeyword,
      });
      const items = parseWith(ep(name), listOf(licenseSchema), env.data).map((w) => ({
        cid: w.cid,
        status: w.status,
        errorCode: w.error_code,
        drmType: w.drm_type,
        userId: w.user_id,
        deviceId: w.device_id,
        deviceModel: w.device_model,
        licenseType: w.license_type,
        platformName: w.platform_name,
        regTime: parseServiceTime(w.reg_time, licenseTz),
      }));
      return svcPage(items, env, query);
    },

    async listUsers(siteId, query = {}) {
      const name = 'listUsers';
      assertValid(ep(name), [['site id', checkSiteId(siteId)], ...pageChecks(query)]);
      const env = await call(name, 'GET', '/drm/user', {
        site_id: siteId,
        from: query.from,
        to: query.to,
        page_unit: query.pageUnit,
        page_index: query.pageIndex,
        search_keyword: query.searchKeyword,
      });
      const items = parseWith(ep(name), listOf(userSchema), env.data).map((w) => ({
        userId: w.user_id,
        licenseCount: w.license_cnt,
        deviceCount: w.device_cnt,
        success: w.success,
        fail: w.fail,
      }));
      return svcPage(items, env, query);
    },

    async listDevices(siteId, query = {}) {
      const name = 'listDevices';
      assertValid(ep(name), [['site id', checkSiteId(siteId)], ...pageChecks(query)]);
      const env = await call(name, 'GET', '/drm/device', {
        site_id: siteId,
        from: query.from,
        to: query.to,
        page_unit: query.pageUnit,
        page_index: query.pageIndex,
        search_keyword: query.searchKeyword,
      });
      const items = parseWith(ep(name), listOf(deviceSchema), env.data).map((w) => ({
        deviceId: w.device_id,
        deviceModel: w.device_model,
        licenseCount: w.license_cnt,
        success: w.success,
        fail: w.fail,
      }));
      return svcPage(items, env, query);
    },

    async listCidLicenses(siteId, query = {}) {
      const name = 'listCidLicenses';
      assertValid(ep(name), [
        ['site id', checkSiteId(siteId)],
        ...pageChecks(query),
        ...searchChecks({ searchStatus: query.searchStatus }),
      ]);
      const params = {
        site_id: siteId,
        from: query.from,
        to: query.to,
        page_unit: query.pageUnit,
        page_index: query.pageIndex,
        search_status: query.searchStatus,
      };
      const memoKey = creds.baseUrl.replace(/\/+$/, '');
      const first = cidMemo.get(memoKey) ?? preferredCid;
      const other: CidLicensePath = first === 'cid-License' ? 'cid-drmLicense' : 'cid-License';
      let env: Envelope;
      try {
        env = await call(name, 'GET', `/drm/${first}`, params);
        cidMemo.set(memoKey, first);
      } catch (e) {
        const status =
          e instanceof TransportError ? e.status : e instanceof ServiceError ? e.httpStatus : undefined;
        if (status !== 404) throw e;
        env = await call(name, 'GET', `/drm/${other}`, params);
        cidMemo.set(memoKey, other);
      }
      const items = parseWith(ep(name), listOf(cidSchema), env.data).map((w) => ({
        cid: w.cid,
        licenseCount: w.license_cnt,
      }));
      return svcPage(items, env, query);
    },

    async listPackaging(siteId, query = {}) {
      const name = 'listPackaging';
      const hasCreated = query.lastCreatedTimeCid !== undefined;
      const hasUpdated = query.lastUpdateTime !== undefined;
      assertValid(ep(name), [
        ['site id', checkSiteId(siteId)],
        ...pageChecks(query),
        ...searchChecks({ searchCondition: undefined, ...query }),
        [
          'cursor',
          hasCreated !== hasUpdated
            ? 'The packaging cursor needs both last_created_time_cid and last_update_time, or neither.'
            : null,
        ],
      ]);
      // The service reads its unzoned from/to in the zone it writes created_time in
      // (SERVICE_TIME_ZONE): the UTC days asked for go out as that zone's days covering them.
      const days = coveringDaysIn({ from: query.from, to: query.to }, unzonedTz);
      const env = await call(name, 'GET', '/drm/pack', {
        site_id: siteId,
        from: days.from,
        to: days.to,
        search_condition: query.searchCondition,
        search_keyword: query.searchKeyword,
        last_created_time_cid: query.lastCreatedTimeCid,
        last_update_time: query.lastUpdateTime,
      });
      const items = parseWith(ep(name), listOf(packSchema), env.data).map((w) => ({
        siteId: w.site_id,
        cid: w.cid,
        track: w.track || 'HD',
        createdTime: parseServiceTime(w.created_time, unzonedTz),
        updateTime: parseServiceTime(w.update_time, unzonedTz),
      }));
      // Keyset-paged, not page_index-paged: one "page" per cursor.
      return { items, count: env.count ?? items.length, pageIndex: 1, pageUnit: items.length };
    },

    async getSettings(siteId) {
      const name = 'getSettings';
      assertValid(ep(name), [['site id', checkSiteId(siteId)]]);
      const env = await call(name, 'GET', `/drm/setting/${enc(siteId)}`);
      const w = parseWith(ep(name), settingsSchema, env.data);
      return {
        siteId: w.site_id,
        siteKey: w.site_key,
        accessKey: w.access_key,
        licenseCallbackUrl: w.license_callback_url,
        packageCallbackUrl: w.package_callback_url,
        kmsToken: w.kms_token,
        tokenDuration: w.token_duration,
        iv: w.iv,
      };
    },

    async updateSettings(siteId, update) {
      const name = 'updateSettings';
      assertValid(ep(name), [
        ['site id', checkSiteId(siteId)],
        [
          'license callback URL',
          update.licenseCallbackUrl === undefined ? null : checkUrl(update.licenseCallbackUrl),
        ],
        [
          'package callback URL',
          update.packageCallbackUrl === undefined ? null : checkUrl(update.packageCallbackUrl),
        ],
        [
          'token duration',
          update.tokenDuration === undefined ? null : checkTokenDuration(update.tokenDuration),
        ],
        [
          'settings',
          update.licenseCallbackUrl === undefined &&
          update.packageCallbackUrl === undefined &&
          update.tokenDuration === undefined
            ? 'Nothing to change: give a callback URL or a token duration.'
            : null,
        ],
      ]);
      await call(name, 'PUT', `/drm/setting/${enc(siteId)}`, {
        license_callback_url: update.licenseCallbackUrl,
        package_callback_url: update.packageCallbackUrl,
        token_duration: update.tokenDuration,
      });
    },

    async uploadFpsCert(siteId, upload) {
      const name = 'uploadFpsCert';
      assertValid(ep(name), [
        ['site id', checkSiteId(siteId)],
        ['ask', checkNonEmpty(upload.ask, 'The application secret key (ASK)')],
        ['key password', checkKeyPassword(upload.keyPw)],
        ['certificate', checkFileExtension(upload.fpsCert.filename, ['.der', '.cer'], 'The certificate')],
        [
          'certificate',
          upload.fpsCert.data.byteLength === 0
            ? 'The certificate file is empty: attach the .der/.cer file.'
            : null,
        ],
        ['private key', checkFileExtension(upload.privateKey.filename, ['.pem'], 'The private key')],
        [
          'private key',
          upload.privateKey.data.byteLength === 0
            ? 'The private key file is empty: attach the .pem file.'
            : null,
        ],
      ]);
      const form = new FormData();
      form.append('ask', upload.ask);
      form.append('key_pw', upload.keyPw);
      form.append(
        'fps_cert',
        new Blob([upload.fpsCert.data], { type: 'application/octet-stream' }),
        upload.fpsCert.filename,
      );
      form.append(
        'private_key',
        new Blob([upload.privateKey.data], { type: 'application/x-pem-file' }),
        upload.privateKey.filename,
      );
      await call(name, 'POST', `/drm/setting/fpscert/${enc(siteId)}`, {}, form);
    },

    async getMonthlyStats(siteId, targetDate) {
      const name = 'getMonthlyStats';
      assertValid(ep(name), [
        ['site id', checkSiteId(siteId)],
        ['target date', checkDate(targetDate)],
      ]);
      const env = await call(name, 'GET', '/drm/statistics/targetDate', {
        site_id: siteId,
        target_date: targetDate,
      });
      const w = parseWith(ep(name), statsSchema, env.data);
      return {
        licenseCount: w.license_cnt,
        userCount: w.user_acc_cnt,
        deviceCount: w.device_acc_cnt,
        targetDate: w.target_date || targetDate,
      };
    },
  };
}
