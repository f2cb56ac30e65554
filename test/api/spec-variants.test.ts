/**
 * Services that follow the specs but answer differently from the emulator: each case broke the
 * client before. Loopback test servers only.
 */
import { readFileSync } from 'node:fs';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { errorCondition } from '../../src/api/error-codes.js';
import { ProtocolError, ServiceError, TransportError } from '../../src/api/errors.js';
import { HttpClient } from '../../src/api/http.js';
import { createApi } from '../../src/api/index.js';
import { registerSecret } from '../../src/log.js';
import { json, ok, startServer, svcCreds, type TestServer, wmCreds } from './helpers.js';

let server: TestServer | undefined;
let api: ReturnType<typeof createApi> | undefined;
afterEach(async () => {
  await api?.close();
  await server?.close();
  api = undefined;
  server = undefined;
});

const job = (o: Record<string, unknown> = {}) => ({
  job_id: 1,
  content_id: 'c',
  job_status: 'DM500',
  reg_time: '2026-11-27T01:02:03',
  update_time: '2026-11-27T01:02:03',
  ...o,
});

describe('paging', () => {
  it('a list without total_count reports its total as unknown (not as the items of the page)', async () => {
    server = await startServer((r, res) => {
      if (r.url.includes('/api/token/')) return ok(res, { token: 'Bearer t' });
      return ok(
        res,
        Array.from({ length: 25 }, (_, i) => job({ job_id: i + 1 })),
      );
    });
    api = createApi({ retries: { max: 0 } });
    const page = await api.watermarking(wmCreds(server.url)).searchJobs('AB12', {});
    expect(page.items).toHaveLength(25);
    expect(page.totalUnknown).toBe(true);
    server.setHandler((_r, res) => ok(res, [job()], { total_count: 1 }));
    const counted = await api.watermarking(wmCreds(server.url)).searchJobs('AB12', {});
    expect(counted.totalUnknown).toBeUndefined();
    expect(counted.totalCount).toBe(1);
  });
});

/** A WM server: tokens answer "Bearer t"; every other call is answered by `handler`. */
async function wmWith(handler: Parameters<typeof startServer>[0], retries = 0) {
  server = await startServer((r, res, n) => {
    if (r.url.includes('/api/token/')) return ok(res, { token: 'Bearer t' });
    return handler(r, res, n);
  });
  api = createApi({ retries: { max: retries } });
  return api.watermarking(wmCreds(server.url));
}

async function failure(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error('expected a failure');
}

describe('errors sent with an HTTP error status', () => {
  it('a 4xx with an error envelope is a ServiceError with the code and the cleaned message', async () => {
    registerSecret('k3y-s3cret-value');
    const wm = await wmWith((_r, res) =>
      json(
        res,
        { error_code: 'E1001', error_message: 'page_unit too large\u0007 key=k3y-s3cret-value' },
        400,
      ),
    );
    const e = await failure(wm.getJob('AB12', 1));
    expect(e).toBeInstanceOf(ServiceError);
    const se = e as ServiceError;
    expect(se.code).toBe('E1001');
    expect(se.httpStatus).toBe(400);
    expect(errorCondition(se)).toBe('invalidParameter');
    expect(se.serviceMessage).toMatch(/^page_unit too large/);
    expect(se.message).not.toContain('k3y-s3cret-value');
    expect(se.message).not.toContain('\u0007');
  });

  it('a 404 with an error envelope of "job not found" is that condition', async () => {
    const wm = await wmWith((_r, res) => json(res, { error_code: 'E3001', error_message: 'no job 9' }, 404));
    const e = (await failure(wm.getJob('AB12', 9))) as ServiceError;
    expect(errorCondition(e)).toBe('jobNotFound');
    expect(e.httpStatus).toBe(404);
  });

  it('a 4xx without an envelope is a TransportError whose text carries the short server message', async () => {
    const wm = await wmWith((_r, res) => {
      res.writeHead(400, { 'content-type': 'text/plain' });
      res.end(`bad page_unit${'x'.repeat(400)}`);
    });
    const e = (await failure(wm.getJob('AB12', 1))) as TransportError;
    expect(e).toBeInstanceOf(TransportError);
    expect(e.status).toBe(400);
    expect(e.message).toMatch(/HTTP 400, saying "bad page_unitx+…"/);
    expect(e.message.length).toBeLessThan(300);
  });

  it("a 5xx that outlived the retries carries the server's short message", async () => {
    const wm = await wmWith((_r, res) => {
      res.writeHead(503, { 'content-type': 'text/plain' });
      res.end('down for maintenance until 14:00 UTC');
    });
    const e = (await failure(wm.getJob('AB12', 1))) as TransportError;
    expect(e).toBeInstanceOf(TransportError);
    expect(e.message).toBe(
      'wm.getJob: the service answered HTTP 503, saying "down for maintenance until 14:00 UTC"',
    );
  });

  it('429 and 5xx with an error envelope stay TransportErrors (retried, come back later)', async () => {
    const wm = await wmWith(
      (_r, res, n) =>
        n <= 2 ? json(res, { error_code: 'E9999', error_message: 'busy' }, 503) : ok(res, job()),
      3,
    );
    expect((await wm.getJob('AB12', 1)).jobId).toBe(1);
    server?.setHandler((_r, res) => json(res, { error_code: 'E429', error_message: 'slow down' }, 429));
    const e = (await failure(
      api!.watermarking(wmCreds(server!.url)).searchRecipients('AB12', {}),
    )) as TransportError;
    expect(e).toBeInstanceOf(TransportError);
    expect(e.status).toBe(429);
  });
});

/** A Service API server answering every call with `data`. */
async function svcWith(data: unknown) {
  server = await startServer((_r, res) => ok(res, data));
  api = createApi({ retries: { max: 0 } });
  return api.service(svcCreds(server.url));
}

describe('Service API fields left out or null', () => {
  const settings = {
    site_id: 'AB12',
    site_key: 'k',
    access_key: 'a',
    license_callback_url: '',
    package_callback_url: '',
    kms_token: 't',
    iv: 'iv',
  };
  it('settings without token_duration, or with "" or null, read it as 0 (not set)', async () => {
    for (const extra of [{}, { token_duration: '' }, { token_duration: null }]) {
      const svc = await svcWith({ ...settings, ...extra });
      expect((await svc.getSettings('AB12')).tokenDuration).toBe(0);
      await api?.close();
      await server?.close();
    }
    api = undefined;
    server = undefined;
  });

  it('a sub-member without group_seq (absent or null) is listed, its group 0 (none listed)', async () => {
    const member = { group_name: 'Ops', member_seq: 5, member_email: 'a@b.c', status_code: 'MT001' };
    const svc = await svcWith([member, { ...member, member_seq: 6, group_seq: null }]);
    const page = await svc.listSubMembers();
    expect(page.items.map((m) => [m.memberSeq, m.groupSeq])).toEqual([
      [5, 0],
      [6, 0],
    ]);
  });

  it('null counts are 0; monthly stats without target_date carry the date asked for', async () => {
    let svc = await svcWith([{ user_id: 'u', license_cnt: null, device_cnt: 1, success: '', fail: 0 }]);
    expect((await svc.listUsers('AB12')).items[0]).toMatchObject({ licenseCount: 0, success: 0 });
    await api?.close();
    await server?.close();
    svc = await svcWith({ license_cnt: 3, user_acc_cnt: null, device_acc_cnt: 1 });
    expect(await svc.getMonthlyStats('AB12', '2026-11-01')).toEqual({
      licenseCount: 3,
      userCount: 0,
      deviceCount: 1,
      targetDate: '2026-11-01',
    });
  });

  it("a status request's type and status are read case-insensitively", async () => {
    const svc = await svcWith({
      site_id: 'AB12',
      req_group_id: 'R1',
      reg_type: 'sm002',
      reg_message: 'm',
      reg_status: 'st001',
      reg_id: 'u',
      reg_dt: '2026-11-27T01:02:03',
    });
    expect(await svc.getLatestStatusRequest('AB12', 'PD001')).toMatchObject({
      type: 'SM002',
      status: 'ST001',
    });
  });

  it('a latest status request whose fields are all null is "no request"', async () => {
    const svc = await svcWith({
      site_id: null,
      req_group_id: null,
      reg_type: null,
      reg_message: null,
      reg_status: null,
      reg_id: null,
      reg_dt: null,
    });
    expect(await svc.getLatestStatusRequest('AB12', 'PD001')).toBeNull();
  });
});

describe('how the answer is sent', () => {
  const envelope = (data: unknown) =>
    JSON.stringify({ error_code: '0000', error_message: 'ok', total_count: 1, data });
  for (const [encoding, pack] of [
    ['gzip', gzipSync],
    ['deflate', deflateSync],
    ['br', brotliCompressSync],
  ] as const) {
    it(`a ${encoding} body is decompressed`, async () => {
      const wm = await wmWith((_r, res) => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': encoding });
        res.end(pack(Buffer.from(envelope(job({ job_id: 7 })))));
      });
      expect((await wm.getJob('AB12', 7)).jobId).toBe(7);
      expect(server?.seen.at(-1)?.headers['accept-encoding']).toBe('gzip, deflate, br');
    });
  }

  it('the size cap counts decompressed bytes (a small compressed bomb is not read)', async () => {
    server = await startServer((_r, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end(gzipSync(Buffer.alloc(5_000_000, 0x20)));
    });
    const http = new HttpClient({ retries: 0, maxResponseBytes: 100_000 });
    try {
      const e = await failure(
        http.request({ endpoint: 'x', method: 'GET', baseUrl: server.url, path: '/big' }),
      );
      expect(e).toBeInstanceOf(TransportError);
      expect((e as Error).message).toMatch(/larger than the 98 KB limit/);
    } finally {
      await http.close();
    }
  });

  it('a leading byte order mark is dropped before the JSON is read', async () => {
    const wm = await wmWith((_r, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(`\ufeff${envelope(job({ job_id: 8 }))}`);
    });
    expect((await wm.getJob('AB12', 8)).jobId).toBe(8);
  });
});

describe('redirects', () => {
  it('are not followed to another origin; the error names where the service moved', async () => {
    const elsewhere = await startServer((_r, res) => ok(res, job()));
    try {
      const wm = await wmWith((_r, res) => {
        res.writeHead(301, { location: `${elsewhere.url}/api/job/AB12/1?sig=secret` });
        res.end();
      });
      const e = (await failure(wm.getJob('AB12', 1))) as TransportError;
      expect(e).toBeInstanceOf(TransportError);
      expect(e.status).toBe(301);
      expect(e.message).toContain(
        `the service moved to ${elsewhere.url} (HTTP 301, not followed): set the base URL`,
      );
      expect(e.message).not.toContain('secret');
      expect(elsewhere.seen).toEqual([]);
    } finally {
      await elsewhere.close();
    }
  });

  it('a redirect to another path of the same origin says so', async () => {
    const wm = await wmWith((r, res) => {
      res.writeHead(307, { location: `/v2${r.url}` });
      res.end();
    });
    const e = (await failure(wm.getJob('AB12', 1))) as TransportError;
    expect(e.message).toMatch(/moved to another path on http:\/\/127\.0\.0\.1:\d+ \(HTTP 307/);
    expect(server?.seen.filter((s) => s.url.startsWith('/v2'))).toEqual([]);
  });
});

describe('the bot names itself', () => {
  it('every request carries user-agent drm-chatops/<version of package.json>', async () => {
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    const wm = await wmWith((_r, res) => ok(res, job()));
    await wm.getJob('AB12', 1);
    expect(server?.seen.map((s) => s.headers['user-agent'])).toEqual([
      `drm-chatops/${version}`,
      `drm-chatops/${version}`,
    ]);
  });
});

describe('a token refusal sent as an HTTP 200 envelope', () => {
  /** Tokens t1, t2, ...; calls with a token in `expired` answer `refusal`. */
  async function tokenServer(refusal: { error_code: string; error_message: string }, expired: Set<string>) {
    let issued = 0;
    server = await startServer((r, res) => {
      if (r.url.includes('/api/token/')) return ok(res, { token: `Bearer t${++issued}` });
      if (expired.has(String(r.headers.authorization))) return json(res, refusal);
      return ok(res, job());
    });
    api = createApi({ retries: { max: 0 } });
    return api.watermarking(wmCreds(server.url));
  }
  const tokenCalls = () => server?.seen.filter((s) => s.url.includes('/api/token/')).length;

  it('refreshes the token and retries once', async () => {
    const wm = await tokenServer(
      { error_code: 'E401', error_message: 'Token expired' },
      new Set(['Bearer t1']),
    );
    expect((await wm.getJob('AB12', 1)).jobId).toBe(1);
    expect(tokenCalls()).toBe(2);
  });

  it('concurrent calls refused together share one refresh', async () => {
    const wm = await tokenServer(
      { error_code: 'E401', error_message: 'Token expired' },
      new Set(['Bearer t1']),
    );
    await wm.getJob('AB12', 1); // t1 refused, t2 cached
    const tokensBefore = tokenCalls();
    const expired = new Set(['Bearer t2']);
    server?.setHandler((r, res) => {
      if (r.url.includes('/api/token/')) return ok(res, { token: 'Bearer t3' });
      if (expired.has(String(r.headers.authorization)))
        return json(res, { error_code: 'E401', error_message: 'Token expired' });
      return ok(res, job());
    });
    const got = await Promise.all([1, 2, 3, 4].map(() => wm.getJob('AB12', 1)));
    expect(got.map((j) => j.jobId)).toEqual([1, 1, 1, 1]);
    expect(tokenCalls()).toBe((tokensBefore ?? 0) + 1);
  });

  it('does not loop: the same answer with the fresh token is the result', async () => {
    const wm = await tokenServer(
      { error_code: 'X9', error_message: 'invalid auth token' },
      new Set(['Bearer t1', 'Bearer t2', 'Bearer t3']),
    );
    const e = (await failure(wm.getJob('AB12', 1))) as ServiceError;
    expect(e).toBeInstanceOf(ServiceError);
    expect(e.code).toBe('X9');
    expect(tokenCalls()).toBe(2);
  });

  it('a known error condition or a message about something else is not a token refusal', async () => {
    for (const refusal of [
      { error_code: 'E1001', error_message: 'auth_type parameter is invalid' },
      { error_code: 'E777', error_message: 'quota exceeded' },
    ]) {
      const wm = await tokenServer(refusal, new Set(['Bearer t1']));
      expect(await failure(wm.getJob('AB12', 1))).toBeInstanceOf(ServiceError);
      expect(tokenCalls()).toBe(1);
      await api?.close();
      await server?.close();
    }
    api = undefined;
    server = undefined;
  });
});

describe('times in other shapes', () => {
  it('a job with slashed dates and a Unix-milliseconds number is read', async () => {
    const wm = await wmWith((_r, res) =>
      ok(res, job({ reg_time: '2026/11/27 01:02:03', update_time: 1795741323000 }), { time_zone: '+00:00' }),
    );
    const j = await wm.getJob('AB12', 1);
    expect(j.regTime.epochMs).toBe(Date.parse('2026-11-27T01:02:03Z'));
    expect(j.updateTime.epochMs).toBe(Date.parse('2026-11-27T01:02:03Z'));
  });
});

describe('list and item shapes', () => {
  it('a job without a content id, or a task without a recipient name, is read with "" (the rest of the page too)', async () => {
    const wm = await wmWith((r, res) =>
      r.url.includes('/recipient')
        ? ok(
            res,
            [
              { dwm_id: 7, recipient: null, task_status: 'TK002', reg_time: '', update_time: '' },
              { dwm_id: 8, recipient: 'Arte-FR', task_status: 'TK002', reg_time: '', update_time: '' },
            ],
            { total_count: 2 },
          )
        : ok(
            res,
            [
              job({ job_id: 1, content_id: null }),
              job({ job_id: 2 }),
              { ...job({ job_id: 3 }), content_id: undefined },
            ],
            {
              total_count: 3,
            },
          ),
    );
    const page = await wm.searchJobs('AB12', {});
    expect(page.items.map((j) => [j.jobId, j.contentId])).toEqual([
      [1, ''],
      [2, 'c'],
      [3, ''],
    ]);
    const tasks = await wm.getJobTasks('AB12', 1);
    expect(tasks.items.map((t) => [t.dwmId, t.recipient])).toEqual([
      [7, ''],
      [8, 'Arte-FR'],
    ]);
  });

  it('getJob reads a list holding just the job; a longer list is still refused', async () => {
    const wm = await wmWith((r, res) =>
      r.url.includes('/api/job/AB12/2')
        ? ok(res, [job({ job_id: 2 }), job({ job_id: 3 })])
        : ok(res, [job()]),
    );
    expect((await wm.getJob('AB12', 1)).jobId).toBe(1);
    expect(await failure(wm.getJob('AB12', 2))).toBeInstanceOf(ProtocolError);
  });

  it('an empty list sent as "" or {} is an empty page', async () => {
    for (const data of ['', {}]) {
      const wm = await wmWith((_r, res) => ok(res, data, { total_count: 0 }));
      expect((await wm.searchJobs('AB12', {})).items).toEqual([]);
      expect((await wm.getJobTasks('AB12', 1)).items).toEqual([]);
      await api?.close();
      await server?.close();
    }
    api = undefined;
    server = undefined;
  });
});

describe('idle connections', () => {
  it('the bot closes an idle pooled socket itself, before a server that never does (keep-alive below 5 s)', async () => {
    const { createServer } = await import('node:http');
    const web = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
    web.keepAliveTimeout = 0; // the server never closes first (and sends no Keep-Alive hint)
    // Who ended the connection: the client's FIN reaches the server as 'end' on its socket.
    let endedByClient = false;
    web.on('connection', (sock) => sock.on('end', () => (endedByClient = true)));
    await new Promise<void>((r) => web.listen(0, '127.0.0.1', r));
    const { port } = web.address() as { port: number };
    const http = new HttpClient({ retries: 0, poolIdleCloseMs: 600_000 });
    try {
      await http.request({ endpoint: 'x', method: 'GET', baseUrl: `http://127.0.0.1:${port}`, path: '/' });
      // A condition, not a duration: with undici's old 30 s here the test times out and fails.
      await vi.waitFor(() => expect(endedByClient).toBe(true), { timeout: 15_000, interval: 100 });
    } finally {
      await http.close();
      web.closeAllConnections();
      await new Promise<void>((r) => web.close(() => r()));
    }
  }, 20_000);
});

describe('counts written for people', () => {
  it('a total_count with thousands separators ("1,234", "1_234") is read as that number', async () => {
    for (const shown of ['1,234', '1_234', '12,345,678']) {
      const wm = await wmWith((_r, res) => ok(res, [job()], { total_count: shown }));
      expect((await wm.searchJobs('AB12', {})).totalCount).toBe(Number(shown.replace(/[,_]/g, '')));
      await api?.close();
      await server?.close();
    }
    api = undefined;
    server = undefined;
  });

  it('Service API counts (license_cnt, success, ...) with thousands separators are read; decimals are refused', async () => {
    let svc = await svcWith({ license_cnt: '1,234', user_acc_cnt: '12_000', device_acc_cnt: 1 });
    expect(await svc.getMonthlyStats('AB12', '2026-11-01')).toMatchObject({
      licenseCount: 1234,
      userCount: 12000,
    });
    await api?.close();
    await server?.close();
    svc = await svcWith([{ user_id: 'u', license_cnt: '2,500', device_cnt: 1, success: '2,499', fail: '1' }]);
    expect((await svc.listUsers('AB12')).items[0]).toMatchObject({
      licenseCount: 2500,
      success: 2499,
      fail: 1,
    });
    await api?.close();
    await server?.close();
    svc = await svcWith({ license_cnt: '1,234.0', user_acc_cnt: 1, device_acc_cnt: 1 });
    expect(await failure(svc.getMonthlyStats('AB12', '2026-11-01'))).toBeInstanceOf(ProtocolError);
  });

  it('decimals and other groupings are still refused (paging never guesses a total)', async () => {
    for (const shown of ['1,234.5', '1.234', '1,23', '1234,567', '1,234_567', ',123']) {
      const wm = await wmWith((_r, res) => ok(res, [job()], { total_count: shown }));
      const e = await failure(wm.searchJobs('AB12', {}));
      expect(e, shown).toBeInstanceOf(ProtocolError);
      await api?.close();
      await server?.close();
    }
    api = undefined;
    server = undefined;
  });
});

describe('an envelope with camelCase keys', () => {
  it('errorCode, errorMessage, totalCount and timeZone are read when the snake_case keys are absent', async () => {
    const wm = await wmWith((_r, res) =>
      json(res, { errorCode: '0000', errorMessage: 'ok', totalCount: 41, timeZone: '09:00', data: [job()] }),
    );
    const page = await wm.searchJobs('AB12', {});
    expect(page.totalCount).toBe(41);
    expect(page.totalUnknown).toBeUndefined();
    expect(page.timeZone).toBe('+09:00');
    expect(page.items[0]?.regTime.epochMs).toBe(Date.parse('2026-11-27T01:02:03+09:00'));
  });

  it('a refusal in camelCase is a ServiceError with its code and message (HTTP 200 or 4xx)', async () => {
    const wm = await wmWith((r, res) =>
      json(
        res,
        { errorCode: 'E3001', errorMessage: 'no job 9' },
        r.url.includes('/api/job/AB12/9') ? 404 : 200,
      ),
    );
    for (const id of [8, 9]) {
      const e = (await failure(wm.getJob('AB12', id))) as ServiceError;
      expect(e).toBeInstanceOf(ServiceError);
      expect(e.code).toBe('E3001');
      expect(errorCondition(e)).toBe('jobNotFound');
      expect(e.serviceMessage).toBe('no job 9');
    }
  });

  it('the snake_case key wins when both are sent', async () => {
    const wm = await wmWith((_r, res) =>
      json(res, { error_code: '0000', errorCode: 'E9999', total_count: 1, totalCount: 7, data: [job()] }),
    );
    expect((await wm.getJob('AB12', 1)).jobId).toBe(1);
    expect((await wm.searchJobs('AB12', {})).totalCount).toBe(1);
  });
});

describe('a list wrapped in an object', () => {
  for (const key of ['list', 'items', 'rows', 'content', 'data']) {
    it(`data { "${key}": [...] } is read as the list inside (Watermarking and Service API)`, async () => {
      const wm = await wmWith((r, res) =>
        r.url.includes('/recipient')
          ? ok(res, { [key]: [{ dwm_id: 7, recipient: 'Arte', task_status: 'TK002' }] }, { total_count: 1 })
          : ok(res, { [key]: [job({ job_id: 1 }), job({ job_id: 2 })], total: 2 }, { total_count: 2 }),
      );
      expect((await wm.searchJobs('AB12', {})).items.map((j) => j.jobId)).toEqual([1, 2]);
      expect((await wm.getJobTasks('AB12', 1)).items.map((t) => t.recipient)).toEqual(['Arte']);
      await api?.close();
      await server?.close();
      const svc = await svcWith({
        [key]: [{ user_id: 'u', license_cnt: 2, device_cnt: 1, success: 2, fail: 0 }],
      });
      expect((await svc.listUsers('AB12')).items.map((u) => [u.userId, u.licenseCount])).toEqual([['u', 2]]);
    });
  }

  it('an object with two of those arrays is still refused (which one is the list is not known)', async () => {
    const wm = await wmWith((_r, res) => ok(res, { list: [job()], items: [job({ job_id: 2 })] }));
    expect(await failure(wm.searchJobs('AB12', {}))).toBeInstanceOf(ProtocolError);
  });
});

describe('registered recipients sent as one object', () => {
  it('the object is read as a list holding that recipient', async () => {
    const wm = await wmWith((_r, res) =>
      ok(res, { dwm_id: 5, name: 'Arte-FR', description: 'd', reg_time: '2026-11-27T01:02:03' }),
    );
    const got = await wm.registerRecipients('AB12', [{ name: 'Arte-FR', description: 'd' }]);
    expect(got.map((r) => [r.dwmId, r.name, r.description])).toEqual([[5, 'Arte-FR', 'd']]);
  });

  it('an object without the name of the only recipient sent carries that name; with several sent it is refused', async () => {
    const wm = await wmWith((_r, res) => ok(res, { dwm_id: 5, update_time: '2026-11-27T01:02:03' }));
    const got = await wm.registerRecipients('AB12', [{ name: 'Arte-FR', description: 'd' }]);
    expect(got.map((r) => [r.dwmId, r.name, r.description])).toEqual([[5, 'Arte-FR', 'd']]);
    const two = wm.registerRecipients('AB12', [{ name: 'Arte-FR' }, { name: 'Arte-DE' }]);
    expect(await failure(two)).toBeInstanceOf(ProtocolError);
  });

  it('an object without a dwm_id is still refused', async () => {
    const wm = await wmWith((_r, res) => ok(res, { name: 'Arte-FR' }));
    expect(await failure(wm.registerRecipients('AB12', [{ name: 'Arte-FR' }]))).toBeInstanceOf(ProtocolError);
  });
});

describe('a task naming its recipient in "name"', () => {
  it('is read with that name when "recipient" is absent or null; "recipient" wins when sent', async () => {
    const task = (o: Record<string, unknown>) => ({
      task_status: 'TK002',
      reg_time: '',
      update_time: '',
      ...o,
    });
    const wm = await wmWith((_r, res) =>
      ok(
        res,
        [
          task({ dwm_id: 1, name: 'Arte-FR' }),
          task({ dwm_id: 2, recipient: null, name: 'Arte-DE' }),
          task({ dwm_id: 3, recipient: 'Arte-IT', name: 'other' }),
          task({ dwm_id: 4 }),
        ],
        { total_count: 4 },
      ),
    );
    const tasks = await wm.getJobTasks('AB12', 1);
    expect(tasks.items.map((t) => [t.dwmId, t.recipient])).toEqual([
      [1, 'Arte-FR'],
      [2, 'Arte-DE'],
      [3, 'Arte-IT'],
      [4, ''],
    ]);
  });
});

describe('an answer without a body', () => {
  it('HTTP 204 or an empty 200 is the success of a call that reads nothing from its answer', async () => {
    server = await startServer((r, res) => {
      res.writeHead(r.url.includes('/repw') ? 200 : 204);
      res.end();
    });
    api = createApi({ retries: { max: 0 } });
    const svc = api.service(svcCreds(server.url));
    await expect(svc.updateSettings('AB12', { tokenDuration: 60 })).resolves.toBeUndefined();
    await expect(svc.updateSubMember({ memberSeq: 5, status: 'MT002' })).resolves.toBeUndefined();
    await expect(svc.resetSubMemberPassword(5)).resolves.toBeUndefined();
    expect(server.seen.map((s) => s.method)).toEqual(['PUT', 'PUT', 'PUT']);
  });

  it('for a call that needs data it is a ProtocolError saying what was expected', async () => {
    server = await startServer((r, res) => {
      if (r.url.includes('/api/token/')) return ok(res, { token: 'Bearer t' });
      res.writeHead(r.url.includes('/api/job/') ? 200 : 204);
      res.end();
    });
    api = createApi({ retries: { max: 0 } });
    const svcErr = (await failure(api.service(svcCreds(server.url)).getSettings('AB12'))) as ProtocolError;
    expect(svcErr).toBeInstanceOf(ProtocolError);
    expect(svcErr.message).toBe(
      'svc.getSettings answered with an unexpected body at body: HTTP 204 (no content), where a JSON envelope with error_code "0000" and the answer\'s data was expected',
    );
    const wmErr = (await failure(api.watermarking(wmCreds(server.url)).getJob('AB12', 1))) as ProtocolError;
    expect(wmErr).toBeInstanceOf(ProtocolError);
    expect(wmErr.message).toContain(
      'wm.getJob answered with an unexpected body at body: an empty body (HTTP 200), where a JSON envelope',
    );
    const verifyErr = await failure(api.service(svcCreds(server.url)).verify());
    expect(verifyErr).toBeInstanceOf(ProtocolError);
  });
});

describe('a web page instead of an envelope', () => {
  it('an HTML page on a 200 (a proxy or sign-in page) is a ProtocolError saying so, not a JSON error', async () => {
    const wm = await wmWith((r, res) => {
      res.writeHead(200, {
        'content-type': r.url.includes('/2') ? 'text/plain' : 'text/html; charset=utf-8',
      });
      res.end(
        '\n<!DOCTYPE html><html><head><title>Corporate\u0007 sign-in</title></head><body>log in</body></html>',
      );
    });
    for (const id of [1, 2]) {
      const e = (await failure(wm.getJob('AB12', id))) as ProtocolError;
      expect(e).toBeInstanceOf(ProtocolError);
      expect(e.message).toContain(
        'the service answered with a web page titled "Corporate  sign-in" (HTML), not a JSON envelope: check the base URL',
      );
      expect(e.message).toContain('proxy or a login page');
      expect(e.message).not.toContain('not JSON');
    }
  });

  it('other text that is not JSON is still "not JSON"', async () => {
    const wm = await wmWith((_r, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('OK');
    });
    expect(((await failure(wm.getJob('AB12', 1))) as ProtocolError).message).toContain('not JSON (2 bytes)');
  });
});
