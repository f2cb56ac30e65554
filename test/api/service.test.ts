// Service API client against a loopback fake: parameter placement, multipart, endpoint 14
// fallback, endpoint 8 empty data, auth handling. (Emulator round trips: integration.test.ts.)
import { jwtVerify } from 'jose';
import { afterEach, describe, expect, it } from 'vitest';
import { AuthError, PermissionError, TransportError } from '../../src/api/errors.js';
import { createApi } from '../../src/api/index.js';
import { json, ok, type Seen, startServer, type TestServer } from './helpers.js';

let server: TestServer | undefined;
let api: ReturnType<typeof createApi> | undefined;
afterEach(async () => {
  await api?.close();
  await server?.close();
  api = undefined;
  server = undefined;
});

const creds = (baseUrl: string) => ({ accountId: 'acct', accountSeq: '7', secretKey: 'svc-secret', baseUrl });
const query = (s: Seen | undefined) => new URL(s?.url ?? '/', 'http://x').searchParams;

describe('Service API client', () => {
  it('puts api_code in the query and other POST fields in a JSON body, with a valid JWT', async () => {
    server = await startServer((_r, res) => ok(res, { seq: '12' }));
    api = createApi();
    const r = await api.service(creds(`${server.url}/svc`)).requestAdditionalSite('New Site');
    expect(r).toEqual({ seq: 12 });
    const s = server.seen[0];
    expect(s?.method).toBe('POST');
    expect(s?.url).toBe('/svc/api/v2/account/siteId/approve?api_code=UA010310200');
    expect(JSON.parse(s?.body.toString() ?? '')).toEqual({ service_name: 'New Site' });
    const auth = String(s?.headers.authorization);
    const { payload } = await jwtVerify(
      auth.replace(/^Bearer /, ''),
      new TextEncoder().encode('svc-secret'),
      {
        audience: 'AUDIENCE',
        issuer: 'Service',
        subject: 'ServiceAPI',
      },
    );
    expect(payload).toMatchObject({ account_id: 'acct', account_seq: '7' });
  });

  it('can send POST/PUT fields as a form instead', async () => {
    server = await startServer((_r, res) => ok(res, null));
    api = createApi({ bodyEncoding: 'form' });
    await api.service(creds(server.url)).updateSubMember({ memberSeq: 5, status: 'MT002', groupSeq: 1014 });
    const s = server.seen[0];
    expect(s?.method).toBe('PUT');
    expect(query(s).get('api_code')).toBe('UA010700200');
    expect(s?.headers['content-type']).toMatch(/x-www-form-urlencoded/);
    expect(Object.fromEntries(new URLSearchParams(s?.body.toString()))).toEqual({
      member_seq: '5',
      member_status: 'MT002',
      group_seq: '1014',
    });
  });

  it('can send every POST/PUT parameter in the query string (SERVICE_BODY_ENCODING=query)', async () => {
    server = await startServer((_r, res) => ok(res, null));
    api = createApi({ bodyEncoding: 'query' });
    await api.service(creds(server.url)).updateSubMember({ memberSeq: 5, status: 'MT002' });
    const s = server.seen[0];
    expect(s?.method).toBe('PUT');
    expect(Object.fromEntries(query(s))).toEqual({
      api_code: 'UA010700200',
      member_seq: '5',
      member_status: 'MT002',
    });
    expect(s?.body.length).toBe(0);
    expect(s?.headers['content-type']).toBeUndefined();
  });

  it('can put api_code in the body, or in both places (SERVICE_API_CODE_IN)', async () => {
    server = await startServer((_r, res) => ok(res, { seq: 1 }));
    api = createApi({ apiCodeIn: 'body' });
    await api.service(creds(server.url)).requestAdditionalSite('New Site');
    expect(query(server.seen[0]).get('api_code')).toBeNull();
    expect(JSON.parse(server.seen[0]?.body.toString() ?? '')).toEqual({
      api_code: 'UA010310200',
      service_name: 'New Site',
    });
    await api.close();
    api = createApi({ apiCodeIn: 'both', bodyEncoding: 'form' });
    await api.service(creds(server.url)).requestAdditionalSite('New Site');
    const s = server.seen[1];
    expect(query(s).get('api_code')).toBe('UA010310200');
    expect(Object.fromEntries(new URLSearchParams(s?.body.toString()))).toEqual({
      api_code: 'UA010310200',
      service_name: 'New Site',
    });
  });

  it('puts api_code of the certificate upload in the multipart form when asked, files stay in the form', async () => {
    server = await startServer((_r, res) => ok(res, null));
    const upload = {
      ask: 'ask-secret',
      keyPw: 'pw',
      fpsCert: { filename: 'c.der', data: new Uint8Array([1, 2]) },
      privateKey: { filename: 'k.pem', data: new Uint8Array([3]) },
    };
    api = createApi({ apiCodeIn: 'body', bodyEncoding: 'query' });
    await api.service(creds(server.url)).uploadFpsCert('AB12', upload);
    const s = server.seen[0];
    expect(query(s).get('api_code')).toBeNull();
    // The secrets never go into the URL, whatever the encoding.
    expect(query(s).get('ask')).toBeNull();
    const form = await new Request('http://127.0.0.1/', {
      method: 'POST',
      headers: { 'content-type': String(s?.headers['content-type']) },
      body: s?.body,
    }).formData();
    expect(form.get('api_code')).toBe('UA003004200');
    expect(form.get('ask')).toBe('ask-secret');
    expect(form.get('fps_cert')).toBeInstanceOf(Blob);
  });

  it('license reg_time is read as UTC by default, or in the configured offset (the spec gives it no zone)', async () => {
    const rec = (reg_time: string) => ({
      cid: 'c1',
      status: 'fail',
      error_code: '7001',
      drm_type: 'Widevine',
      user_id: 'u',
      device_id: 'd',
      device_model: 'm',
      license_type: 'token',
      platform_name: 'Android',
      reg_time,
    });
    server = await startServer((_r, res) =>
      ok(res, [rec('20261127090000'), rec('2026-11-27 09:00:00'), rec('2026-11-27T09:00:00Z')], { count: 3 }),
    );
    const read = async (o: Parameters<typeof createApi>[0]) => {
      const a = createApi(o);
      try {
        return (await a.service(creds(server!.url)).listLicenses('AB12')).items.map((r) => r.regTime);
      } finally {
        await a.close();
      }
    };
    const utc = Date.UTC(2026, 10, 27, 9);
    expect((await read({})).map((t) => t.epochMs)).toEqual([utc, utc, utc]);
    const kst = await read({ serviceLicenseTimeZone: '+09:00' });
    // 09:00 at +09:00 is 00:00 UTC; a time with its own `Z` keeps it.
    expect(kst.map((t) => t.epochMs)).toEqual([utc - 9 * 3600_000, utc - 9 * 3600_000, utc]);
    expect(kst[0]?.raw).toBe('20261127090000');
  });

  it('GET parameters go in the query', async () => {
    server = await startServer((_r, res) => ok(res, [], { count: 0 }));
    api = createApi();
    await api.service(creds(server.url)).listLicenses('AB12', {
      from: '2026-01-01',
      to: '2026-01-31',
      pageUnit: 50,
      pageIndex: 2,
      searchStatus: 'fail',
      searchCondition: 'drm_type',
      searchKeyword: 'Widevine',
    });
    const q = query(server.seen[0]);
    expect(server.seen[0]?.url.startsWith('/api/v2/drm/license?')).toBe(true);
    expect(Object.fromEntries(q)).toEqual({
      api_code: 'UA003001100',
      site_id: 'AB12',
      from: '2026-01-01',
      to: '2026-01-31',
      page_unit: '50',
      page_index: '2',
      search_status: 'fail',
      search_condition: 'drm_type',
      search_keyword: 'Widevine',
    });
  });

  it('uploads the certificate as multipart form data', async () => {
    server = await startServer((_r, res) => ok(res, null));
    api = createApi();
    await api.service(creds(server.url)).uploadFpsCert('AB12', {
      ask: 'the-ask',
      keyPw: 'pw',
      fpsCert: { filename: 'fps.cer', data: new Uint8Array([1, 2, 3]) },
      privateKey: { filename: 'key.pem', data: new TextEncoder().encode('-----BEGIN') },
    });
    const s = server.seen[0];
    expect(s?.url).toBe('/api/v2/drm/setting/fpscert/AB12?api_code=UA003004200');
    const form = await new Request('http://x/', {
      method: 'POST',
      headers: { 'content-type': String(s?.headers['content-type']) },
      body: s?.body,
    }).formData();
    expect(form.get('ask')).toBe('the-ask');
    expect(form.get('key_pw')).toBe('pw');
    const cert = form.get('fps_cert') as File;
    expect(cert.name).toBe('fps.cer');
    expect([...new Uint8Array(await cert.arrayBuffer())]).toEqual([1, 2, 3]);
    expect((form.get('private_key') as File).name).toBe('key.pem');
  });

  it('endpoint 14 falls back to cid-drmLicense on 404 and remembers it', async () => {
    server = await startServer((r, res) =>
      r.url.includes('/cid-drmLicense')
        ? ok(res, [{ cid: 'c1', license_cnt: '3' }], { count: 1 })
        : json(res, {}, 404),
    );
    api = createApi();
    const svc = api.service(creds(server.url));
    const p = await svc.listCidLicenses('AB12');
    expect(p.items).toEqual([{ cid: 'c1', licenseCount: 3 }]);
    await api.service(creds(server.url)).listCidLicenses('AB12');
    expect(server.seen.map((s) => s.url.split('?')[0])).toEqual([
      '/api/v2/drm/cid-License',
      '/api/v2/drm/cid-drmLicense',
      '/api/v2/drm/cid-drmLicense',
    ]);
  });

  it('endpoint 14: a 404 on both spellings is a TransportError', async () => {
    server = await startServer((_r, res) => json(res, {}, 404));
    api = createApi();
    const err = await api
      .service(creds(server.url))
      .listCidLicenses('AB12')
      .catch((e) => e);
    expect(err).toBeInstanceOf(TransportError);
    expect(err.status).toBe(404);
  });

  it('endpoint 8 returns null for empty data in any shape', async () => {
    const bodies: unknown[] = [null, undefined, {}, []];
    let i = 0;
    server = await startServer((_r, res) => ok(res, bodies[i++]));
    api = createApi();
    const svc = api.service(creds(server.url));
    for (const _ of bodies) expect(await svc.getLatestStatusRequest('AB12', 'PD001')).toBeNull();
    expect(query(server.seen[0]).get('service_code')).toBe('PD001');
  });

  it('endpoint 8 maps a request and keeps a status code the spec does not list', async () => {
    const req = {
      site_id: 'AB12',
      req_group_id: 'RG1',
      reg_type: 'SM002',
      reg_message: 'pause',
      reg_status: 'ST001',
      reg_id: 'acct',
      reg_dt: '2026-01-01 10:00:00',
      update_dt: '2026-01-01 10:00:00',
    };
    server = await startServer((_r, res, n) => ok(res, n === 1 ? req : { ...req, reg_status: 'ST777' }));
    api = createApi();
    const svc = api.service(creds(server.url));
    const r = await svc.getLatestStatusRequest('AB12', 'PD001');
    expect(r).toMatchObject({ requestId: 'RG1', type: 'SM002', status: 'ST001', registeredBy: 'acct' });
    expect(r?.regTime.epochMs).toBe(Date.parse('2026-01-01T10:00:00Z'));
    const unknown = await svc.getLatestStatusRequest('AB12', 'PD001');
    expect(unknown).toMatchObject({ requestId: 'RG1', status: 'ST777' });
  });

  it('re-signs once on 401, then gives AuthError; 403 is PermissionError', async () => {
    server = await startServer((_r, res) => json(res, {}, 401));
    api = createApi();
    const err = await api
      .service(creds(server.url))
      .getSites()
      .catch((e) => e);
    expect(err).toBeInstanceOf(AuthError);
    expect(server.seen).toHaveLength(2);
    server.setHandler((_r, res) => json(res, {}, 403));
    await expect(api.service(creds(server.url)).verify()).rejects.toBeInstanceOf(PermissionError);
  });

  it('maps DRM lists, settings and stats with tolerant numbers', async () => {
    server = await startServer((r, res) => {
      if (r.url.startsWith('/api/v2/drm/setting/')) {
        return ok(res, {
          site_id: 'AB12',
          site_key: 'k',
          access_key: 'a',
          license_callback_url: null,
          package_callback_url: '',
          kms_token: 't',
          token_duration: '3600',
          iv: 'iv',
        });
      }
      if (r.url.startsWith('/api/v2/drm/statistics/')) {
        return ok(res, { license_cnt: 5, user_acc_cnt: '4', device_acc_cnt: 3, target_date: 20260101 });
      }
      return ok(res, [{ user_id: 'u1', license_cnt: '2', device_cnt: 1, success: 2, fail: 0 }], {
        count: '1',
      });
    });
    api = createApi();
    const svc = api.service(creds(server.url));
    expect(await svc.getSettings('AB12')).toMatchObject({ tokenDuration: 3600, licenseCallbackUrl: '' });
    expect(await svc.getMonthlyStats('AB12', '2026-01-01')).toEqual({
      licenseCount: 5,
      userCount: 4,
      deviceCount: 3,
      targetDate: '20260101',
    });
    const users = await svc.listUsers('AB12', { searchKeyword: 'u' });
    expect(users).toEqual({
      items: [{ userId: 'u1', licenseCount: 2, deviceCount: 1, success: 2, fail: 0 }],
      count: 1,
      pageIndex: 1,
      pageUnit: 25,
    });
  });
});

describe('Watermarking client parsing', () => {
  it('an unknown job status is kept as sent; the rest of the list is intact', async () => {
    server = await startServer((r, res) => {
      if (r.url.includes('/api/token/')) return ok(res, { token: 'Bearer t' });
      return ok(
        res,
        [
          { job_id: 1, content_id: 'a', job_status: 'DM000', reg_time: '', update_time: '' },
          { job_id: 2, content_id: 'b', job_status: 'DM999', reg_time: '', update_time: '' },
        ],
        { total_count: 2, time_zone: '+00:00' },
      );
    });
    api = createApi();
    const page = await api
      .watermarking({ accountId: 'a', accessKey: 'k', baseUrl: server.url })
      .searchJobs('AB12');
    expect(page.items.map((j) => [j.jobId, j.contentId, j.status])).toEqual([
      [1, 'a', 'DM000'],
      [2, 'b', 'DM999'],
    ]);
  });

  it('applies the envelope time_zone (sign optional) to times and marks failed tasks', async () => {
    server = await startServer((r, res) => {
      if (r.url.includes('/api/token/')) return ok(res, { token: 'Bearer t' });
      return ok(
        res,
        [
          {
            dwm_id: '9',
            recipient: 'Netflix-EMEA',
            description: null,
            task_status: 'TK002',
            cli_error_code: 'E-417',
            reg_time: '2026-01-01T09:00:00',
            update_time: '2026-01-01T09:30:00',
          },
        ],
        { total_count: 1, time_zone: '09:00' },
      );
    });
    api = createApi();
    const page = await api
      .watermarking({ accountId: 'a', accessKey: 'k', baseUrl: server.url })
      .getJobTasks('AB12', 3, { timeZone: '+09:00' });
    expect(page.timeZone).toBe('+09:00');
    expect(page.items[0]).toMatchObject({ dwmId: 9, description: '', failed: true, cliErrorCode: 'E-417' });
    expect(page.items[0]?.regTime.epochMs).toBe(Date.parse('2026-01-01T00:00:00Z'));
    expect(query(server.seen[1]).get('time_zone')).toBe('+09:00');
    expect(server.seen[1]?.url).toContain('time_zone=%2B09%3A00');
  });
});
