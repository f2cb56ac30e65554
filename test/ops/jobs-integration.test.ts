// Job listing and summaries through the real API client against the emulator.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmulatorHandle, startEmulator } from '../../dev/emulator/index.js';
import { type Api, createApi } from '../../src/api/index.js';
import type { WatermarkingClient } from '../../src/api/types.js';
import { listJobs, summariseJob, taskCsv } from '../../src/ops/jobs.js';

let emu: EmulatorHandle;
let api: Api;
let wm: WatermarkingClient;
const SITE = 'AB12';

beforeAll(async () => {
  emu = await startEmulator();
  api = createApi({ retries: { max: 0 } });
  wm = api.watermarking({ ...emu.demo.watermarking, baseUrl: emu.wmBaseUrl });
});
afterAll(async () => {
  await api.close();
  await emu.close();
});

describe('jobs against the emulator', () => {
  it('summarises a job with failed tasks, failures first', async () => {
    const jobId = emu.createJob(SITE, 'ops-summary-01', [
      { recipient: 'ops-sum-a' },
      { recipient: 'ops-sum-b' },
      { recipient: 'ops-sum-c' },
    ]);
    const tasks0 = await wm.getJobTasks(SITE, jobId);
    const failDwm = tasks0.items.find((t) => t.recipient === 'ops-sum-b')!.dwmId;
    emu.finishJob(SITE, jobId, { failDwmIds: [failDwm], cliErrorCode: 'E-417' });
    const job = await wm.getJob(SITE, jobId);
    const tasks = await wm.getJobTasks(SITE, jobId);
    const s = summariseJob(job, tasks.items, { limit: 2 });
    expect(s).toMatchObject({ total: 3, hiddenCount: 1, isTerminal: true, failed: true });
    expect(s.counts).toMatchObject({ TK002: 2, TK005: 1 });
    expect(s.shown[0]?.recipient).toBe('ops-sum-b');
    expect(s.failureCodes).toEqual([{ code: 'E-417', count: 1 }]);
    expect(taskCsv(tasks.items).split('\r\n')).toHaveLength(1 + 3 + 1);
  });

  it('lists jobs by status word and content id in the user time zone', async () => {
    const jobId = emu.createJob(SITE, 'ops-list-01', [{ recipient: 'ops-list-r' }]);
    emu.setJobStatus(SITE, jobId, 'DM600');
    const r = await listJobs(wm, SITE, {
      statuses: ['error'],
      contentId: 'ops-list-01',
      timeZone: 'Asia/Seoul',
      from: '7d',
    });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.page.timeZone).toBe('+09:00');
    expect(r.page.items.map((j) => j.jobId)).toEqual([jobId]);
    const none = await listJobs(wm, SITE, { statuses: ['completed'], contentId: 'ops-list-01' });
    expect(none.ok && none.page.items).toEqual([]);
  });
});
