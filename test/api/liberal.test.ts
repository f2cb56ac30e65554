/**
 * Reading the service liberally (each case failed on the strict client): optional fields left
 * out, unknown codes, ids beyond 2^53, clock skew, 401/403 explanations, token refreshes in a
 * burst, non-offset time zones, code-point description lengths, a token of just "Bearer".
 * Loopback test servers only.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { codeLabel, codeName, JOB_STATUS } from '../../src/api/codes.js';
import { AuthError, PermissionError, ProtocolError, ValidationError } from '../../src/api/errors.js';
import { createApi } from '../../src/api/index.js';
import { checkRecipientDescription } from '../../src/api/validate.js';
import { MAX_AUTH_RETRIES } from '../../src/api/wm-token.js';
import { logger, setLogger } from '../../src/log.js';
import { captureLogger, json, ok, startServer, svcCreds, type TestServer, wmCreds } from './helpers.js';

let server: TestServer | undefined;
let api: ReturnType<typeof createApi> | undefined;
afterEach(async () => {
  await api?.close();
  await server?.close();
  api = undefined;
  server = undefined;
});

/** A WM server: tokens answer "Bearer t", every other call answers `data` (and envelope extras). */
async function wmServer(data: (url: string) => unknown, extra: Record<string, unknown> = {}) {
  server = await startServer((r, res) => {
    if (r.url.includes('/api/token/')) return ok(res, { token: 'Bearer t' });
    return ok(res, data(r.url), extra);
  });
  api = createApi({ retries: { max: 0 } });
  return api.watermarking(wmCreds(server.url));
}

describe('optional fields left out (not null, not "")', () => {
  it('recipients, tasks and jobs without description / update_time / times are read as ""', async () => {
    const wm = await wmServer(
      (url) => {
        if (url.includes('/recipient') && url.includes('/api/job/')) {
          return [{ dwm_id: 5, recipient: 'alice', task_status: 'TK001' }];
        }
        if (url.includes('/api/recipient/')) return [{ dwm_id: 5, name: 'alice' }];
        return [{ job_id: 1, content_id: 'c', job_status: 'DM000' }];
      },
      { total_count: 1, time_zone: '+00:00' },
    );
    const recipients = await wm.searchRecipients('AB12');
    expect(recipients.items).toEqual([
      { dwmId: 5, name: 'alice', description: '', regTime: { raw: '', epochMs: null } },
    ]);
    const tasks = await wm.getJobTasks('AB12', 1);
    expect(tasks.items[0]).toMatchObject({ dwmId: 5, recipient: 'alice', description: '', failed: false });
    const jobs = await wm.searchJobs('AB12');
    expect(jobs.items[0]).toMatchObject({ jobId: 1, contentId: 'c', status: 'DM000' });
  });

  it('Service API rows without reg_message, group_name, platform_name, callback URLs are read', async () => {
    server = await startServer((r, res) => {
      const u = new URL(r.url, 'http://x');
      if (u.pathname.endsWith('/account/member'))
        return ok(res, [{ group_seq: 1000, member_seq: 3, member_email: 'a@b.co', status_code: 'MT001' }]);
      if (u.pathname.includes('/plan/request/status/'))
        return ok(res, { site_id: 'AB12', req_group_id: 'RG1', reg_type: 'SM001', reg_status: 'ST001' });
      if (u.pathname.endsWith('/drm/license'))
        return ok(res, [{ cid: 'c1', status: 'success', drm_type: 'Widevine', reg_time: '20260101120000' }]);
      if (u.pathname.includes('/drm/setting/')) return ok(res, { site_id: 'AB12', token_duration: 60 });
      return ok(res, []);
    });
    api = createApi({ retries: { max: 0 } });
    const svc = api.service(svcCreds(server.url));
    expect((await svc.listSubMembers()).items).toEqual([
      { groupName: '', groupSeq: 1000, memberSeq: 3, email: 'a@b.co', status: 'MT001', regDate: '' },
    ]);
    expect(await svc.getLatestStatusRequest('AB12', 'PD001')).toMatchObject({
      requestId: 'RG1',
      message: '',
      registeredBy: '',
      status: 'ST001',
    });
    expect((await svc.listLicenses('AB12')).items[0]).toMatchObject({
      cid: 'c1',
      platformName: '',
      userId: '',
      regTime: { epochMs: Date.UTC(2026, 0, 1, 12) },
    });
    expect(await svc.getSettings('AB12')).toMatchObject({
      licenseCallbackUrl: '',
      packageCallbackUrl: '',
      tokenDuration: 60,
    });
  });
});

describe('unknown codes', () => {
  it('are kept per row, labelled "unknown (CODE)", and the known rows keep their data', async () => {
    const wm = await wmServer(() => [
      { job_id: 1, content_id: 'a', job_status: 'DM500', reg_time: '', update_time: '' },
      { job_id: 2, content_id: 'b', job_status: 'DM777', reg_time: '', update_time: '' },
    ]);
    const page = await wm.searchJobs('AB12');
    expect(page.items.map((j) => j.status)).toEqual(['DM500', 'DM777']);
    expect(codeLabel(JOB_STATUS, 'DM777')).toBe('unknown (DM777)');
    expect(codeLabel(JOB_STATUS, 'DM500')).toBe('COMPLETED');
    expect(codeName('TK009')).toBe('unknown (TK009)');
  });

  it('each unknown code is logged once, not once per row or call', async () => {
    const cap = captureLogger();
    const previous = logger;
    setLogger(cap.logger);
    try {
      const wm = await wmServer(() => [
        { job_id: 1, content_id: 'a', job_status: 'DM778' },
        { job_id: 2, content_id: 'b', job_status: 'DM778' },
      ]);
      await wm.searchJobs('AB12');
      await wm.searchJobs('AB12');
    } finally {
      setLogger(previous);
    }
    const lines = cap
      .text()
      .split('\n')
      .filter((l) => l.includes('DM778'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('job_status');
  });
});

describe('ids beyond 2^53', () => {
  it('a string id above 2^53-1 is refused clearly, never rounded to another id', async () => {
    const wm = await wmServer(() => [
      { job_id: '9007199254740993', content_id: 'a', job_status: 'DM000', reg_time: '', update_time: '' },
    ]);
    const err = await wm.searchJobs('AB12').catch((e) => e);
    expect(err).toBeInstanceOf(ProtocolError);
    expect(err.field).toBe('data[0].job_id');
    expect(err.message).toContain('9007199254740993');
    expect(err.message).toMatch(/2\^53/);
  });

  it('ids sent as digit strings below the limit are exact', async () => {
    const wm = await wmServer(() => [
      { job_id: '9007199254740991', content_id: 'a', job_status: 'DM000', reg_time: '', update_time: '' },
    ]);
    expect((await wm.searchJobs('AB12')).items[0]?.jobId).toBe(9007199254740991);
  });
});

describe('clock skew and 401/403 explanations', () => {
  it('a 401 says the server clock is ahead (Date header) and points at the JWT settings', async () => {
    const ahead = new Date(Date.now() + 10 * 60_000).toUTCString();
    server = await startServer((_r, res) =>
      json(res, { error_code: '401', error_message: 'The JWT has expired' }, 401, { date: ahead }),
    );
    api = createApi({ retries: { max: 0 } });
    const err = await api
      .service(svcCreds(server.url))
      .getSites()
      .catch((e) => e);
    expect(err).toBeInstanceOf(AuthError);
    expect(err.message).toContain('The JWT has expired');
    expect(err.message).toMatch(/clock .* is 10 minutes ahead/);
    expect(err.message).toContain('SERVICE_JWT_TTL_SECONDS');
    expect(err.message).toContain('SERVICE_JWT_AUD');
  });

  it('the server message is carried with secrets masked; a plain wrong-account 401 has no claims hint', async () => {
    server = await startServer((_r, res) =>
      json(
        res,
        { error_message: 'User information not found for svc-secret-value-123 Bearer abcdefghijkl' },
        401,
      ),
    );
    api = createApi({ retries: { max: 0 } });
    const { registerSecret } = await import('../../src/log.js');
    registerSecret('svc-secret-value-123');
    const err = await api
      .service(svcCreds(server.url))
      .getSites()
      .catch((e) => e);
    expect(err).toBeInstanceOf(AuthError);
    expect(err.message).toContain('User information not found');
    expect(err.message).not.toContain('svc-secret-value-123');
    expect(err.message).not.toContain('abcdefghijkl');
    expect(err.message).not.toContain('SERVICE_JWT');
    server.setHandler((_r, res) => json(res, { error_message: 'Site AB12 is not in your plan' }, 403));
    const denied = await api
      .service(svcCreds(server.url))
      .getSites()
      .catch((e) => e);
    expect(denied).toBeInstanceOf(PermissionError);
    expect(denied.message).toContain('Site AB12 is not in your plan');
  });

  it('the JWT lifetime is configurable and 0 leaves exp out', async () => {
    const seen: string[] = [];
    server = await startServer((r, res) => {
      seen.push(String(r.headers.authorization));
      ok(res, []);
    });
    const claims = (h: string | undefined) =>
      JSON.parse(Buffer.from(String(h).split('.')[1] ?? '', 'base64url').toString()) as { exp?: number };
    api = createApi({ retries: { max: 0 }, jwtTtlSeconds: 3600, clock: () => 1_000_000_000 });
    await api.service(svcCreds(server.url)).getSites();
    expect(claims(seen[0]).exp).toBe(1_000_000 + 3600);
    await api.close();
    api = createApi({ retries: { max: 0 }, jwtTtlSeconds: 0 });
    await api.service(svcCreds(server.url)).getSites();
    expect(claims(seen[1]).exp).toBeUndefined();
  });
});

describe('watermarking tokens', () => {
  it('a token that runs out mid-burst twice is refreshed again (different token each time)', async () => {
    let issued = 0;
    let tokenCalls = 0;
    server = await startServer((r, res) => {
      if (r.url.includes('/api/token/')) {
        tokenCalls++;
        issued++;
        return ok(res, { token: `Bearer tok-${issued}` });
      }
      // The first two tokens run out as soon as they are used.
      if (issued < 3 || r.headers.authorization !== `Bearer tok-${issued}`) return json(res, {}, 401);
      return ok(res, { job_id: 1, content_id: 'c1', job_status: 'DM000' });
    });
    api = createApi({ retries: { max: 0 } });
    const job = await api.watermarking(wmCreds(server.url)).getJob('AB12', 1);
    expect(job.jobId).toBe(1);
    expect(tokenCalls).toBe(3);
    expect(MAX_AUTH_RETRIES).toBeGreaterThanOrEqual(2);
  });

  it('the same token refused again is not refreshed in a loop', async () => {
    let tokenCalls = 0;
    server = await startServer((r, res) => {
      if (r.url.includes('/api/token/')) {
        tokenCalls++;
        return ok(res, { token: 'Bearer same' });
      }
      return json(res, {}, 401);
    });
    api = createApi({ retries: { max: 0 } });
    const err = await api
      .watermarking(wmCreds(server.url))
      .getJob('AB12', 1)
      .catch((e) => e);
    expect(err).toBeInstanceOf(AuthError);
    expect(tokenCalls).toBe(2);
  });

  it('a token of just "Bearer" is a protocol error, never "Bearer Bearer"', async () => {
    const seen: string[] = [];
    server = await startServer((r, res) => {
      if (r.url.includes('/api/token/')) return ok(res, { token: 'Bearer' });
      seen.push(String(r.headers.authorization));
      return ok(res, {});
    });
    api = createApi({ retries: { max: 0 } });
    const err = await api
      .watermarking(wmCreds(server.url))
      .getJob('AB12', 1)
      .catch((e) => e);
    expect(err).toBeInstanceOf(ProtocolError);
    expect(err.field).toBe('data.token');
    expect(seen).toEqual([]);
  });
});

describe('time_zone that is not an offset', () => {
  it.each(['Asia/Seoul', 'GMT+09:00', ''])('"%s" falls back to the requested offset', async (tz) => {
    const wm = await wmServer(
      () => [
        {
          job_id: 1,
          content_id: 'a',
          job_status: 'DM000',
          reg_time: '2026-11-22T21:00:00',
          update_time: '2026-11-22T21:00:00',
        },
      ],
      { time_zone: tz },
    );
    const page = await wm.searchJobs('AB12', { timeZone: '+09:00' });
    expect(page.timeZone).toBe('+09:00');
    expect(page.items[0]?.regTime.epochMs).toBe(Date.UTC(2026, 10, 22, 12));
  });
});

describe('description length', () => {
  it('counts characters as code points: 50 emoji are allowed, 51 are not', () => {
    expect(checkRecipientDescription('😀'.repeat(50))).toBeNull();
    expect(checkRecipientDescription('😀'.repeat(51))).toMatch(/51 characters/);
  });

  it('the client sends 50 emoji', async () => {
    server = await startServer((r, res) => {
      if (r.url.includes('/api/token/')) return ok(res, { token: 'Bearer t' });
      return ok(res, [{ dwm_id: 1, name: 'n1', description: '😀'.repeat(50), reg_time: '' }]);
    });
    api = createApi({ retries: { max: 0 } });
    const out = await api
      .watermarking(wmCreds(server.url))
      .registerRecipients('AB12', [{ name: 'n1', description: '😀'.repeat(50) }]);
    expect(out[0]?.description).toBe('😀'.repeat(50));
    const refused = await api
      .watermarking(wmCreds(server.url))
      .registerRecipients('AB12', [{ name: 'n2', description: '😀'.repeat(51) }])
      .catch((e) => e);
    expect(refused).toBeInstanceOf(ValidationError);
  });
});
