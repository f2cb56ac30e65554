import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Json, start, type TestEmu, wm } from './helpers.js';

let t: TestEmu;

beforeAll(async () => {
  t = await start({ seed: false });
  t.emu.addWatermarkingAccount({ accountId: 'bench', accessKey: 'bench-key', siteIds: ['BIG1'] });
});
afterAll(async () => {
  await t.emu.close();
});

describe('scale', () => {
  it('100,000 bulk jobs, then an in-flight search returns the right page and total', async () => {
    const done = t.emu.bulkCreateJobs('BIG1', 95_000, { status: 'DM500', tasksPerJob: 1 });
    const inflight = t.emu.bulkCreateJobs('BIG1', 5_000, {
      status: 'DM001',
      tasksPerJob: 2,
      contentPrefix: 'LIVE-',
    });
    expect(done).toHaveLength(95_000);
    expect(inflight).toHaveLength(5_000);
    const r = await fetch(`${t.emu.wmBaseUrl}/api/token/BIG1`, {
      headers: { authorization: `Basic ${Buffer.from('bench:bench-key').toString('base64')}` },
    });
    const token = ((await r.json()) as Json).data.token as string;
    const s = await wm(t.emu, token, 'GET', '/api/job/BIG1?job_status=DM000&job_status=DM001&page_unit=1000');
    expect(s.body.total_count).toBe(5_000);
    expect(s.body.data).toHaveLength(1000);
    expect(s.body.data.every((j: Json) => j.job_status === 'DM001')).toBe(true);
    // Newest first: the last created in-flight job leads.
    expect(s.body.data[0].job_id).toBe(inflight[inflight.length - 1]);
    const last = await wm(t.emu, token, 'GET', '/api/job/BIG1?job_status=DM001&page_unit=1000&page_index=5');
    expect(last.body.data).toHaveLength(1000);
    expect(last.body.data[999].job_id).toBe(inflight[0]);
    const tasks = await wm(t.emu, token, 'GET', `/api/job/BIG1/${inflight[0]}/recipient`);
    expect(tasks.body.total_count).toBe(2);
    expect(tasks.body.data.every((x: Json) => x.task_status === 'TK001')).toBe(true);
    const one = await wm(t.emu, token, 'GET', '/api/job/BIG1?content_id=LIVE-000042');
    expect(one.body.total_count).toBe(1);
    const all = await wm(t.emu, token, 'GET', '/api/job/BIG1?page_unit=1');
    expect(all.body.total_count).toBe(100_000);
    // The recipients used by in-flight tasks are in use.
    const rid = tasks.body.data[0].dwm_id;
    expect(
      (await wm(t.emu, token, 'PUT', `/api/recipient/BIG1/${rid}`, { description: 'x' })).body.error_code,
    ).toBe('E2003');
  });
});
