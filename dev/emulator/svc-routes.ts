/**
 * The Service API (spec: service-api.md), mounted at /svc: all 19 endpoints under /api/v2.
 * Every call: JWT (HS256) check -> parameters (query + body of any placement) -> api_code check
 * -> the endpoint. Failures are HTTP 200 with the agreed error codes; 401/403 for auth.
 */
import { createHash } from 'node:crypto';
import { decodeJwt, jwtVerify } from 'jose';
import {
  API_CODE,
  LICENSE_SEARCH_CONDITIONS,
  type LicenseSearchCondition,
  MEMBER_GROUP,
  MEMBER_GROUP_SEQS,
  type MemberGroupSeq,
  REGISTRABLE_REQUEST_TYPES,
  SERVICE_CODES,
  type ServiceCode,
  type ServiceEndpointName,
} from '../../src/api/codes.js';
import {
  checkCode,
  checkDate,
  checkEmail,
  checkFileExtension,
  checkKeyPassword,
  checkSiteId,
  checkTokenDuration,
  checkUrl,
} from '../../src/api/validate.js';
import type { EmulatorBehaviours } from './behaviours.js';
import { EMU_ERROR_CODES, EmuError, HttpRefusal, invalid, SUCCESS_CODE, SUCCESS_MESSAGE } from './errors.js';
import { type Params, parseParams, type RequestContext, Router } from './http.js';
import type { EmulatorState, SiteState } from './state.js';
import type { LicenseRec, StatusRequestRec, SvcAccount } from './svc-state.js';
import {
  formatCompact,
  formatDate,
  formatUtcSpace,
  parseDateRange,
  parseTimeZone,
  parseUtcDateTime,
  UTC,
} from './time.js';
import { pageOf, parseIntParam, parsePaging } from './wm-routes.js';

export interface SvcRouteOptions {
  cidLicensePath: 'cid-License' | 'cid-drmLicense' | 'both';
  jwt: { subject: string; audience: string; issuer: string };
  /** The switchable behaviours in force (read per request). */
  behaviours?: () => EmulatorBehaviours;
}

interface Call {
  ctx: RequestContext;
  p: Params;
  acc: SvcAccount;
}

type Body = Record<string, unknown>;

const okDefault = (): Body => ({ error_code: SUCCESS_CODE, error_message: SUCCESS_MESSAGE });
const okData = (data: unknown): Body => ({ ...okDefault(), data });
/** DRM list responses also carry `count` and `_links.self.href`. */
const okList = (ctx: RequestContext, items: unknown[]): Body => ({
  ...okDefault(),
  count: items.length,
  _links: { self: { href: ctx.rawUrl } },
  data: items,
});

function required(p: Params, name: string): string {
  const v = p.get(name);
  if (v === undefined || v.trim() === '') throw invalid(`${name}: required.`);
  return v;
}

function optional(p: Params, name: string): string | undefined {
  const v = p.get(name);
  return v === undefined || v === '' ? undefined : v;
}

function oneOf<T extends string>(
  p: Params,
  name: string,
  allowed: readonly T[],
  label: string,
): T | undefined {
  const v = optional(p, name);
  if (v === undefined) return undefined;
  const f = checkCode(v, allowed, label);
  if (f) throw invalid(`${name}: ${f}`);
  return v as T;
}

/** Case-insensitive substring match. */
function contains(haystack: string, needle: string): boolean {
  return haystack.toLowerCase().includes(needle.toLowerCase());
}

/** Cursor times accept `yyyy-MM-dd HH:mm:ss`, `yyyy-MM-ddTHH:mm:ss` or `yyyyMMddHHmmss` (UTC). */
function wholeSecond(ms: number): number {
  return Math.floor(ms / 1000) * 1000;
}

function parseCursorTime(name: string, raw: string): number {
  const compact = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})$/.exec(raw);
  const ms = compact
    ? Date.UTC(
        Number(compact[1]),
        Number(compact[2]) - 1,
        Number(compact[3]),
        Number(compact[4]),
        Number(compact[5]),
        Number(compact[6]),
      )
    : parseUtcDateTime(raw.trim());
  if (ms === null || Number.isNaN(ms)) {
    throw invalid(`${name}: "${raw.slice(0, 30)}" is not a time; use yyyy-MM-dd HH:mm:ss as returned.`);
  }
  return ms;
}

export function svcRouter(state: EmulatorState, opts: SvcRouteOptions): Router {
  const router = new Router();

  /**
   * JWT check: the account comes from the (unverified) `account_id` claim, then the signature is
   * verified with that account's secret (UTF-8 bytes) and sub/aud/iss/exp are checked against the
   * emulator clock; `account_seq` must match. 401 on any failure, 403 for a forbidden account.
   */
  async function authorize(ctx: RequestContext): Promise<SvcAccount> {
    const header = ctx.headers.authorization;
    const m = header ? /^bearer\s+(\S+)\s*$/i.exec(header) : null;
    if (!m) throw new HttpRefusal(401, 'Missing or malformed Authorization header; send Bearer <JWT>.');
    const jwt = m[1] as string;
    state.rememberCredential(jwt);
    let claims: Record<string, unknown>;
    try {
      claims = decodeJwt(jwt);
    } catch {
      throw new HttpRefusal(401, 'The JWT is malformed.');
    }
    const accountId = typeof claims.account_id === 'string' ? claims.account_id : undefined;
    const acc = accountId ? state.svcAccounts.get(accountId) : undefined;
    if (!acc) throw new HttpRefusal(401, 'User information not found.');
    try {
      await jwtVerify(jwt, new TextEncoder().encode(acc.secretKey), {
        algorithms: ['HS256'],
        subject: opts.jwt.subject,
        audience: opts.jwt.audience,
        issuer: opts.jwt.issuer,
        currentDate: new Date(state.now()),
      });
    } catch {
      throw new HttpRefusal(401, 'The JWT is not valid (signature, claims or expiry).');
    }
    if (String(claims.account_seq ?? '') !== acc.accountSeq) {
      throw new HttpRefusal(401, 'User information not found.');
    }
    if (acc.forbidden) throw new HttpRefusal(403, 'No permission for the called API.');
    return acc;
  }

  function route(
    method: string,
    path: string,
    name: ServiceEndpointName,
    fn: (c: Call) => Body | Promise<Body>,
  ): void {
    router.add(method, path, async (ctx) => {
      const acc = await authorize(ctx);
      const b = opts.behaviours?.() ?? {};
      const p = await parseParams(ctx, method === 'GET' ? undefined : b.writeParamsIn);
      if (p.bodyError) throw invalid(`body: ${p.bodyError}.`);
      const apiCode = p.get('api_code');
      if (apiCode === undefined || apiCode === '') throw invalid('api_code: required.');
      if (apiCode !== API_CODE[name]) {
        throw invalid(`api_code: "${apiCode.slice(0, 20)}" is not the code of this endpoint.`);
      }
      return { status: 200, body: await fn({ ctx, p, acc }) };
    });
  }

  /** A site of the account, from a path or query parameter. */
  function ownedSite(acc: SvcAccount, siteId: string | undefined, name = 'site_id'): SiteState {
    if (siteId === undefined || siteId === '') throw invalid(`${name}: required.`);
    const f = checkSiteId(siteId);
    if (f) throw invalid(`${name}: ${f}`);
    const site = state.site(siteId);
    if (!site || !acc.siteIds.includes(siteId)) {
      throw new EmuError('siteNotFound', `Site ${siteId} not found for this account.`);
    }
    return site;
  }

  function memberSeq(p: Params): number {
    const seq = parseIntParam('member_seq', required(p, 'member_seq'), 0);
    return seq;
  }

  function groupSeq(p: Params): MemberGroupSeq | undefined {
    const raw = optional(p, 'group_seq');
    if (raw === undefined) return undefined;
    const n = parseIntParam('group_seq', raw, 0);
    const f = checkCode(String(n), MEMBER_GROUP_SEQS, 'Group');
    if (f) throw invalid(`group_seq: ${f}`);
    return n as MemberGroupSeq;
  }

  // ---------------------------------------------------------------- account management

  // 1 Get site list
  route('GET', '/api/v2/account/siteId', 'getSites', ({ acc }) =>
    okData(
      acc.siteIds.flatMap((id) => {
        const s = state.site(id);
        if (!s) return [];
        return [
          {
            site_id: s.siteId,
            service_name: s.name,
            product_list: s.products.map((pr) => ({
              service_code: pr.serviceCode,
              status_code: pr.statusCode,
            })),
          },
        ];
      }),
    ),
  );

  // 2 Request an additional site. The status values are not shown in the spec: a new request is
  // "requested" (the seed also has "approved"); site_id stays empty until the provider assigns one.
  route('POST', '/api/v2/account/siteId/approve', 'requestAdditionalSite', ({ p, acc }) => {
    const serviceName = required(p, 'service_name').trim();
    if (serviceName.length > 100) throw invalid('service_name: at most 100 characters.');
    const now = state.now();
    const seq = state.nextSiteRequestSeq();
    acc.siteRequests.push({
      seq,
      accountId: acc.accountId,
      siteId: '',
      serviceName,
      status: 'requested',
      regTimeMs: now,
      updateTimeMs: now,
    });
    return okData({ seq });
  });

  /** The status word on the wire (behaviour siteRequestStatusWords: the service's own words). */
  const siteStatusWord = (w: string) => opts.behaviours?.().siteRequestStatusWords?.[w] ?? w;

  // 3 Status of additional-site requests
  route('GET', '/api/v2/account/siteId/approve', 'listAdditionalSiteRequests', ({ p, acc }) => {
    const { fromMs, toMs } = parseDateRange(optional(p, 'from'), optional(p, 'to'));
    const reqStatus = optional(p, 'req_status');
    const searchType = oneOf(p, 'search_type', ['account_id', 'site_id'] as const, 'Search type');
    const keyword = optional(p, 'search_keyword');
    const paging = parsePaging(p);
    const all = acc.siteRequests
      .filter((r) => r.regTimeMs >= fromMs && r.regTimeMs <= toMs)
      .filter((r) => reqStatus === undefined || r.status.toLowerCase() === reqStatus.toLowerCase())
      .filter((r) => {
        if (!searchType || keyword === undefined) return true;
        return contains(searchType === 'account_id' ? r.accountId : r.siteId, keyword);
      })
      .sort((a, b) => b.regTimeMs - a.regTimeMs || b.seq - a.seq);
    return okData(
      pageOf(all, paging).map((r) => ({
        seq: r.seq,
        account_id: r.accountId,
        site_id: r.siteId,
        service_name: r.serviceName,
        status: siteStatusWord(r.status),
        update_time: formatUtcSpace(r.updateTimeMs),
        reg_time: formatUtcSpace(r.regTimeMs),
      })),
    );
  });

  // 4 List sub-members
  route('GET', '/api/v2/account/member', 'listSubMembers', ({ p, acc }) => {
    const paging = parsePaging(p);
    const all = [...acc.members].sort((a, b) => a.memberSeq - b.memberSeq);
    return okData(
      pageOf(all, paging).map((m) => ({
        group_name: MEMBER_GROUP[m.groupSeq].name,
        group_seq: m.groupSeq,
        member_seq: m.memberSeq,
        member_email: m.email,
        status_code: m.status,
        reg_date: formatDate(m.regDateMs),
      })),
    );
  });

  // 5 Create sub-member. group_seq is optional in the spec; without it the least-privileged
  // group (1014 Clients) is used.
  route('POST', '/api/v2/account/member', 'createSubMember', ({ p, acc }) => {
    const email = required(p, 'member_email').trim();
    const f = checkEmail(email);
    if (f) throw invalid(`member_email: ${f}`);
    const group = groupSeq(p) ?? 1014;
    if (acc.members.some((m) => m.email.toLowerCase() === email.toLowerCase())) {
      throw new EmuError('memberExists', `A sub-member with e-mail ${email} already exists.`);
    }
    const seq = state.nextMemberSeq();
    acc.members.push({
      memberSeq: seq,
      email,
      groupSeq: group,
      status: 'MT001',
      regDateMs: state.now(),
      passwordResets: 0,
    });
    return okData({ member_seq: seq });
  });

  function findMember(acc: SvcAccount, seq: number) {
    const m = acc.members.find((x) => x.memberSeq === seq);
    if (!m) throw new EmuError('memberNotFound', `Sub-member ${seq} not found.`);
    return m;
  }

  // 6 Reset sub-member password
  route('PUT', '/api/v2/account/member/repw', 'resetSubMemberPassword', ({ p, acc }) => {
    findMember(acc, memberSeq(p)).passwordResets += 1;
    return okDefault();
  });

  // 7 Update sub-member. With neither member_status nor group_seq there is nothing to do: refused
  // as invalidParameter so a caller learns its update was empty.
  route('PUT', '/api/v2/account/member', 'updateSubMember', ({ p, acc }) => {
    const seq = memberSeq(p);
    const status = oneOf(p, 'member_status', ['MT001', 'MT002'] as const, 'Member status');
    const group = groupSeq(p);
    if (status === undefined && group === undefined) {
      throw invalid('Send member_status (MT001 or MT002) and/or group_seq (1000, 1001 or 1014).');
    }
    const m = findMember(acc, seq);
    if (status) m.status = status;
    if (group) m.groupSeq = group;
    return okDefault();
  });

  // ---------------------------------------------------------------- service status change requests

  const renderRequest = (r: StatusRequestRec) => ({
    site_id: r.siteId,
    req_group_id: r.reqGroupId,
    reg_type: r.regType,
    reg_message: r.regMessage,
    reg_status: r.regStatus,
    reg_id: r.regId,
    reg_dt: formatUtcSpace(r.regDtMs),
    update_dt: formatUtcSpace(r.updateDtMs),
  });

  function serviceCode(p: Params): ServiceCode {
    const v = required(p, 'service_code');
    const f = checkCode(v, SERVICE_CODES, 'Service code');
    if (f) throw invalid(`service_code: ${f}`);
    return v as ServiceCode;
  }

  // 8 Latest request for site + service code; data null when there is none.
  route('GET', '/api/v2/plan/request/status/:site_id', 'getLatestStatusRequest', ({ ctx, p, acc }) => {
    const site = ownedSite(acc, ctx.params.site_id);
    const code = serviceCode(p);
    let latest: StatusRequestRec | undefined;
    for (const r of site.svc.statusRequests) {
      if (r.serviceCode !== code) continue;
      if (!latest || r.regDtMs >= latest.regDtMs) latest = r;
    }
    if (latest) return okData(renderRequest(latest));
    // How a service says "no request yet" is not shown: data null (default), an empty list, or a
    // not-found refusal (behaviour planNone).
    const b = opts.behaviours?.() ?? {};
    if (b.planNone === 'empty') return okData([]);
    if (b.planNone === 'notFound') {
      throw new EmuError(
        'requestNotFound',
        `No request found for ${site.siteId} ${code}.`,
        b.planNoneCode ?? EMU_ERROR_CODES.requestNotFound,
      );
    }
    return okData(null);
  });

  // 9 Register a request (ST001); refused while one for the same site+service is pending.
  route('POST', '/api/v2/plan/request/status/:site_id', 'registerStatusRequest', ({ ctx, p, acc }) => {
    const site = ownedSite(acc, ctx.params.site_id);
    const code = serviceCode(p);
    const type = required(p, 'request_type');
    const tf = checkCode(type, REGISTRABLE_REQUEST_TYPES, 'Request type');
    if (tf) throw invalid(`request_type: ${tf}`);
    const message = optional(p, 'request_message') ?? '';
    if (message.length > 1000) throw invalid('request_message: at most 1000 characters.');
    const pending = site.svc.statusRequests.find((r) => r.serviceCode === code && r.regStatus === 'ST001');
    if (pending) {
      throw new EmuError(
        'requestAlreadyPending',
        `Request ${pending.reqGroupId} for ${site.siteId} ${code} is still pending; cancel it first.`,
      );
    }
    const now = state.now();
    const rec: StatusRequestRec = {
      siteId: site.siteId,
      serviceCode: code,
      reqGroupId: state.nextRequestGroupId(),
      regType: type,
      regMessage: message,
      regStatus: 'ST001',
      regId: acc.accountId,
      regDtMs: now,
      updateDtMs: now,
    };
    site.svc.statusRequests.push(rec);
    return okData({
      site_id: rec.siteId,
      req_group_id: rec.reqGroupId,
      reg_type: rec.regType,
      reg_message: rec.regMessage,
      reg_id: rec.regId,
      reg_dt: formatUtcSpace(rec.regDtMs),
    });
  });

  // 10 Cancel (SM004): only ST001 -> ST002; the response keeps the request's own type code.
  route('PUT', '/api/v2/plan/request/status/:site_id', 'cancelStatusRequest', ({ ctx, p, acc }) => {
    const site = ownedSite(acc, ctx.params.site_id);
    const code = serviceCode(p);
    const type = required(p, 'request_type');
    if (type !== 'SM004') throw invalid(`request_type: "${type.slice(0, 10)}" must be SM004 to cancel.`);
    const id = required(p, 'request_group_id');
    const rec = site.svc.statusRequests.find((r) => r.reqGroupId === id && r.serviceCode === code);
    if (!rec) throw new EmuError('requestNotFound', `Request ${id} not found for ${site.siteId} ${code}.`);
    if (rec.regStatus !== 'ST001') {
      throw new EmuError(
        'requestNotPending',
        `Request ${id} is ${rec.regStatus}; only a pending request (ST001) can be cancelled.`,
      );
    }
    rec.regStatus = 'ST002';
    rec.updateDtMs = state.now();
    return okData(renderRequest(rec));
  });

  // ---------------------------------------------------------------- DRM data

  /** Licenses of the site filtered by from/to (UTC days), newest first. */
  function licensesIn(site: SiteState, p: Params): LicenseRec[] {
    const { fromMs, toMs } = parseDateRange(optional(p, 'from'), optional(p, 'to'));
    const out: LicenseRec[] = [];
    for (const l of site.svc.licenses) if (l.regTimeMs >= fromMs && l.regTimeMs <= toMs) out.push(l);
    return out.sort((a, b) => b.regTimeMs - a.regTimeMs);
  }

  const searchStatusOf = (p: Params) =>
    oneOf(p, 'search_status', ['success', 'fail'] as const, 'Search status');
  const searchConditionOf = (p: Params) =>
    oneOf<LicenseSearchCondition>(p, 'search_condition', LICENSE_SEARCH_CONDITIONS, 'Search condition');

  const licenseField: Record<LicenseSearchCondition, (l: LicenseRec) => string> = {
    cid: (l) => l.cid,
    drm_type: (l) => l.drmType,
    user_id: (l) => l.userId,
    device_id: (l) => l.deviceId,
    device_model: (l) => l.deviceModel,
  };

  // 11 License list
  route('GET', '/api/v2/drm/license', 'listLicenses', ({ ctx, p, acc }) => {
    const site = ownedSite(acc, p.get('site_id'));
    const status = searchStatusOf(p);
    const condition = searchConditionOf(p);
    const keyword = optional(p, 'search_keyword');
    const paging = parsePaging(p);
    const all = licensesIn(site, p).filter(
      (l) =>
        (status === undefined || l.status === status) &&
        (condition === undefined || keyword === undefined || contains(licenseField[condition](l), keyword)),
    );
    return okList(
      ctx,
      pageOf(all, paging).map((l) => ({
        cid: l.cid,
        status: l.status,
        error_code: l.errorCode,
        drm_type: l.drmType,
        user_id: l.userId,
        device_id: l.deviceId,
        device_model: l.deviceModel,
        license_type: l.licenseType,
        platform_name: l.platformName,
        reg_time: formatCompact(l.regTimeMs),
      })),
    );
  });

  // 12 User list (aggregated from the license records in range), most licenses first.
  route('GET', '/api/v2/drm/user', 'listUsers', ({ ctx, p, acc }) => {
    const site = ownedSite(acc, p.get('site_id'));
    const keyword = optional(p, 'search_keyword');
    const paging = parsePaging(p);
    const users = new Map<string, { lic: number; devices: Set<string>; ok: number; fail: number }>();
    for (const l of licensesIn(site, p)) {
      if (keyword !== undefined && !contains(l.userId, keyword)) continue;
      let u = users.get(l.userId);
      if (!u) {
        u = { lic: 0, devices: new Set(), ok: 0, fail: 0 };
        users.set(l.userId, u);
      }
      u.lic++;
      u.devices.add(l.deviceId);
      if (l.status === 'success') u.ok++;
      else u.fail++;
    }
    const all = [...users].sort((a, b) => b[1].lic - a[1].lic || a[0].localeCompare(b[0]));
    return okList(
      ctx,
      pageOf(all, paging).map(([id, u]) => ({
        user_id: id,
        license_cnt: u.lic,
        device_cnt: u.devices.size,
        success: u.ok,
        fail: u.fail,
      })),
    );
  });

  // 13 Device list
  route('GET', '/api/v2/drm/device', 'listDevices', ({ ctx, p, acc }) => {
    const site = ownedSite(acc, p.get('site_id'));
    const keyword = optional(p, 'search_keyword');
    const paging = parsePaging(p);
    const devices = new Map<string, { model: string; lic: number; ok: number; fail: number }>();
    for (const l of licensesIn(site, p)) {
      if (keyword !== undefined && !contains(l.deviceId, keyword)) continue;
      let d = devices.get(l.deviceId);
      if (!d) {
        d = { model: l.deviceModel, lic: 0, ok: 0, fail: 0 };
        devices.set(l.deviceId, d);
      }
      d.lic++;
      if (l.status === 'success') d.ok++;
      else d.fail++;
    }
    const all = [...devices].sort((a, b) => b[1].lic - a[1].lic || a[0].localeCompare(b[0]));
    return okList(
      ctx,
      pageOf(all, paging).map(([id, d]) => ({
        device_id: id,
        device_model: d.model,
        license_cnt: d.lic,
        success: d.ok,
        fail: d.fail,
      })),
    );
  });

  // 14 CID license list (path spelling configurable; the other spelling is 404).
  const cidPaths = opts.cidLicensePath === 'both' ? ['cid-License', 'cid-drmLicense'] : [opts.cidLicensePath];
  for (const seg of cidPaths) {
    route('GET', `/api/v2/drm/${seg}`, 'listCidLicenses', ({ ctx, p, acc }) => {
      const site = ownedSite(acc, p.get('site_id'));
      const status = searchStatusOf(p);
      const paging = parsePaging(p);
      const counts = new Map<string, number>();
      for (const l of licensesIn(site, p)) {
        if (status !== undefined && l.status !== status) continue;
        counts.set(l.cid, (counts.get(l.cid) ?? 0) + 1);
      }
      const all = [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
      return okList(
        ctx,
        pageOf(all, paging).map(([cid, n]) => ({ cid, license_cnt: n })),
      );
    });
  }

  // 15 Packaging history, oldest first, keyset-paged: with last_created_time_cid and
  // last_update_time set, only records after (created, updated) are returned. Page size: page_unit
  // (not listed for this endpoint in the spec; tolerated, default 25). from/to apply to
  // created_time (days of serviceTimeZone under that behaviour). search_condition: records only carry cid, so the other categories match nothing.
  route('GET', '/api/v2/drm/pack', 'listPackaging', ({ ctx, p, acc }) => {
    const site = ownedSite(acc, p.get('site_id'));
    // A service writing its unzoned times in a local offset (behaviour serviceTimeZone) reads
    // the from/to days in that offset too.
    const zone = opts.behaviours?.().serviceTimeZone;
    const { fromMs, toMs } = parseDateRange(
      optional(p, 'from'),
      optional(p, 'to'),
      zone ? parseTimeZone(zone) : UTC,
    );
    const condition = searchConditionOf(p);
    const keyword = optional(p, 'search_keyword');
    const lc = optional(p, 'last_created_time_cid');
    const lu = optional(p, 'last_update_time');
    if ((lc === undefined) !== (lu === undefined)) {
      throw invalid('last_created_time_cid and last_update_time: send both or neither.');
    }
    const afterCreated = lc === undefined ? undefined : parseCursorTime('last_created_time_cid', lc);
    const afterUpdated = lu === undefined ? undefined : parseCursorTime('last_update_time', lu);
    const { pageUnit } = parsePaging(p);
    const all = site.svc.packaging
      .filter((r) => r.createdMs >= fromMs && r.createdMs <= toMs)
      .filter((r) => {
        if (condition === undefined || keyword === undefined) return true;
        return condition === 'cid' && contains(r.cid, keyword);
      })
      .filter((r) => {
        if (afterCreated === undefined || afterUpdated === undefined) return true;
        // The cursor is a printed time (whole seconds), so compare at that resolution: comparing
        // milliseconds would hand back the very record the cursor came from.
        const created = wholeSecond(r.createdMs);
        return created > afterCreated || (created === afterCreated && wholeSecond(r.updateMs) > afterUpdated);
      })
      .sort(
        (a, b) =>
          wholeSecond(a.createdMs) - wholeSecond(b.createdMs) ||
          wholeSecond(a.updateMs) - wholeSecond(b.updateMs) ||
          a.cid.localeCompare(b.cid),
      );
    return okList(
      ctx,
      all.slice(0, pageUnit).map((r) => ({
        site_id: r.siteId,
        cid: r.cid,
        track: r.track,
        created_time: formatUtcSpace(r.createdMs),
        update_time: formatUtcSpace(r.updateMs),
      })),
    );
  });

  // 16 Integration info
  route('GET', '/api/v2/drm/setting/:site_id', 'getSettings', ({ ctx, acc }) => {
    const site = ownedSite(acc, ctx.params.site_id);
    const s = site.svc.settings;
    return okData({
      site_id: site.siteId,
      site_key: s.siteKey,
      access_key: s.accessKey,
      license_callback_url: s.licenseCallbackUrl,
      package_callback_url: s.packageCallbackUrl,
      kms_token: s.kmsToken,
      token_duration: s.tokenDuration,
      iv: s.iv,
    });
  });

  // 17 Update integration info (at least one field; empty string clears a callback URL).
  route('PUT', '/api/v2/drm/setting/:site_id', 'updateSettings', ({ ctx, p, acc }) => {
    const site = ownedSite(acc, ctx.params.site_id);
    const lic = p.get('license_callback_url');
    const pkg = p.get('package_callback_url');
    const dur = optional(p, 'token_duration');
    if (lic === undefined && pkg === undefined && dur === undefined) {
      throw invalid('Send license_callback_url, package_callback_url and/or token_duration.');
    }
    for (const [name, v] of [
      ['license_callback_url', lic],
      ['package_callback_url', pkg],
    ] as const) {
      if (v === undefined) continue;
      const f = checkUrl(v);
      if (f) throw invalid(`${name}: ${f}`);
    }
    let duration: number | undefined;
    if (dur !== undefined) {
      duration = parseIntParam('token_duration', dur, 0);
      const f = checkTokenDuration(duration);
      if (f) throw invalid(`token_duration: ${f}`);
    }
    const s = site.svc.settings;
    if (lic !== undefined) s.licenseCallbackUrl = lic;
    if (pkg !== undefined) s.packageCallbackUrl = pkg;
    if (duration !== undefined) s.tokenDuration = duration;
    return okDefault();
  });

  // 18 FairPlay certificate upload (multipart). Only names and sizes are recorded.
  route('POST', '/api/v2/drm/setting/fpscert/:site_id', 'uploadFpsCert', ({ ctx, p, acc }) => {
    const site = ownedSite(acc, ctx.params.site_id);
    const ask = required(p, 'ask');
    const pw = p.get('key_pw');
    if (pw === undefined) throw invalid('key_pw: required.');
    const pwf = checkKeyPassword(pw);
    if (pwf) throw invalid(`key_pw: ${pwf}`);
    const cert = p.file('fps_cert');
    const key = p.file('private_key');
    if (!cert)
      throw new EmuError('certificateInvalid', 'fps_cert: the certificate file (.der or .cer) is missing.');
    if (!key) throw new EmuError('certificateInvalid', 'private_key: the key file (.pem) is missing.');
    const cf = checkFileExtension(cert.filename, ['.der', '.cer'], 'The certificate');
    if (cf) throw new EmuError('certificateInvalid', `fps_cert: ${cf}`);
    const kf = checkFileExtension(key.filename, ['.pem'], 'The private key');
    if (kf) throw new EmuError('certificateInvalid', `private_key: ${kf}`);
    if (cert.size === 0) throw new EmuError('certificateInvalid', 'fps_cert: the file is empty.');
    if (key.size === 0) throw new EmuError('certificateInvalid', 'private_key: the file is empty.');
    site.svc.certUploads.push({
      accountId: acc.accountId,
      atMs: state.now(),
      fpsCertFilename: cert.filename,
      fpsCertBytes: cert.size,
      privateKeyFilename: key.filename,
      privateKeyBytes: key.size,
      // Digests only, so tests can check what arrived without the emulator keeping a secret.
      askSha256: createHash('sha256').update(ask).digest('hex'),
      keyPwSha256: createHash('sha256').update(pw).digest('hex'),
    });
    return okDefault();
  });

  // 19 Monthly statistics of the month containing target_date (zeros for a month without data).
  // target_date is documented as an integer: it is echoed as yyyyMMdd.
  route('GET', '/api/v2/drm/statistics/targetDate', 'getMonthlyStats', ({ p, acc }) => {
    const site = ownedSite(acc, p.get('site_id'));
    const target = required(p, 'target_date');
    const f = checkDate(target);
    if (f) throw invalid(`target_date: ${f}`);
    const m = site.svc.monthly.get(target.slice(0, 7));
    return okData({
      license_cnt: m?.licenseCnt ?? 0,
      user_acc_cnt: m?.userAccCnt ?? 0,
      device_acc_cnt: m?.deviceAccCnt ?? 0,
      target_date: Number(target.replaceAll('-', '')),
    });
  });

  return router;
}
