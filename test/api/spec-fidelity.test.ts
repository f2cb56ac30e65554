// One test per spec-fidelity finding: each would have failed before its fix.
// before its fix. Loopback fakes only.
import { decodeJwt, jwtVerify } from 'jose';
import { afterEach, describe, expect, it } from 'vitest';
import { decodeEnvelope } from '../../src/api/envelope.js';
import { ValidationError } from '../../src/api/errors.js';
import { createApi } from '../../src/api/index.js';
import { normalizeTimeZone } from '../../src/api/time.js';
import { checkContentId, checkUrl } from '../../src/api/validate.js';
import { ok, startServer, type TestServer } from './helpers.js';

let server: TestServer | undefined;
let api: ReturnType<typeof createApi> | undefined;
afterEach(async () => {
  await api?.close();
  await server?.close();
  api = undefined;
  server = undefined;
});

const svcCreds = (baseUrl: string) => ({
  accountId: 'acct',
  accountSeq: '0042',
  secretKey: 'c2VjcmV0LWtleQ==',
  baseUrl,
});
const res = (body: unknown) => ({ status: 200, headers: {}, text: JSON.stringify(body), attempts: 1 });

describe('envelope tolerance', () => {
  it('a blank total_count / count is read as absent, not as a broken body', () => {
    const env = decodeEnvelope('t', res({ error_code: '0000', total_count: '', count: ' ', data: [] }));
    expect(env.totalCount).toBeUndefined();
    expect(env.count).toBeUndefined();
    // Digit strings still count, and garbage is still refused.
    expect(decodeEnvelope('t', res({ error_code: '0000', total_count: '12', data: [] })).totalCount).toBe(12);
    expect(() => decodeEnvelope('t', res({ error_code: '0000', total_count: 'many', data: [] }))).toThrow(
      /total_count/,
    );
  });

  it('time_zone "+09" (no minutes) and "9" are +09:00', () => {
    expect(normalizeTimeZone('+09')).toBe('+09:00');
    expect(normalizeTimeZone('-3')).toBe('-03:00');
    expect(normalizeTimeZone('09:00')).toBe('+09:00');
    expect(normalizeTimeZone('+25')).toBeNull();
    expect(normalizeTimeZone('Asia/Seoul')).toBeNull();
  });
});

describe('watermarking: cli_error_code', () => {
  it('"0" / numeric 0 is success; "0000", a real code, TK005 or a finished task with no code is a failure', async () => {
    const task = (dwm_id: number, task_status: string, cli_error_code: unknown) => ({
      dwm_id,
      recipient: `r${dwm_id}`,
      description: '',
      task_status,
      cli_error_code,
      reg_time: '2026-01-01T00:00:00',
      update_time: '2026-01-01T00:00:00',
    });
    server = await startServer((s, r) => {
      if (s.url.startsWith('/api/token/')) return ok(r, { token: 'Bearer t' });
      ok(
        r,
        [
          task(1, 'TK002', '0000'),
          task(2, 'TK002', 0),
          task(3, 'TK001', null),
          task(4, 'TK002', 'E-417'),
          task(5, 'TK005', '0'),
          task(6, 'TK002', ''),
        ],
        { time_zone: '+00:00', total_count: 6 },
      );
    });
    api = createApi();
    const page = await api
      .watermarking({ accountId: 'a', accessKey: 'k', baseUrl: server.url })
      .getJobTasks('AB12', 1);
    expect(page.items.map((t) => [t.dwmId, t.failed])).toEqual([
      [1, true],
      [2, false],
      [3, false],
      [4, true],
      [5, true],
      [6, true],
    ]);
  });
});

describe('Service API', () => {
  it('endpoint 8: the request fields at the envelope top level (the spec does not say `data`) are read', async () => {
    server = await startServer((_s, r) =>
      ok(r, null, {
        site_id: 'AB12',
        req_group_id: 'RG9',
        reg_type: 'SM001',
        reg_message: 'resume',
        reg_status: 'ST001',
        reg_id: 'acct',
        reg_dt: '2026-01-02 03:04:05',
        update_dt: '2026-01-02 03:04:05',
      }),
    );
    api = createApi();
    const r = await api.service(svcCreds(server.url)).getLatestStatusRequest('AB12', 'PD001');
    expect(r).toMatchObject({ requestId: 'RG9', status: 'ST001', type: 'SM001', siteId: 'AB12' });
    expect(r?.regTime.epochMs).toBe(Date.UTC(2026, 0, 2, 3, 4, 5));
  });

  it('endpoint 8: null data and no top-level request is still "no request"', async () => {
    server = await startServer((_s, r) => ok(r, null));
    api = createApi();
    expect(await api.service(svcCreds(server.url)).getLatestStatusRequest('AB12', 'PD001')).toBeNull();
  });

  it('verify() checks the credentials only; getSites keeps an unlisted product and status code', async () => {
    server = await startServer((_s, r) =>
      ok(r, [
        {
          site_id: 'AB12',
          service_name: 'S',
          product_list: [{ service_code: 'PD003', status_code: 'SE009' }],
        },
      ]),
    );
    api = createApi();
    const client = api.service(svcCreds(server.url));
    await expect(client.verify()).resolves.toBeUndefined();
    expect(await client.getSites()).toEqual([
      { siteId: 'AB12', name: 'S', products: [{ serviceCode: 'PD003', status: 'SE009' }] },
    ]);
    expect(new URL(server.seen[0]?.url ?? '', 'http://x').searchParams.get('api_code')).toBe('UC011004100');
  });

  it('endpoint 11: license status is read case-insensitively ("SUCCESS", "Fail")', async () => {
    const rec = (status: string) => ({
      cid: 'c',
      status,
      error_code: '0000',
      drm_type: 'NCG',
      user_id: 'u',
      device_id: 'd',
      device_model: 'm',
      license_type: 'token',
      platform_name: 'p',
      reg_time: '20260101000000',
    });
    server = await startServer((_s, r) => ok(r, [rec('SUCCESS'), rec(' Fail ')], { count: 2 }));
    api = createApi();
    const page = await api.service(svcCreds(server.url)).listLicenses('AB12');
    expect(page.items.map((i) => i.status)).toEqual(['success', 'fail']);
  });

  it('JWT: account_seq as a string by default (leading zeros kept); as a number when configured', async () => {
    server = await startServer((_s, r) => ok(r, []));
    api = createApi();
    await api.service(svcCreds(server.url)).getSites();
    expect(decodeJwt(String(server.seen[0]?.headers.authorization).slice(7)).account_seq).toBe('0042');
    await api.close();
    api = createApi({ jwtAccountSeqType: 'number' });
    await api.service(svcCreds(server.url)).getSites();
    expect(decodeJwt(String(server.seen[1]?.headers.authorization).slice(7)).account_seq).toBe(42);
    // A non-numeric seq with 'number' is a ValidationError that does not echo the secret.
    const err = await api
      .service({ ...svcCreds(server.url), accountSeq: 'x1' })
      .getSites()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect(String((err as Error).message)).not.toContain('c2VjcmV0');
  });

  it('JWT: the secret is UTF-8 bytes by default, base64-decoded when configured', async () => {
    server = await startServer((_s, r) => ok(r, []));
    api = createApi({ jwtSecretEncoding: 'base64' });
    await api.service(svcCreds(server.url)).getSites();
    const jwt = String(server.seen[0]?.headers.authorization).slice(7);
    await expect(jwtVerify(jwt, new TextEncoder().encode('secret-key'))).resolves.toBeTruthy();
    await expect(jwtVerify(jwt, new TextEncoder().encode('c2VjcmV0LWtleQ=='))).rejects.toThrow();
  });
});

describe('validation rules', () => {
  it('content_id: "no special characters; 200 bytes" admits letters of any script, counted in bytes', () => {
    expect(checkContentId('드라마_01-final.v2')).toBeNull();
    expect(checkContentId('épisode-1')).toBeNull();
    // 67 Hangul syllables = 201 bytes: over the byte limit although only 67 characters.
    expect(checkContentId('가'.repeat(67))).toMatch(/201 bytes/);
    for (const bad of ['a/b', 'a b', 'a?b', 'a\u200bb', 'a%b', 'a😀b']) {
      expect(checkContentId(bad)).toMatch(/only letters, digits/);
    }
  });

  it('a refused callback URL is echoed without its query, fragment or user:password', () => {
    const m1 = checkUrl('ftp://user:pa55word@cb.example/hook?token=s3cr3t#frag') ?? '';
    expect(m1).toContain('ftp://cb.example/hook');
    for (const secret of ['pa55word', 's3cr3t', 'user:', 'frag']) expect(m1).not.toContain(secret);
    const m2 = checkUrl('cb.example/hook?key=s3cr3t') ?? '';
    expect(m2).toMatch(/is not a URL/);
    expect(m2).not.toContain('s3cr3t');
  });
});

describe('secrets in base URLs', () => {
  it('a bad base URL is a ValidationError naming no query, password or cause', async () => {
    api = createApi();
    const wmc = (baseUrl: string) => api?.watermarking({ accountId: 'a', accessKey: 'k', baseUrl });
    for (const baseUrl of [
      'https://user:pa55word@wm.example',
      'not a url/?key=s3cr3t',
      'ftp://wm.example/?key=s3cr3t',
    ]) {
      const err = await wmc(baseUrl)
        ?.searchJobs('AB12')
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ValidationError);
      const e = err as ValidationError;
      expect(e.issues[0]?.field).toBe('base URL');
      const all = `${e.message} ${e.stack} ${JSON.stringify(e)} ${String(e.cause)}`;
      for (const secret of ['pa55word', 's3cr3t']) expect(all).not.toContain(secret);
    }
  });
});
