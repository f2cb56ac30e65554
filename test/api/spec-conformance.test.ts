// Spec conformance of the two API clients, checked against the spec text rather than against the
// emulator (a misreading shared by both sides would pass the integration tests). A loopback fake
// records each of the 27 calls; every test states the wire shape the spec documents: method, path,
// every parameter name and where it goes, the auth header, and the response field names mapped.
import { decodeProtectedHeader, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApi } from '../../src/api/index.js';
import { ok, type Seen, startServer, type TestServer } from './helpers.js';

let server: TestServer;
let api: ReturnType<typeof createApi>;
const WM_CREDS = { accountId: 'acct-1', accessKey: 'k3y:with:colons', baseUrl: '' };
const SVC_CREDS = { accountId: 'svc-acct', accountSeq: '10024', secretKey: 'svc-secret', baseUrl: '' };
const TOKEN = 'Bearer tok-ABC.def';

/** Canned spec-shaped answers, by "METHOD path-without-query". */
function answer(s: Seen): unknown {
  const path = new URL(s.url, 'http://x').pathname;
  const m = `${s.method} ${path}`;
  const tz = { time_zone: '+09:00' };
  const job = {
    job_id: 7,
    content_id: 'movie-1',
    job_status: 'DM001',
    reg_time: '2026-01-02T09:00:00',
    update_time: '2026-01-02T10:00:00',
  };
  const rcp = { dwm_id: 11, name: 'Alice', description: 'd', reg_time: '2026-01-02T09:00:00' };
  const req = {
    site_id: 'AB12',
    req_group_id: 'RG1',
    reg_type: 'SM003',
    reg_message: 'hi',
    reg_status: 'ST002',
    reg_id: 'svc-acct',
    reg_dt: '2026-01-02 00:00:00',
    update_dt: '2026-01-03 00:00:00',
  };
  /** DRM list responses: data plus `count` and `_links.self.href` beside it. */
  const list = (data: unknown[]): [unknown, Record<string, unknown>] => [
    data,
    { count: data.length, _links: { self: { href: s.url } } },
  ];
  const table: Record<string, () => [unknown, Record<string, unknown>?]> = {
    'GET /wm/api/token/AB12': () => [{ token: TOKEN }],
    'GET /wm/api/job/AB12': () => [[job], { ...tz, total_count: 1 }],
    'GET /wm/api/job/AB12/7': () => [job, tz],
    'GET /wm/api/job/AB12/7/recipient': () => [
      [
        {
          dwm_id: 11,
          recipient: 'Alice',
          description: 'd',
          task_status: 'TK005',
          cli_error_code: 'E-417',
          reg_time: '2026-01-02T09:00:00',
          update_time: '2026-01-02T09:30:00',
        },
      ],
      { ...tz, total_count: 1 },
    ],
    'GET /wm/api/recipient/AB12': () => [[rcp], { ...tz, total_count: 1 }],
    'GET /wm/api/recipient/AB12/11': () => [{ ...rcp, update_time: '2026-01-03T09:00:00' }, tz],
    'POST /wm/api/recipient/AB12': () => [[rcp], tz],
    'PUT /wm/api/recipient/AB12/11': () => [{ dwm_id: 11, update_time: '2026-01-03T09:00:00' }, tz],
    'GET /svc/api/v2/account/siteId': () => [
      [
        {
          site_id: 'AB12',
          service_name: 'Site',
          product_list: [{ service_code: 'PD001', status_code: 'SE001' }],
        },
      ],
    ],
    'POST /svc/api/v2/account/siteId/approve': () => [{ seq: 71 }],
    'GET /svc/api/v2/account/siteId/approve': () => [
      [
        {
          seq: 71,
          account_id: 'svc-acct',
          site_id: 'AB12',
          service_name: 'Site',
          status: 'requested',
          update_time: '2026-01-02 00:00:00',
          reg_time: '2026-01-01 00:00:00',
        },
      ],
    ],
    'GET /svc/api/v2/account/member': () => [
      [
        {
          group_name: 'TS',
          group_seq: 1001,
          member_seq: 501,
          member_email: 'm@example.com',
          status_code: 'MT002',
          reg_date: '2026-01-01',
        },
      ],
    ],
    'POST /svc/api/v2/account/member': () => [{ member_seq: 502 }],
    'PUT /svc/api/v2/account/member/repw': () => [undefined],
    'PUT /svc/api/v2/account/member': () => [undefined],
    'GET /svc/api/v2/plan/request/status/AB12': () => [{ ...req, reg_status: 'ST001' }],
    'POST /svc/api/v2/plan/request/status/AB12': () => [
      {
        site_id: 'AB12',
        req_group_id: 'RG2',
        reg_type: 'SM003',
        reg_message: 'hi',
        reg_id: 'x',
        reg_dt: '2026-01-02 00:00:00',
      },
    ],
    'PUT /svc/api/v2/plan/request/status/AB12': () => [req],
    'GET /svc/api/v2/drm/license': () =>
      list([
        {
          cid: 'c1',
          status: 'fail',
          error_code: '4001',
          drm_type: 'Widevine',
          user_id: 'u1',
          device_id: 'd1',
          device_model: 'Pixel',
          license_type: 'token',
          platform_name: 'Android',
          reg_time: '20260102030405',
        },
      ]),
    'GET /svc/api/v2/drm/user': () =>
      list([{ user_id: 'u1', license_cnt: 3, device_cnt: 2, success: 2, fail: 1 }]),
    'GET /svc/api/v2/drm/device': () =>
      list([{ device_id: 'd1', device_model: 'Pixel', license_cnt: 3, success: 3, fail: 0 }]),
    'GET /svc/api/v2/drm/cid-License': () => list([{ cid: 'c1', license_cnt: 9 }]),
    'GET /svc/api/v2/drm/pack': () =>
      list([
        {
          site_id: 'AB12',
          cid: 'c1',
          track: 'HD',
          created_time: '2026-01-01 00:00:00',
          update_time: '2026-01-02 00:00:00',
        },
      ]),
    'GET /svc/api/v2/drm/setting/AB12': () => [
      {
        site_id: 'AB12',
        site_key: 'k',
        access_key: 'a',
        license_callback_url: '',
        package_callback_url: '',
        kms_token: 't',
        token_duration: 600,
        iv: 'iv',
      },
    ],
    'PUT /svc/api/v2/drm/setting/AB12': () => [undefined],
    'POST /svc/api/v2/drm/setting/fpscert/AB12': () => [undefined],
    'GET /svc/api/v2/drm/statistics/targetDate': () => [
      { license_cnt: 10, user_acc_cnt: 4, device_acc_cnt: 5, target_date: 20261001 },
    ],
  };
  const f = table[m];
  if (!f) throw new Error(`unexpected call ${m}`);
  return f();
}

beforeAll(async () => {
  server = await startServer((s, res) => {
    const [data, extra] = answer(s) as [unknown, Record<string, unknown> | undefined];
    ok(res, data, extra ?? {});
  });
  api = createApi();
  WM_CREDS.baseUrl = `${server.url}/wm`;
  SVC_CREDS.baseUrl = `${server.url}/svc`;
});
afterAll(async () => {
  await api.close();
  await server.close();
});

const wm = () => api.watermarking(WM_CREDS);
const svc = () => api.service(SVC_CREDS);

/** The one call recorded by `fn`, with its query as a list of [name, value] pairs in order. */
async function record(fn: () => Promise<unknown>) {
  const before = server.seen.length;
  const result = await fn();
  const calls = server.seen.slice(before).filter((s) => !s.url.includes('/api/token/'));
  expect(calls).toHaveLength(1);
  const s = calls[0] as Seen;
  const u = new URL(s.url, 'http://x');
  return {
    result,
    seen: s,
    method: s.method,
    path: u.pathname,
    query: [...u.searchParams],
    rawQuery: u.search,
    body: s.body.length > 0 ? JSON.parse(s.body.toString()) : undefined,
  };
}

describe('watermarking API: the eight endpoints as the spec writes them', () => {
  it('4.1 token: GET /api/token/{siteId}, Basic base64(accountId:accessKey), no query, no body', async () => {
    api.tokens.clear();
    const before = server.seen.length;
    await wm().verify('AB12');
    const s = server.seen[before] as Seen;
    expect(s.method).toBe('GET');
    expect(s.url).toBe('/wm/api/token/AB12');
    expect(s.body.length).toBe(0);
    const auth = String(s.headers.authorization);
    expect(auth.startsWith('Basic ')).toBe(true);
    // The access key may contain ':'; only the first ':' separates the account id.
    expect(Buffer.from(auth.slice(6), 'base64').toString()).toBe('acct-1:k3y:with:colons');
  });

  it('4.2 jobs: every query name, job_status repeated, + of time_zone encoded; data.token sent as-is', async () => {
    const r = await record(() =>
      wm().searchJobs('AB12', {
        contentId: 'movie-1',
        statuses: ['DM000', 'DM001'],
        from: '2026-01-01',
        to: '2026-01-31',
        pageUnit: 1000,
        pageIndex: 2,
        timeZone: '+09:00',
      }),
    );
    expect(r.method).toBe('GET');
    expect(r.path).toBe('/wm/api/job/AB12');
    expect(r.query).toEqual([
      ['content_id', 'movie-1'],
      ['job_status', 'DM000'],
      ['job_status', 'DM001'],
      ['from', '2026-01-01'],
      ['to', '2026-01-31'],
      ['page_unit', '1000'],
      ['page_index', '2'],
      ['time_zone', '+09:00'],
    ]);
    expect(r.rawQuery).toContain('time_zone=%2B09%3A00');
    expect(r.seen.headers.authorization).toBe(TOKEN);
    const page = r.result as Awaited<ReturnType<ReturnType<typeof wm>['searchJobs']>>;
    expect(page).toMatchObject({ totalCount: 1, timeZone: '+09:00', pageIndex: 2, pageUnit: 1000 });
    expect(page.items[0]).toMatchObject({ jobId: 7, contentId: 'movie-1', status: 'DM001' });
    // 09:00 at +09:00 is 00:00 UTC.
    expect(page.items[0]?.regTime.epochMs).toBe(Date.UTC(2026, 0, 2, 0, 0, 0));
  });

  it('4.2 without parameters sends none (the service applies 25 / 1 / +00:00)', async () => {
    const r = await record(() => wm().searchJobs('AB12'));
    expect(r.query).toEqual([]);
  });

  it('4.3 job detail and 4.4 tasks: paths, time_zone only; tasks read `recipient` and cli_error_code', async () => {
    const d = await record(() => wm().getJob('AB12', 7, { timeZone: '-05:30' }));
    expect([d.method, d.path, d.query]).toEqual(['GET', '/wm/api/job/AB12/7', [['time_zone', '-05:30']]]);
    const t = await record(() => wm().getJobTasks('AB12', 7));
    expect([t.method, t.path, t.query]).toEqual(['GET', '/wm/api/job/AB12/7/recipient', []]);
    const page = t.result as Awaited<ReturnType<ReturnType<typeof wm>['getJobTasks']>>;
    expect(page.items[0]).toMatchObject({
      dwmId: 11,
      recipient: 'Alice',
      status: 'TK005',
      cliErrorCode: 'E-417',
      failed: true,
    });
    expect(page.totalCount).toBe(1);
  });

  it('4.5 search: search_keyword repeated, page_unit/page_index/time_zone; 4.6 detail has update_time', async () => {
    const r = await record(() =>
      wm().searchRecipients('AB12', {
        keywords: ['al', 'bo'],
        pageUnit: 25,
        pageIndex: 1,
        timeZone: '+00:00',
      }),
    );
    expect([r.method, r.path]).toEqual(['GET', '/wm/api/recipient/AB12']);
    expect(r.query).toEqual([
      ['search_keyword', 'al'],
      ['search_keyword', 'bo'],
      ['page_unit', '25'],
      ['page_index', '1'],
      ['time_zone', '+00:00'],
    ]);
    const d = await record(() => wm().getRecipient('AB12', 11));
    expect([d.method, d.path, d.query]).toEqual(['GET', '/wm/api/recipient/AB12/11', []]);
    expect(d.result).toMatchObject({ dwmId: 11, name: 'Alice', updateTime: { raw: '2026-01-03T09:00:00' } });
  });

  it('4.7 register: POST JSON {recipients:[{name, description?}]}; 4.8 modify: PUT JSON with only the given fields', async () => {
    const r = await record(() =>
      wm().registerRecipients('AB12', [{ name: 'Alice', description: 'd' }, { name: 'Bob' }]),
    );
    expect([r.method, r.path, r.query]).toEqual(['POST', '/wm/api/recipient/AB12', []]);
    expect(r.seen.headers['content-type']).toBe('application/json;charset=UTF-8');
    expect(r.body).toEqual({ recipients: [{ name: 'Alice', description: 'd' }, { name: 'Bob' }] });
    const m = await record(() => wm().modifyRecipient('AB12', 11, { description: '' }));
    expect([m.method, m.path, m.query]).toEqual(['PUT', '/wm/api/recipient/AB12/11', []]);
    expect(m.body).toEqual({ description: '' });
    expect(m.result).toMatchObject({ dwmId: 11, updateTime: { raw: '2026-01-03T09:00:00' } });
  });
});

describe('Service API: the nineteen endpoints as the spec writes them', () => {
  it('every call carries Bearer <HS256 JWT> with sub/aud/iss/account_id/account_seq/exp', async () => {
    const r = await record(() => svc().getSites());
    const auth = String(r.seen.headers.authorization);
    expect(auth).toMatch(/^Bearer [\w-]+\.[\w-]+\.[\w-]+$/);
    const jwt = auth.slice('Bearer '.length);
    expect(decodeProtectedHeader(jwt).alg).toBe('HS256');
    const { payload } = await jwtVerify(jwt, new TextEncoder().encode('svc-secret'), {
      algorithms: ['HS256'],
      subject: 'ServiceAPI',
      audience: 'AUDIENCE',
      issuer: 'Service',
    });
    expect(payload).toMatchObject({ account_id: 'svc-acct', account_seq: '10024' });
    expect(typeof payload.exp).toBe('number');
  });

  const cases: Array<{
    n: number;
    call: () => Promise<unknown>;
    method: string;
    path: string;
    query: Array<[string, string]>;
    body?: unknown;
    check?: (result: unknown) => void;
  }> = [
    {
      n: 1,
      call: () => svc().getSites(),
      method: 'GET',
      path: '/svc/api/v2/account/siteId',
      query: [['api_code', 'UC011004100']],
      check: (r) =>
        expect(r).toEqual([
          { siteId: 'AB12', name: 'Site', products: [{ serviceCode: 'PD001', status: 'SE001' }] },
        ]),
    },
    {
      n: 2,
      call: () => svc().requestAdditionalSite('New site'),
      method: 'POST',
      path: '/svc/api/v2/account/siteId/approve',
      query: [['api_code', 'UA010310200']],
      body: { service_name: 'New site' },
      check: (r) => expect(r).toEqual({ seq: 71 }),
    },
    {
      n: 3,
      call: () =>
        svc().listAdditionalSiteRequests({
          from: '2026-01-01',
          to: '2026-01-31',
          reqStatus: 'requested',
          searchType: 'site_id',
          searchKeyword: 'AB',
          pageUnit: 10,
          pageIndex: 2,
        }),
      method: 'GET',
      path: '/svc/api/v2/account/siteId/approve',
      query: [
        ['api_code', 'UA010310100'],
        ['from', '2026-01-01'],
        ['to', '2026-01-31'],
        ['req_status', 'requested'],
        ['search_type', 'site_id'],
        ['search_keyword', 'AB'],
        ['page_unit', '10'],
        ['page_index', '2'],
      ],
      check: (r) =>
        expect((r as { items: unknown[] }).items[0]).toMatchObject({
          seq: 71,
          accountId: 'svc-acct',
          siteId: 'AB12',
          serviceName: 'Site',
          status: 'requested',
        }),
    },
    {
      n: 4,
      call: () => svc().listSubMembers({ pageUnit: 5, pageIndex: 1 }),
      method: 'GET',
      path: '/svc/api/v2/account/member',
      query: [
        ['api_code', 'UA010700200'],
        ['page_unit', '5'],
        ['page_index', '1'],
      ],
      check: (r) =>
        expect((r as { items: unknown[] }).items[0]).toEqual({
          groupName: 'TS',
          groupSeq: 1001,
          memberSeq: 501,
          email: 'm@example.com',
          status: 'MT002',
          regDate: '2026-01-01',
        }),
    },
    {
      n: 5,
      call: () => svc().createSubMember('new@example.com', 1001),
      method: 'POST',
      path: '/svc/api/v2/account/member',
      query: [['api_code', 'UA010700200']],
      body: { member_email: 'new@example.com', group_seq: 1001 },
      check: (r) => expect(r).toEqual({ memberSeq: 502 }),
    },
    {
      n: 6,
      call: () => svc().resetSubMemberPassword(501),
      method: 'PUT',
      path: '/svc/api/v2/account/member/repw',
      query: [['api_code', 'UA010700200']],
      body: { member_seq: 501 },
    },
    {
      n: 7,
      call: () => svc().updateSubMember({ memberSeq: 501, status: 'MT001', groupSeq: 1000 }),
      method: 'PUT',
      path: '/svc/api/v2/account/member',
      query: [['api_code', 'UA010700200']],
      body: { member_seq: 501, member_status: 'MT001', group_seq: 1000 },
    },
    {
      n: 8,
      call: () => svc().getLatestStatusRequest('AB12', 'PD001'),
      method: 'GET',
      path: '/svc/api/v2/plan/request/status/AB12',
      query: [
        ['api_code', 'UA010301100'],
        ['service_code', 'PD001'],
      ],
      check: (r) => expect(r).toMatchObject({ requestId: 'RG1', status: 'ST001', type: 'SM003' }),
    },
    {
      n: 9,
      call: () =>
        svc().registerStatusRequest('AB12', { serviceCode: 'PD002', requestType: 'SM003', message: 'hi' }),
      method: 'POST',
      path: '/svc/api/v2/plan/request/status/AB12',
      query: [['api_code', 'UA010301200']],
      body: { service_code: 'PD002', request_type: 'SM003', request_message: 'hi' },
      check: (r) => expect(r).toMatchObject({ requestId: 'RG2', type: 'SM003', registeredBy: 'x' }),
    },
    {
      n: 10,
      call: () => svc().cancelStatusRequest('AB12', { serviceCode: 'PD002', requestId: 'RG1' }),
      method: 'PUT',
      path: '/svc/api/v2/plan/request/status/AB12',
      query: [['api_code', 'UA010301200']],
      body: { service_code: 'PD002', request_type: 'SM004', request_group_id: 'RG1' },
      check: (r) => expect(r).toMatchObject({ requestId: 'RG1', status: 'ST002', type: 'SM003' }),
    },
    {
      n: 11,
      call: () =>
        svc().listLicenses('AB12', {
          from: '2026-01-01',
          to: '2026-01-02',
          pageUnit: 1000,
          pageIndex: 3,
          searchStatus: 'fail',
          searchCondition: 'user_id',
          searchKeyword: 'u1',
        }),
      method: 'GET',
      path: '/svc/api/v2/drm/license',
      query: [
        ['api_code', 'UA003001100'],
        ['site_id', 'AB12'],
        ['from', '2026-01-01'],
        ['to', '2026-01-02'],
        ['page_unit', '1000'],
        ['page_index', '3'],
        ['search_status', 'fail'],
        ['search_condition', 'user_id'],
        ['search_keyword', 'u1'],
      ],
      check: (r) => {
        const p = r as { count: number; items: Array<Record<string, unknown>> };
        expect(p.count).toBe(1);
        expect(p.items[0]).toMatchObject({
          cid: 'c1',
          status: 'fail',
          errorCode: '4001',
          drmType: 'Widevine',
        });
        expect(p.items[0]?.regTime).toEqual({
          raw: '20260102030405',
          epochMs: Date.UTC(2026, 0, 2, 3, 4, 5),
        });
      },
    },
    {
      n: 12,
      call: () => svc().listUsers('AB12', { searchKeyword: 'u1' }),
      method: 'GET',
      path: '/svc/api/v2/drm/user',
      query: [
        ['api_code', 'UA003001100'],
        ['site_id', 'AB12'],
        ['search_keyword', 'u1'],
      ],
      check: (r) =>
        expect((r as { items: unknown[] }).items[0]).toEqual({
          userId: 'u1',
          licenseCount: 3,
          deviceCount: 2,
          success: 2,
          fail: 1,
        }),
    },
    {
      n: 13,
      call: () => svc().listDevices('AB12', { searchKeyword: 'd1' }),
      method: 'GET',
      path: '/svc/api/v2/drm/device',
      query: [
        ['api_code', 'UA003001100'],
        ['site_id', 'AB12'],
        ['search_keyword', 'd1'],
      ],
      check: (r) =>
        expect((r as { items: unknown[] }).items[0]).toEqual({
          deviceId: 'd1',
          deviceModel: 'Pixel',
          licenseCount: 3,
          success: 3,
          fail: 0,
        }),
    },
    {
      n: 14,
      call: () => svc().listCidLicenses('AB12', { searchStatus: 'success' }),
      method: 'GET',
      path: '/svc/api/v2/drm/cid-License',
      query: [
        ['api_code', 'UA003001100'],
        ['site_id', 'AB12'],
        ['search_status', 'success'],
      ],
      check: (r) => expect((r as { items: unknown[] }).items).toEqual([{ cid: 'c1', licenseCount: 9 }]),
    },
    {
      n: 15,
      call: () =>
        svc().listPackaging('AB12', {
          from: '2026-01-01',
          to: '2026-01-31',
          searchCondition: 'cid',
          searchKeyword: 'c',
          lastCreatedTimeCid: '2026-01-01 00:00:00',
          lastUpdateTime: '2026-01-02 00:00:00',
        }),
      method: 'GET',
      path: '/svc/api/v2/drm/pack',
      query: [
        ['api_code', 'UA003001100'],
        ['site_id', 'AB12'],
        ['from', '2026-01-01'],
        ['to', '2026-01-31'],
        ['search_condition', 'cid'],
        ['search_keyword', 'c'],
        ['last_created_time_cid', '2026-01-01 00:00:00'],
        ['last_update_time', '2026-01-02 00:00:00'],
      ],
      check: (r) =>
        expect((r as { items: unknown[] }).items[0]).toMatchObject({
          siteId: 'AB12',
          cid: 'c1',
          track: 'HD',
        }),
    },
    {
      n: 16,
      call: () => svc().getSettings('AB12'),
      method: 'GET',
      path: '/svc/api/v2/drm/setting/AB12',
      query: [['api_code', 'UA003004100']],
      check: (r) =>
        expect(r).toEqual({
          siteId: 'AB12',
          siteKey: 'k',
          accessKey: 'a',
          licenseCallbackUrl: '',
          packageCallbackUrl: '',
          kmsToken: 't',
          tokenDuration: 600,
          iv: 'iv',
        }),
    },
    {
      n: 17,
      call: () =>
        svc().updateSettings('AB12', {
          licenseCallbackUrl: 'https://cb.example/l',
          packageCallbackUrl: '',
          tokenDuration: 3600,
        }),
      method: 'PUT',
      path: '/svc/api/v2/drm/setting/AB12',
      query: [['api_code', 'UA003004100']],
      body: { license_callback_url: 'https://cb.example/l', package_callback_url: '', token_duration: 3600 },
    },
    {
      n: 19,
      call: () => svc().getMonthlyStats('AB12', '2026-10-01'),
      method: 'GET',
      path: '/svc/api/v2/drm/statistics/targetDate',
      query: [
        ['api_code', 'UA003003100'],
        ['site_id', 'AB12'],
        ['target_date', '2026-10-01'],
      ],
      // target_date is documented as an integer in the response.
      check: (r) =>
        expect(r).toEqual({ licenseCount: 10, userCount: 4, deviceCount: 5, targetDate: '20261001' }),
    },
  ];

  for (const c of cases) {
    it(`endpoint ${c.n}: ${c.method} ${c.path} with the spec's parameter names and placement`, async () => {
      const r = await record(c.call);
      expect(r.method).toBe(c.method);
      expect(r.path).toBe(c.path);
      expect(r.query).toEqual(c.query);
      expect(r.body).toEqual(c.body);
      c.check?.(r.result);
    });
  }

  it('endpoint 18: multipart ask / key_pw / fps_cert (.der) / private_key (.pem), api_code in the query', async () => {
    const r = await (async () => {
      const before = server.seen.length;
      await svc().uploadFpsCert('AB12', {
        ask: 'ask-value',
        keyPw: 'pw',
        fpsCert: { filename: 'fps.der', data: new Uint8Array([1, 2, 3]) },
        privateKey: { filename: 'key.pem', data: new Uint8Array([4, 5]) },
      });
      return server.seen[before] as Seen;
    })();
    const u = new URL(r.url, 'http://x');
    expect([r.method, u.pathname, [...u.searchParams]]).toEqual([
      'POST',
      '/svc/api/v2/drm/setting/fpscert/AB12',
      [['api_code', 'UA003004200']],
    ]);
    expect(String(r.headers['content-type'])).toMatch(/^multipart\/form-data; boundary=/);
    const form = await new Request('http://x/', {
      method: 'POST',
      headers: { 'content-type': String(r.headers['content-type']) },
      body: r.body,
    }).formData();
    expect(form.get('ask')).toBe('ask-value');
    expect(form.get('key_pw')).toBe('pw');
    expect((form.get('fps_cert') as File).name).toBe('fps.der');
    expect((form.get('fps_cert') as File).size).toBe(3);
    expect((form.get('private_key') as File).name).toBe('key.pem');
  });
});
