/**
 * The Service API's DRM data of a site: the license records, the users and devices that asked
 * for them, the license counts per content (endpoint 14), the packaging history and the monthly
 * statistics. Read-only endpoints; their times are read in the zones the settings give
 * (SERVICE_LICENSE_TIME_ZONE for the license list, SERVICE_TIME_ZONE for packaging).
 *
 * Endpoint 14: the path is `cid-License` in the table and `cid-drmLicense` in one sample. The
 * preferred spelling is tried first; on HTTP 404 the other is tried, and the one that worked is
 * remembered per base URL (shared by every client of the factory).
 */
import { z } from 'zod';
import { type Envelope, listOf, parseWith } from '../envelope.js';
import { ServiceError, TransportError } from '../errors.js';
import { codeOf, reqText, text } from '../fields.js';
import type { QueryParams } from '../http.js';
import { coveringDaysIn, parseServiceTime } from '../time.js';
import type { PageQuery, ServiceClient } from '../types.js';
import { assertValid, checkDate, checkPageQuery, checkSiteId } from '../validate.js';
import type { ServiceCall } from './call.js';
import { countOrZero, ep, searchChecks, svcPage } from './parse.js';

export type CidLicensePath = 'cid-License' | 'cid-drmLicense';

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

const statsSchema = z.object({
  license_cnt: countOrZero,
  user_acc_cnt: countOrZero,
  device_acc_cnt: countOrZero,
  // Absent or empty: the date asked for (getMonthlyStats).
  target_date: text,
});

export interface DrmDataDeps {
  /** The base URL of the credentials: the key of the endpoint-14 memo. */
  baseUrl: string;
  /** Offset of the license list's reg_time (SERVICE_LICENSE_TIME_ZONE). */
  licenseTz: string;
  /** Offset of the packaging times and days (SERVICE_TIME_ZONE). */
  unzonedTz: string;
  /** Spelling of endpoint 14 tried first. */
  preferredCid: CidLicensePath;
  /** baseUrl -> spelling of endpoint 14 that worked (shared across clients). */
  cidMemo: Map<string, CidLicensePath>;
}

/** Endpoint 14 under the spelling that works for this base URL (see the file comment). */
async function callCidLicenses(call: ServiceCall, deps: DrmDataDeps, params: QueryParams): Promise<Envelope> {
  const name = 'listCidLicenses';
  const memoKey = deps.baseUrl.replace(/\/+$/, '');
  const first = deps.cidMemo.get(memoKey) ?? deps.preferredCid;
  const other: CidLicensePath = first === 'cid-License' ? 'cid-drmLicense' : 'cid-License';
  try {
    const env = await call(name, 'GET', `/drm/${first}`, params);
    deps.cidMemo.set(memoKey, first);
    return env;
  } catch (e) {
    const status =
      e instanceof TransportError ? e.status : e instanceof ServiceError ? e.httpStatus : undefined;
    if (status !== 404) throw e;
    const env = await call(name, 'GET', `/drm/${other}`, params);
    deps.cidMemo.set(memoKey, other);
    return env;
  }
}

/** The query of a paged, dated list of a site's DRM data (licenses, users, devices, counts). */
function pagedParams(siteId: string, q: PageQuery & { from?: string; to?: string }): QueryParams {
  return { site_id: siteId, from: q.from, to: q.to, page_unit: q.pageUnit, page_index: q.pageIndex };
}

export type DrmDataEndpoints = Pick<
  ServiceClient,
  'listLicenses' | 'listUsers' | 'listDevices' | 'listCidLicenses' | 'listPackaging' | 'getMonthlyStats'
>;

export function drmDataEndpoints(call: ServiceCall, deps: DrmDataDeps): DrmDataEndpoints {
  const { licenseTz, unzonedTz } = deps;
  return {
    async listLicenses(siteId, query = {}) {
      const name = 'listLicenses';
      assertValid(ep(name), [
        ['site id', checkSiteId(siteId)],
        ...checkPageQuery(query),
        ...searchChecks({ searchCondition: undefined, ...query }),
      ]);
      const env = await call(name, 'GET', '/drm/license', {
        ...pagedParams(siteId, query),
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
      assertValid(ep(name), [['site id', checkSiteId(siteId)], ...checkPageQuery(query)]);
      const env = await call(name, 'GET', '/drm/user', {
        ...pagedParams(siteId, query),
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
      assertValid(ep(name), [['site id', checkSiteId(siteId)], ...checkPageQuery(query)]);
      const env = await call(name, 'GET', '/drm/device', {
        ...pagedParams(siteId, query),
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
        ...checkPageQuery(query),
        ...searchChecks({ searchStatus: query.searchStatus }),
      ]);
      const env = await callCidLicenses(call, deps, {
        ...pagedParams(siteId, query),
        search_status: query.searchStatus,
      });
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
        ...checkPageQuery(query),
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
