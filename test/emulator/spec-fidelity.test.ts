// Spec-fidelity findings on the emulator side: the fixes' tests would have failed before them;
// tests would have failed before them; the account_seq test pins a tolerance the client relies on.
import { SignJWT } from 'jose';
import { afterEach, describe, expect, it } from 'vitest';
import { start, svc, type TestEmu, wm, wmToken } from './helpers.js';

let t: TestEmu | undefined;
afterEach(async () => {
  await t?.emu.close();
  t = undefined;
});

describe('job and task statuses only move forward (DM000 -> DM001 -> DM500/DM600, TK000 -> TK001 -> TK002/TK005)', () => {
  it('forward moves and skipped steps are allowed; going back or leaving an end state is refused', async () => {
    t = await start({ seed: false });
    t.emu.addWatermarkingAccount({ accountId: 'a', accessKey: 'k', siteIds: ['AB12'] });
    const job = t.emu.createJob('AB12', 'movie-1', [{ recipient: 'alice' }, { recipient: 'bob' }]);
    const other = t.emu.createJob('AB12', 'movie-2', [{ recipient: 'alice' }]);
    t.emu.setJobStatus('AB12', other, 'DM600'); // a job may fail before preprocessing
    t.emu.setJobStatus('AB12', job, 'DM001');
    t.emu.setJobStatus('AB12', job, 'DM001'); // same status: only update_time moves
    expect(() => t?.emu.setJobStatus('AB12', job, 'DM000')).toThrow(/DM001 to DM000/);
    t.emu.finishJob('AB12', job);
    expect(t.emu.getJob('AB12', job)?.status).toBe('DM500');
    expect(() => t?.emu.setJobStatus('AB12', job, 'DM001')).toThrow(/DM500 to DM001/);
    expect(() => t?.emu.setJobStatus('AB12', job, 'DM600')).toThrow(/DM500 to DM600/);
    t.emu.setJobStatus('AB12', job, 'DM500');
    const [task] = (await tasksOf(job)) as Array<{ dwm_id: number; task_status: string }>;
    expect(task?.task_status).toBe('TK002');
    expect(() => t?.emu.setTaskStatus('AB12', job, task?.dwm_id ?? 0, 'TK001')).toThrow(/TK002 to TK001/);
  });
});

async function tasksOf(jobId: number): Promise<unknown[]> {
  if (!t) throw new Error('no emulator');
  const token = await (async () => {
    const r = await fetch(`${t?.emu.wmBaseUrl}/api/token/AB12`, {
      headers: { authorization: `Basic ${Buffer.from('a:k').toString('base64')}` },
    });
    return ((await r.json()) as { data: { token: string } }).data.token;
  })();
  const r = await wm(t.emu, token, 'GET', `/api/job/AB12/${jobId}/recipient`);
  return r.body.data as unknown[];
}

describe('content_id of the job search (4.2): "no special characters; maximum 200 bytes"', () => {
  it('accepts letters of any script and refuses symbols and ids over 200 bytes', async () => {
    t = await start();
    const token = await wmToken(t.emu);
    const id = t.emu.createJob('DEMO', '드라마-01', [{ recipient: 'alice' }]);
    const found = await wm(
      t.emu,
      token,
      'GET',
      `/api/job/DEMO?content_id=${encodeURIComponent('드라마-01')}`,
    );
    expect(found.body.error_code).toBe('0000');
    expect(found.body.data.map((j: { job_id: number }) => j.job_id)).toEqual([id]);
    const sym = await wm(t.emu, token, 'GET', `/api/job/DEMO?content_id=${encodeURIComponent('a$b')}`);
    expect(sym.body.error_code).not.toBe('0000');
    const long = await wm(
      t.emu,
      token,
      'GET',
      `/api/job/DEMO?content_id=${encodeURIComponent('가'.repeat(67))}`,
    );
    expect(long.body.error_message).toMatch(/201 bytes/);
  });
});

describe('Service API JWT: account_seq type is not shown in the spec', () => {
  it('the emulator accepts account_seq as a JSON string or number (the client can send either)', async () => {
    t = await start();
    const s = t.emu.demo.service;
    for (const seq of [s.accountSeq, Number(s.accountSeq)]) {
      const jwt = await new SignJWT({ account_id: s.accountId, account_seq: seq })
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject('ServiceAPI')
        .setAudience('AUDIENCE')
        .setIssuer('Service')
        .sign(new TextEncoder().encode(s.secretKey));
      const r = await svc(t.emu, 'GET', '/account/siteId', { jwt, query: { api_code: 'UC011004100' } });
      expect([r.status, r.body.error_code]).toEqual([200, '0000']);
    }
    // A different number is still refused.
    const bad = await new SignJWT({ account_id: s.accountId, account_seq: Number(s.accountSeq) + 1 })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('ServiceAPI')
      .setAudience('AUDIENCE')
      .setIssuer('Service')
      .sign(new TextEncoder().encode(s.secretKey));
    expect(
      (await svc(t.emu, 'GET', '/account/siteId', { jwt: bad, query: { api_code: 'UC011004100' } })).status,
    ).toBe(401);
  });
});
