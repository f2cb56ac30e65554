import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_CODE } from '../../src/api/codes.js';
import { type Json, start, svc, svcJwt, T0, type TestEmu } from './helpers.js';

let t: TestEmu;

beforeAll(async () => {
  t = await start();
});
afterAll(async () => {
  await t.emu.close();
});

const sites = { api_code: API_CODE.getSites };
const drm = (extra: Record<string, string | number> = {}) => ({
  api_code: API_CODE.listLicenses,
  site_id: 'DEMO',
  ...extra,
});

describe('JWT authentication', () => {
  it('accepts a valid token', async () => {
    const r = await svc(t.emu, 'GET', '/account/siteId', { query: sites });
    expect(r.status).toBe(200);
    expect(r.body.error_code).toBe('0000');
    expect(r.body.data.map((s: Json) => s.site_id)).toEqual(['DEMO', 'AB12', 'FILM']);
    expect(r.body.data[1]).toEqual({
      site_id: 'AB12',
      service_name: 'Acme Broadcast',
      product_list: [
        { service_code: 'PD001', status_code: 'SE000' },
        { service_code: 'PD002', status_code: 'SE001' },
      ],
    });
  });

  it('401 for missing header, malformed token, bad signature, wrong claims, unknown account, seq mismatch', async () => {
    const url = `${t.emu.serviceBaseUrl}/api/v2/account/siteId?api_code=${API_CODE.getSites}`;
    expect((await fetch(url)).status).toBe(401);
    expect((await svc(t.emu, 'GET', '/account/siteId', { jwt: 'not.a.jwt', query: sites })).status).toBe(401);
    const cases = [
      { secret: 'wrong-secret' },
      { aud: 'OTHER' },
      { iss: 'Someone' },
      { sub: 'WebAPI' },
      { accountId: 'ghost' },
      { accountSeq: '999' },
      { exp: Math.floor(T0 / 1000) - 10 },
    ];
    for (const c of cases) {
      const r = await svc(t.emu, 'GET', '/account/siteId', { jwt: await svcJwt(t.emu, c), query: sites });
      expect(r.status, JSON.stringify(c)).toBe(401);
    }
  });

  it('honours exp against the emulator clock', async () => {
    const jwt = await svcJwt(t.emu, { exp: Math.floor(T0 / 1000) + 60 });
    expect((await svc(t.emu, 'GET', '/account/siteId', { jwt, query: sites })).status).toBe(200);
    t.clock.t = T0 + 120_000;
    expect((await svc(t.emu, 'GET', '/account/siteId', { jwt, query: sites })).status).toBe(401);
    t.clock.t = T0;
  });

  it('403 for a forbidden account with a valid token', async () => {
    t.emu.addServiceAccount({
      accountId: 'banned',
      accountSeq: '7',
      secretKey: 'banned-secret',
      sites: [{ siteId: 'BN01', name: 'Banned' }],
      forbidden: true,
    });
    const jwt = await svcJwt(t.emu, { accountId: 'banned', accountSeq: '7', secret: 'banned-secret' });
    expect((await svc(t.emu, 'GET', '/account/siteId', { jwt, query: sites })).status).toBe(403);
  });

  it('configurable claims', async () => {
    const other = await start({
      seed: true,
      serviceJwt: { audience: 'AUD2', issuer: 'Iss2', subject: 'Sub2' },
    });
    try {
      const good = await svcJwt(other.emu, { aud: 'AUD2', iss: 'Iss2', sub: 'Sub2' });
      expect((await svc(other.emu, 'GET', '/account/siteId', { jwt: good, query: sites })).status).toBe(200);
      const std = await svcJwt(other.emu);
      expect((await svc(other.emu, 'GET', '/account/siteId', { jwt: std, query: sites })).status).toBe(401);
    } finally {
      await other.emu.close();
    }
  });
});

describe('api_code', () => {
  it('is required and must be the endpoint value', async () => {
    expect((await svc(t.emu, 'GET', '/account/siteId')).body.error_code).toBe('E1001');
    const wrong = await svc(t.emu, 'GET', '/account/siteId', { query: { api_code: API_CODE.listLicenses } });
    expect(wrong.body.error_code).toBe('E1001');
    expect(wrong.body.error_message).toContain('api_code');
  });

  it('is accepted from the query, a JSON body, a urlencoded form or a multipart form', async () => {
    const json = await svc(t.emu, 'POST', '/account/siteId/approve', {
      json: { api_code: API_CODE.requestAdditionalSite, service_name: 'Via JSON' },
    });
    expect(json.body.error_code).toBe('0000');
    const form = await svc(t.emu, 'POST', '/account/siteId/approve', {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      query: {},
      json: undefined,
      form: undefined,
    });
    expect(form.body.error_code).toBe('E1001');
    const r = await fetch(`${t.emu.serviceBaseUrl}/api/v2/account/siteId/approve`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${await svcJwt(t.emu)}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ api_code: API_CODE.requestAdditionalSite, service_name: 'Via form' }),
    });
    expect(((await r.json()) as Json).error_code).toBe('0000');
    const fd = new FormData();
    fd.append('api_code', API_CODE.requestAdditionalSite);
    fd.append('service_name', 'Via multipart');
    expect((await svc(t.emu, 'POST', '/account/siteId/approve', { form: fd })).body.error_code).toBe('0000');
    const bad = await fetch(`${t.emu.serviceBaseUrl}/api/v2/account/siteId/approve`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await svcJwt(t.emu)}`, 'content-type': 'application/json' },
      body: '{broken',
    });
    expect(((await bad.json()) as Json).error_code).toBe('E1001');
  });
});

describe('account management (1-7)', () => {
  it('additional-site requests: create, then filter by status, search and dates with paging', async () => {
    const c = await svc(t.emu, 'POST', '/account/siteId/approve', {
      query: { api_code: API_CODE.requestAdditionalSite },
      json: { service_name: 'Kids Channel Two' },
    });
    expect(typeof c.body.data.seq).toBe('number');
    const q = { api_code: API_CODE.listAdditionalSiteRequests };
    const all = await svc(t.emu, 'GET', '/account/siteId/approve', { query: q });
    const mine = all.body.data.find((r: Json) => r.seq === c.body.data.seq);
    expect(mine).toMatchObject({
      account_id: 'demo-service',
      service_name: 'Kids Channel Two',
      status: 'requested',
      reg_time: '2026-11-22 12:00:00',
    });
    const approved = await svc(t.emu, 'GET', '/account/siteId/approve', {
      query: { ...q, req_status: 'approved' },
    });
    expect(approved.body.data.map((r: Json) => r.site_id).sort()).toEqual(['AB12', 'FILM']);
    const bySite = await svc(t.emu, 'GET', '/account/siteId/approve', {
      query: { ...q, search_type: 'site_id', search_keyword: 'fil' },
    });
    expect(bySite.body.data.map((r: Json) => r.site_id)).toEqual(['FILM']);
    const recent = await svc(t.emu, 'GET', '/account/siteId/approve', {
      query: { ...q, from: '2026-11-22' },
    });
    expect(recent.body.data.every((r: Json) => r.reg_time >= '2026-11-22')).toBe(true);
    const paged = await svc(t.emu, 'GET', '/account/siteId/approve', {
      query: { ...q, page_unit: 1, page_index: 2 },
    });
    expect(paged.body.data).toHaveLength(1);
    expect(paged.body.data[0].seq).toBe(all.body.data[1].seq);
    for (const extra of [{ search_type: 'email' }, { page_unit: 1001 }, { from: '2026/01/01' }] as Record<
      string,
      string | number
    >[]) {
      expect(
        (await svc(t.emu, 'GET', '/account/siteId/approve', { query: { ...q, ...extra } })).body.error_code,
      ).toBe('E1001');
    }
    const missing = await svc(t.emu, 'POST', '/account/siteId/approve', {
      query: { api_code: API_CODE.requestAdditionalSite },
    });
    expect(missing.body.error_code).toBe('E1001');
  });

  it('sub-members: seeded list, create, duplicate e-mail, update status and group, reset password', async () => {
    const code = API_CODE.listSubMembers;
    const list = await svc(t.emu, 'GET', '/account/member', { query: { api_code: code } });
    expect(list.body.data).toHaveLength(5);
    expect(new Set(list.body.data.map((m: Json) => m.group_seq))).toEqual(new Set([1000, 1001, 1014]));
    expect(list.body.data[0]).toMatchObject({ group_name: 'BIZ', status_code: 'MT001' });
    expect(list.body.data[0].reg_date).toMatch(/^\d{4}-\d{2}-\d{2}$/);

    const c = await svc(t.emu, 'POST', '/account/member', {
      query: { api_code: code },
      json: { member_email: 'new.person@example.com', group_seq: 1001 },
    });
    expect(c.body.error_code).toBe('0000');
    const seq = c.body.data.member_seq;
    const dup = await svc(t.emu, 'POST', '/account/member', {
      query: { api_code: code },
      json: { member_email: 'NEW.PERSON@example.com' },
    });
    expect(dup.body.error_code).toBe('E5002');
    const badMail = await svc(t.emu, 'POST', '/account/member', {
      query: { api_code: code },
      json: { member_email: 'nope' },
    });
    expect(badMail.body.error_code).toBe('E1001');
    const badGroup = await svc(t.emu, 'POST', '/account/member', {
      query: { api_code: code },
      json: { member_email: 'g@example.com', group_seq: 1005 },
    });
    expect(badGroup.body.error_code).toBe('E1001');

    const upd = await svc(t.emu, 'PUT', '/account/member', {
      query: { api_code: code },
      json: { member_seq: seq, member_status: 'MT002', group_seq: 1014 },
    });
    expect(upd.body).toEqual({ error_code: '0000', error_message: 'Success' });
    const after = await svc(t.emu, 'GET', '/account/member', { query: { api_code: code, page_unit: 1000 } });
    expect(after.body.data.find((m: Json) => m.member_seq === seq)).toMatchObject({
      status_code: 'MT002',
      group_seq: 1014,
      group_name: 'Clients',
      member_email: 'new.person@example.com',
    });
    expect(
      (await svc(t.emu, 'PUT', '/account/member', { query: { api_code: code }, json: { member_seq: seq } }))
        .body.error_code,
    ).toBe('E1001');
    expect(
      (
        await svc(t.emu, 'PUT', '/account/member', {
          query: { api_code: code },
          json: { member_seq: seq, member_status: 'MT009' },
        })
      ).body.error_code,
    ).toBe('E1001');
    expect(
      (
        await svc(t.emu, 'PUT', '/account/member', {
          query: { api_code: code },
          json: { member_seq: 1, member_status: 'MT001' },
        })
      ).body.error_code,
    ).toBe('E5001');
    expect(
      (
        await svc(t.emu, 'PUT', '/account/member/repw', {
          query: { api_code: code },
          json: { member_seq: seq },
        })
      ).body.error_code,
    ).toBe('0000');
    expect(
      (
        await svc(t.emu, 'PUT', '/account/member/repw', {
          query: { api_code: code },
          json: { member_seq: 1 },
        })
      ).body.error_code,
    ).toBe('E5001');
    const paged = await svc(t.emu, 'GET', '/account/member', {
      query: { api_code: code, page_unit: 2, page_index: 3 },
    });
    expect(paged.body.data.map((m: Json) => m.member_seq)).toEqual(
      after.body.data.slice(4, 6).map((m: Json) => m.member_seq),
    );
  });
});

describe('service status change requests (8-10)', () => {
  const get = (siteId: string, serviceCode: string) =>
    svc(t.emu, 'GET', `/plan/request/status/${siteId}`, {
      query: { api_code: API_CODE.getLatestStatusRequest, service_code: serviceCode },
    });
  const register = (siteId: string, body: Record<string, string>) =>
    svc(t.emu, 'POST', `/plan/request/status/${siteId}`, {
      query: { api_code: API_CODE.registerStatusRequest },
      json: body,
    });
  const cancel = (siteId: string, body: Record<string, string>) =>
    svc(t.emu, 'PUT', `/plan/request/status/${siteId}`, {
      query: { api_code: API_CODE.cancelStatusRequest },
      json: { request_type: 'SM004', ...body },
    });

  it('latest request: seeded pending one, null when none, errors for bad input', async () => {
    const r = await get('AB12', 'PD002');
    expect(r.body.data).toMatchObject({
      site_id: 'AB12',
      reg_status: 'ST001',
      reg_type: 'SM001',
      reg_id: 'demo-service',
    });
    expect(r.body.data.req_group_id).toMatch(/^RG\d+$/);
    expect((await get('AB12', 'PD001')).body).toEqual({
      error_code: '0000',
      error_message: 'Success',
      data: null,
    });
    expect((await get('AB12', 'PD003')).body.error_code).toBe('E1001');
    expect((await get('ZZ99', 'PD001')).body.error_code).toBe('E1002');
    expect((await get('TOOLONG', 'PD001')).body.error_code).toBe('E1001');
  });

  it('register, refuse a second while pending, cancel only when pending, approve via control', async () => {
    const reg = await register('FILM', {
      service_code: 'PD001',
      request_type: 'SM001',
      request_message: 'please',
    });
    expect(reg.body.error_code).toBe('0000');
    expect(reg.body.data).toEqual({
      site_id: 'FILM',
      req_group_id: expect.stringMatching(/^RG\d+$/),
      reg_type: 'SM001',
      reg_message: 'please',
      reg_id: 'demo-service',
      reg_dt: '2026-11-22 12:00:00',
    });
    const id = reg.body.data.req_group_id;
    expect((await register('FILM', { service_code: 'PD001', request_type: 'SM002' })).body.error_code).toBe(
      'E4003',
    );
    expect((await register('FILM', { service_code: 'PD001', request_type: 'SM004' })).body.error_code).toBe(
      'E1001',
    );
    expect((await register('FILM', { service_code: 'PD002' })).body.error_code).toBe('E1001');
    expect((await get('FILM', 'PD001')).body.data).toMatchObject({ req_group_id: id, reg_status: 'ST001' });

    t.clock.t = T0 + 60_000;
    const c = await cancel('FILM', { service_code: 'PD001', request_group_id: id });
    t.clock.t = T0;
    expect(c.body.data).toMatchObject({
      req_group_id: id,
      reg_type: 'SM001',
      reg_status: 'ST002',
      update_dt: '2026-11-22 12:01:00',
    });
    expect((await cancel('FILM', { service_code: 'PD001', request_group_id: id })).body.error_code).toBe(
      'E4002',
    );
    expect((await cancel('FILM', { service_code: 'PD001', request_group_id: 'RG1' })).body.error_code).toBe(
      'E4001',
    );
    expect(
      (
        await svc(t.emu, 'PUT', '/plan/request/status/FILM', {
          query: { api_code: API_CODE.cancelStatusRequest },
          json: { service_code: 'PD001', request_type: 'SM001', request_group_id: id },
        })
      ).body.error_code,
    ).toBe('E1001');

    const again = await register('FILM', { service_code: 'PD001', request_type: 'SM003' });
    const id2 = again.body.data.req_group_id;
    t.emu.approveRequest('FILM', id2);
    expect((await get('FILM', 'PD001')).body.data).toMatchObject({ req_group_id: id2, reg_status: 'ST003' });
    expect((await cancel('FILM', { service_code: 'PD001', request_group_id: id2 })).body.error_code).toBe(
      'E4002',
    );
    expect(() => t.emu.approveRequest('FILM', id2)).toThrow(/not ST001/);
  });
});

describe('DRM lists (11-15)', () => {
  it('license list: count, _links, paging, default 25, newest first, reg_time yyyyMMddHHmmss', async () => {
    const r = await svc(t.emu, 'GET', '/drm/license', { query: drm() });
    expect(r.body.count).toBe(25);
    expect(r.body.data).toHaveLength(25);
    expect(r.body._links.self.href).toContain('/svc/api/v2/drm/license?');
    const times = r.body.data.map((l: Json) => l.reg_time);
    expect(times[0]).toMatch(/^\d{14}$/);
    expect([...times].sort().reverse()).toEqual(times);
    const all = await svc(t.emu, 'GET', '/drm/license', { query: drm({ page_unit: 1000 }) });
    expect(all.body.count).toBe(500);
    expect(new Set(all.body.data.map((l: Json) => l.drm_type))).toEqual(
      new Set(['PlayReady', 'Widevine', 'FairPlay', 'NCG']),
    );
    expect(new Set(all.body.data.map((l: Json) => l.platform_name)).size).toBeGreaterThanOrEqual(5);
    const p3 = await svc(t.emu, 'GET', '/drm/license', { query: drm({ page_unit: 10, page_index: 3 }) });
    expect(p3.body.data).toEqual(all.body.data.slice(20, 30));
  });

  it('license list filters: status, condition + keyword, dates; bad values are E1001', async () => {
    const fails = await svc(t.emu, 'GET', '/drm/license', {
      query: drm({ page_unit: 1000, search_status: 'fail' }),
    });
    expect(fails.body.count).toBeGreaterThan(0);
    expect(fails.body.data.every((l: Json) => l.status === 'fail' && l.error_code !== '0000')).toBe(true);
    const fp = await svc(t.emu, 'GET', '/drm/license', {
      query: drm({ page_unit: 1000, search_condition: 'drm_type', search_keyword: 'fairplay' }),
    });
    expect(fp.body.count).toBeGreaterThan(0);
    expect(fp.body.data.every((l: Json) => l.drm_type === 'FairPlay')).toBe(true);
    const oneDay = await svc(t.emu, 'GET', '/drm/license', {
      query: drm({ page_unit: 1000, from: '2026-11-01', to: '2026-11-10' }),
    });
    expect(oneDay.body.count).toBeGreaterThan(0);
    expect(oneDay.body.data.every((l: Json) => l.reg_time >= '20261101' && l.reg_time < '20261111')).toBe(
      true,
    );
    for (const extra of [
      { search_status: 'ok' },
      { search_condition: 'email' },
      { page_unit: 1001 },
      { to: 'x' },
    ] as Record<string, string | number>[]) {
      expect((await svc(t.emu, 'GET', '/drm/license', { query: drm(extra) })).body.error_code).toBe('E1001');
    }
    expect(
      (await svc(t.emu, 'GET', '/drm/license', { query: { api_code: API_CODE.listLicenses } })).body
        .error_code,
    ).toBe('E1001');
    expect(
      (await svc(t.emu, 'GET', '/drm/license', { query: drm({ site_id: 'ZZ99' }) })).body.error_code,
    ).toBe('E1002');
  });

  it('users, devices and cid counts are consistent with the license records', async () => {
    const lic = (await svc(t.emu, 'GET', '/drm/license', { query: drm({ page_unit: 1000 }) })).body
      .data as Json[];
    const users = await svc(t.emu, 'GET', '/drm/user', { query: drm({ page_unit: 1000 }) });
    const sumUsers = users.body.data.reduce((n: number, u: Json) => n + u.license_cnt, 0);
    expect(sumUsers).toBe(lic.length);
    const u0 = users.body.data[0];
    expect(u0.success + u0.fail).toBe(u0.license_cnt);
    expect(u0.device_cnt).toBeLessThanOrEqual(3);
    const one = await svc(t.emu, 'GET', '/drm/user', { query: drm({ search_keyword: u0.user_id }) });
    expect(one.body.data[0]).toEqual(u0);
    const devices = await svc(t.emu, 'GET', '/drm/device', { query: drm({ page_unit: 1000 }) });
    expect(devices.body.data.reduce((n: number, d: Json) => n + d.license_cnt, 0)).toBe(lic.length);
    expect(Object.keys(devices.body.data[0]).sort()).toEqual([
      'device_id',
      'device_model',
      'fail',
      'license_cnt',
      'success',
    ]);
    const cids = await svc(t.emu, 'GET', '/drm/cid-License', {
      query: drm({ page_unit: 1000, search_status: 'success' }),
    });
    expect(cids.body.data.reduce((n: number, c: Json) => n + c.license_cnt, 0)).toBe(
      lic.filter((l) => l.status === 'success').length,
    );
    expect(cids.body._links.self.href).toContain('cid-License');
  });

  it('endpoint 14 path option: the other spelling is 404 unless both', async () => {
    expect((await svc(t.emu, 'GET', '/drm/cid-drmLicense', { query: drm() })).status).toBe(404);
    const alt = await start({ cidLicensePath: 'cid-drmLicense' });
    const both = await start({ cidLicensePath: 'both' });
    try {
      expect((await svc(alt.emu, 'GET', '/drm/cid-drmLicense', { query: drm() })).body.error_code).toBe(
        '0000',
      );
      expect((await svc(alt.emu, 'GET', '/drm/cid-License', { query: drm() })).status).toBe(404);
      expect((await svc(both.emu, 'GET', '/drm/cid-License', { query: drm() })).body.error_code).toBe('0000');
      expect((await svc(both.emu, 'GET', '/drm/cid-drmLicense', { query: drm() })).body.error_code).toBe(
        '0000',
      );
    } finally {
      await alt.emu.close();
      await both.emu.close();
    }
  });

  it('packaging: keyset paging walks every record once in order', async () => {
    const seen: string[] = [];
    let cursor: Record<string, string> = {};
    for (let i = 0; i < 20; i++) {
      const r = await svc(t.emu, 'GET', '/drm/pack', { query: drm({ page_unit: 40, ...cursor }) });
      expect(r.body.error_code).toBe('0000');
      if (r.body.data.length === 0) break;
      expect(r.body.count).toBe(r.body.data.length);
      for (const p of r.body.data) seen.push(p.cid);
      const last = r.body.data[r.body.data.length - 1];
      // Cursor sent back in the T form to show both spellings are accepted.
      cursor = {
        last_created_time_cid: last.created_time.replace(' ', 'T'),
        last_update_time: last.update_time,
      };
    }
    expect(seen).toHaveLength(150);
    expect(new Set(seen).size).toBe(150);
    const first = await svc(t.emu, 'GET', '/drm/pack', { query: drm() });
    expect(first.body.data).toHaveLength(25);
    expect(first.body.data[0]).toMatchObject({ site_id: 'DEMO', track: expect.any(String) });
    const created = first.body.data.map((p: Json) => p.created_time);
    expect([...created].sort()).toEqual(created);
    expect(
      (await svc(t.emu, 'GET', '/drm/pack', { query: drm({ last_update_time: '2026-01-01 00:00:00' }) })).body
        .error_code,
    ).toBe('E1001');
    expect(
      (
        await svc(t.emu, 'GET', '/drm/pack', {
          query: drm({ last_update_time: 'yesterday', last_created_time_cid: '2026-01-01 00:00:00' }),
        })
      ).body.error_code,
    ).toBe('E1001');
    const byCid = await svc(t.emu, 'GET', '/drm/pack', {
      query: drm({ search_condition: 'cid', search_keyword: first.body.data[0].cid }),
    });
    expect(byCid.body.data.map((p: Json) => p.cid)).toEqual([first.body.data[0].cid]);
  });
});

describe('settings, certificate, statistics (16-19)', () => {
  const sc = { api_code: API_CODE.getSettings };

  it('get settings: realistic keys', async () => {
    const r = await svc(t.emu, 'GET', '/drm/setting/DEMO', { query: sc });
    expect(r.body.data.site_id).toBe('DEMO');
    expect(Buffer.from(r.body.data.site_key, 'base64')).toHaveLength(32);
    expect(Buffer.from(r.body.data.iv, 'base64')).toHaveLength(16);
    expect(r.body.data.kms_token.length).toBeGreaterThan(20);
    expect(typeof r.body.data.token_duration).toBe('number');
    expect((await svc(t.emu, 'GET', '/drm/setting/ZZ99', { query: sc })).body.error_code).toBe('E1002');
  });

  it('update settings: fields change, empty update and bad values refused', async () => {
    const put = (json: Json) => svc(t.emu, 'PUT', '/drm/setting/AB12', { query: sc, json });
    expect(
      (await put({ token_duration: 900, package_callback_url: 'https://pkg.example/cb' })).body.error_code,
    ).toBe('0000');
    const r = await svc(t.emu, 'GET', '/drm/setting/AB12', { query: sc });
    expect(r.body.data).toMatchObject({
      token_duration: 900,
      package_callback_url: 'https://pkg.example/cb',
    });
    expect((await put({})).body.error_code).toBe('E1001');
    expect((await put({ token_duration: 0 })).body.error_code).toBe('E1001');
    expect((await put({ license_callback_url: 'ftp://x' })).body.error_code).toBe('E1001');
    expect((await put({ license_callback_url: '' })).body.error_code).toBe('0000');
  });

  it('certificate upload: records names and sizes; missing file, bad extension, long key_pw refused', async () => {
    const form = (o: { cert?: string; key?: string; pw?: string; ask?: string } = {}) => {
      const fd = new FormData();
      fd.append('api_code', API_CODE.uploadFpsCert);
      if (o.ask !== '') fd.append('ask', o.ask ?? 'ask-secret');
      fd.append('key_pw', o.pw ?? 'pw');
      if (o.cert !== '')
        fd.append('fps_cert', new Blob([new Uint8Array([48, 130, 1, 2])]), o.cert ?? 'fairplay.cer');
      if (o.key !== '')
        fd.append('private_key', new Blob(['-----BEGIN PRIVATE KEY-----']), o.key ?? 'key.pem');
      return fd;
    };
    const up = (fd: FormData) => svc(t.emu, 'POST', '/drm/setting/fpscert/DEMO', { form: fd });
    expect((await up(form())).body).toEqual({ error_code: '0000', error_message: 'Success' });
    expect(t.emu.certificateUploads('DEMO')).toEqual([
      {
        accountId: 'demo-service',
        atMs: T0,
        fpsCertFilename: 'fairplay.cer',
        fpsCertBytes: 4,
        privateKeyFilename: 'key.pem',
        privateKeyBytes: 27,
        // Digests of what arrived, never the values.
        askSha256: createHash('sha256').update('ask-secret').digest('hex'),
        keyPwSha256: createHash('sha256').update('pw').digest('hex'),
      },
    ]);
    expect(JSON.stringify(t.emu.certificateUploads('DEMO'))).not.toContain('ask-secret');
    expect((await up(form({ cert: '' }))).body.error_code).toBe('E6001');
    expect((await up(form({ key: '' }))).body.error_code).toBe('E6001');
    expect((await up(form({ cert: 'cert.pem' }))).body.error_code).toBe('E6001');
    expect((await up(form({ key: 'key.txt' }))).body.error_code).toBe('E6001');
    expect((await up(form({ pw: 'p'.repeat(33) }))).body.error_code).toBe('E1001');
    expect((await up(form({ ask: '' }))).body.error_code).toBe('E1001');
    expect(t.emu.certificateUploads('DEMO')).toHaveLength(1);
  });

  it('monthly statistics for the month of target_date; zeros without data; validation', async () => {
    const q = { api_code: API_CODE.getMonthlyStats, site_id: 'DEMO' };
    const r = await svc(t.emu, 'GET', '/drm/statistics/targetDate', {
      query: { ...q, target_date: '2026-10-15' },
    });
    expect(r.body.data.target_date).toBe(20261015);
    expect(r.body.data.user_acc_cnt).toBeGreaterThan(0);
    expect(r.body.data.license_cnt).toBeGreaterThanOrEqual(r.body.data.user_acc_cnt);
    const same = await svc(t.emu, 'GET', '/drm/statistics/targetDate', {
      query: { ...q, target_date: '2026-10-01' },
    });
    expect(same.body.data.license_cnt).toBe(r.body.data.license_cnt);
    for (let m = 0; m < 12; m++) {
      const d = new Date(Date.UTC(2026, 10 - m, 1)).toISOString().slice(0, 10);
      const x = await svc(t.emu, 'GET', '/drm/statistics/targetDate', { query: { ...q, target_date: d } });
      expect(x.body.data.license_cnt, d).toBeGreaterThan(0);
    }
    const old = await svc(t.emu, 'GET', '/drm/statistics/targetDate', {
      query: { ...q, target_date: '2020-01-01' },
    });
    expect(old.body.data).toMatchObject({ license_cnt: 0, user_acc_cnt: 0, device_acc_cnt: 0 });
    expect((await svc(t.emu, 'GET', '/drm/statistics/targetDate', { query: q })).body.error_code).toBe(
      'E1001',
    );
    expect(
      (await svc(t.emu, 'GET', '/drm/statistics/targetDate', { query: { ...q, target_date: '2026-02-30' } }))
        .body.error_code,
    ).toBe('E1001');
  });
});

describe('unknown paths', () => {
  it('404 JSON', async () => {
    const r = await svc(t.emu, 'GET', '/drm/nothing', { query: drm() });
    expect(r.status).toBe(404);
    expect(r.body.error_message).toContain('/svc/api/v2/drm/nothing');
    const w = await fetch(`${t.emu.wmBaseUrl}/api/v1/job/DEMO`);
    expect(w.status).toBe(404);
    expect((await fetch(`${t.emu.wmBaseUrl.replace('/wm', '')}/other`)).status).toBe(404);
  });
});
