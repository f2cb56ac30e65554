import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, type Json, start, T0, type TestEmu, wm, wmToken } from './helpers.js';

let t: TestEmu;
let token: string;

beforeAll(async () => {
  t = await start({ tokenTtlMs: 7_200_000 });
  token = await wmToken(t.emu);
});
afterAll(async () => {
  await t.emu.close();
});

describe('4.1 token and authentication', () => {
  it('issues a Bearer token for valid Basic credentials', async () => {
    expect(token).toMatch(/^Bearer [A-Za-z0-9_-]{20,}$/);
  });

  it('401 for missing, malformed or wrong credentials', async () => {
    const url = `${t.emu.wmBaseUrl}/api/token/DEMO`;
    expect((await fetch(url)).status).toBe(401);
    expect((await fetch(url, { headers: { authorization: 'Basic !!!' } })).status).toBe(401);
    expect(
      (await fetch(url, { headers: { authorization: basic('demo-distributor', 'wrong') } })).status,
    ).toBe(401);
    expect((await fetch(url, { headers: { authorization: basic('nobody', 'x') } })).status).toBe(401);
  });

  it('403 for a forbidden account, E1002 for a site the account does not own', async () => {
    t.emu.addWatermarkingAccount({
      accountId: 'blocked',
      accessKey: 'k1',
      siteIds: ['DEMO'],
      forbidden: true,
    });
    const r = await fetch(`${t.emu.wmBaseUrl}/api/token/DEMO`, {
      headers: { authorization: basic('blocked', 'k1') },
    });
    expect(r.status).toBe(403);
    t.emu.addWatermarkingAccount({ accountId: 'other', accessKey: 'k2', siteIds: ['ZZ99'] });
    const r2 = await fetch(`${t.emu.wmBaseUrl}/api/token/DEMO`, {
      headers: { authorization: basic('other', 'k2') },
    });
    expect(r2.status).toBe(200);
    expect(((await r2.json()) as Json).error_code).toBe('E1002');
  });

  it('401 without a token, with an unknown token, and with a token of another site', async () => {
    expect((await fetch(`${t.emu.wmBaseUrl}/api/job/DEMO`)).status).toBe(401);
    expect((await wm(t.emu, 'Bearer nope', 'GET', '/api/job/DEMO')).status).toBe(401);
    expect((await wm(t.emu, 'Basic abc', 'GET', '/api/job/DEMO')).status).toBe(401);
    const ab12 = await wmToken(t.emu, 'AB12');
    expect((await wm(t.emu, ab12, 'GET', '/api/job/DEMO')).status).toBe(401);
    expect((await wm(t.emu, ab12, 'GET', '/api/job/AB12')).status).toBe(200);
  });

  it('tokens expire after the TTL on the emulator clock, and expireTokens() revokes all', async () => {
    const tok = await wmToken(t.emu);
    expect((await wm(t.emu, tok, 'GET', '/api/job/DEMO')).status).toBe(200);
    t.clock.t += 7_200_000;
    expect((await wm(t.emu, tok, 'GET', '/api/job/DEMO')).status).toBe(401);
    t.clock.t = T0;
    const tok2 = await wmToken(t.emu);
    t.emu.expireTokens();
    expect((await wm(t.emu, tok2, 'GET', '/api/job/DEMO')).status).toBe(401);
    token = await wmToken(t.emu);
  });
});

describe('4.5-4.8 recipients', () => {
  it('registers recipients and returns them with ids and times in the requested zone', async () => {
    const r = await wm(t.emu, token, 'POST', '/api/recipient/DEMO?time_zone=%2B09:00', {
      recipients: [{ name: 'Alpha.One', description: 'first' }, { name: 'beta_two' }],
    });
    expect(r.status).toBe(200);
    expect(r.body.error_code).toBe('0000');
    expect(r.body.time_zone).toBe('+09:00');
    expect(r.body.data).toHaveLength(2);
    expect(r.body.data[0]).toMatchObject({
      name: 'Alpha.One',
      description: 'first',
      reg_time: '2026-11-22T21:00:00',
    });
    expect(typeof r.body.data[0].dwm_id).toBe('number');
    expect(r.body.data[1].description).toBe('');
  });

  it('refuses names breaking the character and length rules, and long descriptions', async () => {
    const before = t.emu.recipientCount('DEMO');
    for (const recipients of [
      [{ name: 'has space' }],
      [{ name: 'émile' }],
      [{ name: 'a/b' }],
      [{ name: '' }],
      [{ name: 'x'.repeat(129) }],
      [{ name: 'ok-name', description: 'd'.repeat(51) }],
      [{ description: 'no name' }],
    ]) {
      const r = await wm(t.emu, token, 'POST', '/api/recipient/DEMO', { recipients });
      expect(r.body.error_code, JSON.stringify(recipients).slice(0, 40)).toBe('E1001');
    }
    const okLong = await wm(t.emu, token, 'POST', '/api/recipient/DEMO', {
      recipients: [{ name: 'y'.repeat(128), description: 'd'.repeat(50) }],
    });
    expect(okLong.body.error_code).toBe('0000');
    expect(t.emu.recipientCount('DEMO')).toBe(before + 1);
  });

  it('refuses duplicates case-insensitively (existing or within the request), registering nothing', async () => {
    const before = t.emu.recipientCount('DEMO');
    const r = await wm(t.emu, token, 'POST', '/api/recipient/DEMO', {
      recipients: [{ name: 'fresh-one' }, { name: 'NETFLIX-emea' }],
    });
    expect(r.body.error_code).toBe('E2002');
    expect(r.body.error_message).toContain('NETFLIX-emea');
    const r2 = await wm(t.emu, token, 'POST', '/api/recipient/DEMO', {
      recipients: [{ name: 'Twin' }, { name: 'twin' }],
    });
    expect(r2.body.error_code).toBe('E2002');
    expect(t.emu.recipientCount('DEMO')).toBe(before);
  });

  it('accepts 150 and refuses 151 recipients in one request', async () => {
    const mk = (n: number, p: string) => Array.from({ length: n }, (_, i) => ({ name: `${p}-${i}` }));
    const before = t.emu.recipientCount('FILM');
    const filmToken = await wmToken(t.emu, 'FILM');
    const over = await wm(t.emu, filmToken, 'POST', '/api/recipient/FILM', { recipients: mk(151, 'over') });
    expect(over.body.error_code).toBe('E2001');
    expect(t.emu.recipientCount('FILM')).toBe(before);
    const exact = await wm(t.emu, filmToken, 'POST', '/api/recipient/FILM', { recipients: mk(150, 'exact') });
    expect(exact.body.error_code).toBe('0000');
    expect(exact.body.data).toHaveLength(150);
    expect(t.emu.recipientCount('FILM')).toBe(before + 150);
  });

  it('refuses an empty list, a missing list and a non-JSON body', async () => {
    expect((await wm(t.emu, token, 'POST', '/api/recipient/DEMO', { recipients: [] })).body.error_code).toBe(
      'E1001',
    );
    expect((await wm(t.emu, token, 'POST', '/api/recipient/DEMO', {})).body.error_code).toBe('E1001');
    const r = await fetch(`${t.emu.wmBaseUrl}/api/recipient/DEMO`, {
      method: 'POST',
      headers: { authorization: token, 'content-type': 'application/json' },
      body: '{oops',
    });
    expect(((await r.json()) as Json).error_code).toBe('E1001');
  });

  it('rule 4: a job task given by name in another case uses the original dwmId', async () => {
    const orig = (await wm(t.emu, token, 'GET', '/api/recipient/DEMO?search_keyword=hbo.max_us')).body
      .data[0];
    const jobId = t.emu.createJob('DEMO', 'RULE4-CHECK', [{ recipient: 'HBO.MAX_US' }]);
    const tasks = await wm(t.emu, token, 'GET', `/api/job/DEMO/${jobId}/recipient`);
    expect(tasks.body.data[0].dwm_id).toBe(orig.dwm_id);
    expect(tasks.body.data[0].recipient).toBe('hbo.max_us');
  });

  it('detail returns update_time; unknown id is E2004; a non-numeric id is E1001', async () => {
    const list = await wm(t.emu, token, 'GET', '/api/recipient/DEMO?search_keyword=Sky-UK');
    const id = list.body.data[0].dwm_id;
    const d = await wm(t.emu, token, 'GET', `/api/recipient/DEMO/${id}?time_zone=-05:00`);
    expect(d.body.time_zone).toBe('-05:00');
    expect(Object.keys(d.body.data).sort()).toEqual([
      'description',
      'dwm_id',
      'name',
      'reg_time',
      'update_time',
    ]);
    expect((await wm(t.emu, token, 'GET', '/api/recipient/DEMO/999999')).body.error_code).toBe('E2004');
    expect((await wm(t.emu, token, 'GET', '/api/recipient/DEMO/abc')).body.error_code).toBe('E1001');
  });

  it('PUT modifies name/description, needs a field, refuses duplicates and unknown ids', async () => {
    const reg = await wm(t.emu, token, 'POST', '/api/recipient/DEMO', {
      recipients: [{ name: 'to-modify' }],
    });
    const id = reg.body.data[0].dwm_id;
    t.clock.t = T0 + 3_600_000;
    const r = await wm(t.emu, token, 'PUT', `/api/recipient/DEMO/${id}?time_zone=%2B01:00`, {
      name: 'To-Modify',
      description: 'renamed',
    });
    expect(r.body).toEqual({
      error_code: '0000',
      error_message: 'Success',
      time_zone: '+01:00',
      data: { dwm_id: id, update_time: '2026-11-22T14:00:00' },
    });
    t.clock.t = T0;
    const d = await wm(t.emu, token, 'GET', `/api/recipient/DEMO/${id}`);
    expect(d.body.data).toMatchObject({
      name: 'To-Modify',
      description: 'renamed',
      update_time: '2026-11-22T13:00:00',
    });
    expect((await wm(t.emu, token, 'PUT', `/api/recipient/DEMO/${id}`, {})).body.error_code).toBe('E1001');
    expect(
      (await wm(t.emu, token, 'PUT', `/api/recipient/DEMO/${id}`, { name: 'sky-uk' })).body.error_code,
    ).toBe('E2002');
    expect(
      (await wm(t.emu, token, 'PUT', `/api/recipient/DEMO/${id}`, { name: 'bad name' })).body.error_code,
    ).toBe('E1001');
    expect(
      (await wm(t.emu, token, 'PUT', '/api/recipient/DEMO/999999', { description: 'x' })).body.error_code,
    ).toBe('E2004');
  });

  it('PUT is refused while a task of the recipient is TK000/TK001, allowed once it ends', async () => {
    const reg = await wm(t.emu, token, 'POST', '/api/recipient/DEMO', { recipients: [{ name: 'busy-one' }] });
    const id = reg.body.data[0].dwm_id;
    const jobId = t.emu.createJob('DEMO', 'BUSY-JOB', [{ recipient: id }]);
    expect(
      (await wm(t.emu, token, 'PUT', `/api/recipient/DEMO/${id}`, { description: 'x' })).body.error_code,
    ).toBe('E2003');
    t.emu.setTaskStatus('DEMO', jobId, id, 'TK001');
    expect(
      (await wm(t.emu, token, 'PUT', `/api/recipient/DEMO/${id}`, { description: 'x' })).body.error_code,
    ).toBe('E2003');
    t.emu.finishJob('DEMO', jobId);
    expect(
      (await wm(t.emu, token, 'PUT', `/api/recipient/DEMO/${id}`, { description: 'x' })).body.error_code,
    ).toBe('0000');
  });

  it('search: keywords (any, case-insensitive substring), paging, total_count, newest first', async () => {
    const all = await wm(t.emu, token, 'GET', '/api/recipient/DEMO?page_unit=1000');
    const total = all.body.total_count;
    expect(all.body.data).toHaveLength(total);
    const times = all.body.data.map((r: Json) => r.reg_time);
    expect([...times].sort().reverse()).toEqual(times);
    const page1 = await wm(t.emu, token, 'GET', '/api/recipient/DEMO');
    expect(page1.body.data).toHaveLength(25);
    expect(page1.body.total_count).toBe(total);
    const page2 = await wm(t.emu, token, 'GET', '/api/recipient/DEMO?page_unit=10&page_index=2');
    expect(page2.body.data.map((r: Json) => r.dwm_id)).toEqual(
      all.body.data.slice(10, 20).map((r: Json) => r.dwm_id),
    );
    const beyond = await wm(t.emu, token, 'GET', '/api/recipient/DEMO?page_unit=10&page_index=999');
    expect(beyond.body.data).toEqual([]);
    expect(beyond.body.total_count).toBe(total);
    const kw = await wm(t.emu, token, 'GET', '/api/recipient/DEMO?search_keyword=NETFLIX&search_keyword=-kr');
    expect(kw.body.data.map((r: Json) => r.name).sort()).toEqual(['Netflix-EMEA', 'Tving-KR']);
    expect(kw.body.total_count).toBe(2);
  });

  it('search: page_unit over 1000, zero or not a number, page_index 0 are E1001', async () => {
    for (const q of ['page_unit=1001', 'page_unit=0', 'page_unit=ten', 'page_index=0', 'from=2026-13-01']) {
      expect((await wm(t.emu, token, 'GET', `/api/recipient/DEMO?${q}`)).body.error_code, q).toBe('E1001');
    }
  });

  it('search: from/to are days in the requested time zone', async () => {
    t.clock.t = Date.UTC(2026, 10, 22, 23, 30, 0); // 2026-11-23 08:30 at +09:00
    const late = await wmToken(t.emu);
    const reg = await wm(t.emu, late, 'POST', '/api/recipient/DEMO', {
      recipients: [{ name: 'late-night' }],
    });
    t.clock.t = T0;
    expect(reg.body.data[0].reg_time).toBe('2026-11-22T23:30:00');
    const utc = await wm(
      t.emu,
      token,
      'GET',
      '/api/recipient/DEMO?from=2026-11-23&search_keyword=late-night',
    );
    expect(utc.body.total_count).toBe(0);
    const tokyo = await wm(
      t.emu,
      token,
      'GET',
      '/api/recipient/DEMO?from=2026-11-23&to=2026-11-23&search_keyword=late-night&time_zone=%2B09:00',
    );
    expect(tokyo.body.total_count).toBe(1);
    expect(tokyo.body.data[0].reg_time).toBe('2026-11-23T08:30:00');
  });
});

describe('4.2-4.4 jobs', () => {
  it('search by repeated job_status with total_count; in-flight only', async () => {
    const r = await wm(t.emu, token, 'GET', '/api/job/DEMO?job_status=DM000&job_status=DM001&page_unit=1000');
    expect(r.body.error_code).toBe('0000');
    expect(r.body.total_count).toBe(r.body.data.length);
    expect(r.body.total_count).toBeGreaterThanOrEqual(30);
    expect(new Set(r.body.data.map((j: Json) => j.job_status))).toEqual(new Set(['DM000', 'DM001']));
    expect(Object.keys(r.body.data[0]).sort()).toEqual([
      'content_id',
      'job_id',
      'job_status',
      'reg_time',
      'update_time',
    ]);
  });

  it('seed has jobs in every status and failed tasks with cli_error_code', async () => {
    for (const s of ['DM000', 'DM001', 'DM500', 'DM600']) {
      const r = await wm(t.emu, token, 'GET', `/api/job/DEMO?job_status=${s}`);
      expect(r.body.total_count, s).toBeGreaterThanOrEqual(15);
    }
    const failed = await wm(t.emu, token, 'GET', '/api/job/DEMO?job_status=DM600&page_unit=1');
    const tasks = await wm(t.emu, token, 'GET', `/api/job/DEMO/${failed.body.data[0].job_id}/recipient`);
    const bad = tasks.body.data.filter((x: Json) => x.task_status === 'TK005');
    expect(bad.length).toBeGreaterThan(0);
    expect(bad[0].cli_error_code).toMatch(/^E-\d+$/);
  });

  it('content_id is an exact match; invalid content ids and statuses are E1001', async () => {
    const id = t.emu.createJob('DEMO', 'EXACT-MATCH.v1', [{ recipient: 'Sky-UK' }]);
    t.emu.createJob('DEMO', 'EXACT-MATCH.v10', [{ recipient: 'Sky-UK' }]);
    const r = await wm(t.emu, token, 'GET', '/api/job/DEMO?content_id=EXACT-MATCH.v1');
    expect(r.body.total_count).toBe(1);
    expect(r.body.data[0].job_id).toBe(id);
    for (const q of [
      'content_id=has%20space',
      `content_id=${'a'.repeat(201)}`,
      'job_status=DM999',
      'to=2026-02-30',
    ]) {
      expect((await wm(t.emu, token, 'GET', `/api/job/DEMO?${q}`)).body.error_code, q).toBe('E1001');
    }
  });

  it('detail and tasks in the requested zone; the unencoded + (a space) is read as +', async () => {
    const id = t.emu.createJob('DEMO', 'TZ-JOB', [{ recipient: 'Sky-UK' }, { recipient: 'Sky.DE' }], {
      regTimeMs: Date.UTC(2026, 10, 20, 20, 15, 0),
    });
    const d = await wm(t.emu, token, 'GET', `/api/job/DEMO/${id}?time_zone=+05:30`);
    expect(d.body.time_zone).toBe('+05:30');
    expect(d.body.data).toMatchObject({
      job_id: id,
      content_id: 'TZ-JOB',
      job_status: 'DM000',
      reg_time: '2026-11-21T01:45:00',
    });
    const neg = await wm(t.emu, token, 'GET', `/api/job/DEMO/${id}?time_zone=-08:00`);
    expect(neg.body.data.reg_time).toBe('2026-11-20T12:15:00');
    const def = await wm(t.emu, token, 'GET', `/api/job/DEMO/${id}`);
    expect(def.body.time_zone).toBe('+00:00');
    expect(def.body.data.reg_time).toBe('2026-11-20T20:15:00');
    const tasks = await wm(t.emu, token, 'GET', `/api/job/DEMO/${id}/recipient?time_zone=%2B09:00`);
    expect(tasks.body.total_count).toBe(2);
    expect(tasks.body.data[0]).toMatchObject({
      recipient: 'Sky-UK',
      task_status: 'TK000',
      cli_error_code: '0',
    });
    expect((await wm(t.emu, token, 'GET', `/api/job/DEMO/${id}?time_zone=9`)).body.error_code).toBe('E1001');
  });

  it('unknown job is E3001; a non-numeric job id is E1001', async () => {
    expect((await wm(t.emu, token, 'GET', '/api/job/DEMO/424242')).body.error_code).toBe('E3001');
    expect((await wm(t.emu, token, 'GET', '/api/job/DEMO/424242/recipient')).body.error_code).toBe('E3001');
    expect((await wm(t.emu, token, 'GET', '/api/job/DEMO/x1')).body.error_code).toBe('E1001');
  });

  it('control: setTaskStatus/setJobStatus/finishJob update statuses, update_time and the status index', async () => {
    const id = t.emu.createJob('DEMO', 'CONTROL-JOB', [{ recipient: 'Sky-UK' }, { recipient: 'Hulu-US' }]);
    const tasks = (await wm(t.emu, token, 'GET', `/api/job/DEMO/${id}/recipient`)).body.data;
    t.clock.t = T0 + 60_000;
    t.emu.setJobStatus('DEMO', id, 'DM001');
    t.emu.setTaskStatus('DEMO', id, tasks[0].dwm_id, 'TK001');
    expect(t.emu.getJob('DEMO', id)).toMatchObject({ status: 'DM001', updateTimeMs: T0 + 60_000 });
    const inflight = await wm(t.emu, token, 'GET', '/api/job/DEMO?job_status=DM001&content_id=CONTROL-JOB');
    expect(inflight.body.total_count).toBe(1);
    t.clock.t = T0 + 120_000;
    t.emu.finishJob('DEMO', id, { failDwmIds: [tasks[1].dwm_id], cliErrorCode: 'E-417' });
    t.clock.t = T0;
    expect(t.emu.getJob('DEMO', id)?.status).toBe('DM600');
    const after = (await wm(t.emu, token, 'GET', `/api/job/DEMO/${id}/recipient`)).body.data;
    expect(after.map((x: Json) => [x.task_status, x.cli_error_code])).toEqual([
      ['TK002', '0'],
      ['TK005', 'E-417'],
    ]);
    expect(after[0].update_time).toBe('2026-11-22T12:02:00');
    expect(
      (await wm(t.emu, token, 'GET', '/api/job/DEMO?job_status=DM001&content_id=CONTROL-JOB')).body
        .total_count,
    ).toBe(0);
    expect(
      (await wm(t.emu, token, 'GET', '/api/job/DEMO?job_status=DM600&content_id=CONTROL-JOB')).body
        .total_count,
    ).toBe(1);
    expect(t.emu.getJob('DEMO', 987654)).toBeUndefined();
  });

  it('job search from/to filters on registration day', async () => {
    t.emu.createJob('DEMO', 'OLD-JOB', [{ recipient: 'Sky-UK' }], { regTimeMs: Date.UTC(2025, 0, 15, 10) });
    const r = await wm(t.emu, token, 'GET', '/api/job/DEMO?from=2025-01-15&to=2025-01-15');
    expect(r.body.data.map((j: Json) => j.content_id)).toEqual(['OLD-JOB']);
    expect(
      (await wm(t.emu, token, 'GET', '/api/job/DEMO?from=2025-01-16&to=2025-01-15')).body.error_code,
    ).toBe('E1001');
  });

  it('requestCounts counts by route template', async () => {
    t.emu.resetRequestCounts();
    await wm(t.emu, token, 'GET', '/api/job/DEMO');
    await wm(t.emu, token, 'GET', '/api/job/AB12');
    await wm(t.emu, token, 'GET', '/api/job/DEMO/1001');
    expect(t.emu.requestCounts()).toEqual({
      'GET /wm/api/job/:siteId': 2,
      'GET /wm/api/job/:siteId/:jobId': 1,
    });
  });
});
