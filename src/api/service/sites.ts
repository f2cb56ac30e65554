/**
 * The Service API's sites and plan requests: the account's sites and their products (the
 * credentials check too), additional-site requests, and the service status change requests of a
 * site's plan (the latest one, a new one, a cancel).
 *
 * Endpoint 8: when the site has no request yet the service may answer with null/empty data or a
 * not-found refusal (the requestNotFound code of SERVICE_ERROR_CODES); the client returns null.
 * The spec lists this endpoint's response as "service status change request fields" without
 * saying `data` (every other endpoint says `data`): the fields are read from `data` and, when
 * `data` is empty but the envelope itself carries `req_group_id`, from the envelope's top level.
 */
import { z } from 'zod';
import {
  PRODUCT_STATUS,
  type ProductStatusCode,
  REGISTRABLE_REQUEST_TYPES,
  REQUEST_STATUS,
  REQUEST_TYPE,
  type RequestStatusCode,
  SERVICE_CODES,
} from '../codes.js';
import { type Envelope, listOf, parseWith } from '../envelope.js';
import { isServiceCondition } from '../error-codes.js';
import { codeOf, intLike, reqText, siteIdSchema, text } from '../fields.js';
import { parseServiceTime } from '../time.js';
import type { AdditionalSiteRequest, ServiceClient, StatusRequest } from '../types.js';
import { assertValid, checkCode, checkNonEmpty, checkPageQuery, checkSiteId } from '../validate.js';
import type { ServiceCall } from './call.js';
import { enc, ep, svcPage, UTC } from './parse.js';

const REQUEST_TYPE_CODES = Object.keys(REQUEST_TYPE);

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

const seqSchema = z.object({ seq: intLike });

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

function isEmptyData(d: unknown): boolean {
  return (
    d === null ||
    d === undefined ||
    d === '' ||
    (Array.isArray(d) && d.length === 0) ||
    (typeof d === 'object' && !Array.isArray(d) && Object.keys(d).length === 0)
  );
}

/** The latest request of endpoint 8's answer, or null for "none yet" (see the file comment). */
function latestRequestOf(env: Envelope): StatusRequest | null {
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
  return toStatusRequest(parseWith(ep('getLatestStatusRequest'), statusRequestSchema, d));
}

export type SiteEndpoints = Pick<
  ServiceClient,
  | 'verify'
  | 'getSites'
  | 'requestAdditionalSite'
  | 'listAdditionalSiteRequests'
  | 'getLatestStatusRequest'
  | 'registerStatusRequest'
  | 'cancelStatusRequest'
>;

/**
 * The site and plan request endpoints. `unzonedTz`: the offset of the additional-site times the
 * spec leaves unzoned (SERVICE_TIME_ZONE).
 */
export function siteEndpoints(call: ServiceCall, unzonedTz: string): SiteEndpoints {
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
        ...checkPageQuery(query),
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
      return latestRequestOf(env);
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
  };
}
