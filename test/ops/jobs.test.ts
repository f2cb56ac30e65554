import { describe, expect, it } from 'vitest';
import type { TaskStatusCode } from '../../src/api/codes.js';
import type { Job, JobTask } from '../../src/api/types.js';
import { readCsv } from '../../src/ops/csv.js';
import {
  buildJobQuery,
  isTaskFailed,
  listAllJobs,
  listJobs,
  parseJobStatuses,
  resolveDate,
  summariseJob,
  taskCsv,
} from '../../src/ops/jobs.js';
import { offsetOf } from '../../src/time.js';
import { FakeWatermarkingClient } from '../support/fake-watermarking.js';

const SITE = 'AB12';
const t0 = { raw: '2026-01-15T09:00:00', epochMs: Date.UTC(2026, 0, 15, 9) };

function job(status: Job['status'] = 'DM001', jobId = 1): Job {
  return { jobId, contentId: 'movie-01', status, regTime: t0, updateTime: t0 };
}
function task(dwmId: number, status: TaskStatusCode, cliErrorCode = '0'): JobTask {
  return {
    dwmId,
    recipient: `r-${dwmId}`,
    description: '',
    status,
    cliErrorCode,
    failed: status === 'TK005' || cliErrorCode !== '0',
    regTime: t0,
    updateTime: t0,
  };
}

describe('isTaskFailed', () => {
  it('is TK005 or a cli code other than "0"; an empty code is not reported yet on a task still running', () => {
    expect(isTaskFailed(task(1, 'TK005'))).toBe(true);
    expect(isTaskFailed(task(1, 'TK002', 'E42'))).toBe(true);
    expect(isTaskFailed(task(1, 'TK002', '0'))).toBe(false);
    expect(isTaskFailed(task(1, 'TK000', ''))).toBe(false);
    expect(isTaskFailed(task(1, 'TK001', ''))).toBe(false);
    // The spec's success is "0": other zero forms are other values, so failures (logged once).
    expect(isTaskFailed(task(1, 'TK002', '0000'))).toBe(true);
    expect(isTaskFailed(task(1, 'TK002', ' 00 '))).toBe(true);
    expect(isTaskFailed(task(1, 'TK002', '0010'))).toBe(true);
    // A finished task with no code: the service never said it succeeded.
    expect(isTaskFailed(task(1, 'TK002', ''))).toBe(true);
  });
});

describe('summariseJob', () => {
  const tasks = [
    task(5, 'TK002'),
    task(4, 'TK000', ''),
    task(3, 'TK005', '17'),
    task(2, 'TK001'),
    task(1, 'TK002', '99'),
    task(6, 'TK005', '17'),
  ];

  it('counts statuses and orders failures, then in flight, then complete', () => {
    const s = summariseJob(job('DM001'), tasks, { limit: 4 });
    expect(s.counts).toEqual({ TK000: 1, TK001: 1, TK002: 2, TK005: 2 });
    expect(s.total).toBe(6);
    expect(s.failures.map((t) => t.dwmId)).toEqual([1, 3, 6]);
    expect(s.failureCodes).toEqual([
      { code: '17', count: 2 },
      { code: '99', count: 1 },
    ]);
    expect(s.shown.map((t) => t.dwmId)).toEqual([1, 3, 6, 2]);
    expect(s.hiddenCount).toBe(2);
    expect(s.isTerminal).toBe(false);
    expect(s.failed).toBe(true);
  });

  it('shows everything with a large limit; completed job without failures', () => {
    const ok = [task(1, 'TK002'), task(2, 'TK002')];
    const s = summariseJob(job('DM500'), ok, { limit: 50 });
    expect(s.shown).toHaveLength(2);
    expect(s.hiddenCount).toBe(0);
    expect(s.isTerminal).toBe(true);
    expect(s.failed).toBe(false);
    expect(summariseJob(job('DM600'), ok).failed).toBe(true);
  });

  it('handles a job without tasks', () => {
    const s = summariseJob(job('DM000'), []);
    expect(s).toMatchObject({ total: 0, shown: [], hiddenCount: 0, failed: false });
  });
});

describe('parseJobStatuses', () => {
  it('maps names, codes and groups', () => {
    expect(parseJobStatuses(['ready', 'DM600'])).toEqual({ ok: true, statuses: ['DM000', 'DM600'] });
    expect(parseJobStatuses(['Completed, error'])).toEqual({ ok: true, statuses: ['DM500', 'DM600'] });
    expect(parseJobStatuses(['active'])).toEqual({ ok: true, statuses: ['DM000', 'DM001'] });
    expect(parseJobStatuses(['dm001'])).toEqual({ ok: true, statuses: ['DM001'] });
  });
  it('explains an unknown status', () => {
    const r = parseJobStatuses(['weird']);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.message).toMatch(/"weird" is not a job status.*preprocessing/);
      // The choices in words: no internal code.
      expect(r.message).not.toMatch(/DM\d{3}/);
    }
  });
});

describe('time zones and dates', () => {
  const now = Date.UTC(2026, 6, 1, 23, 30); // 2026-07-01 23:30 UTC
  it('turns an IANA zone into the offset at an instant (DST aware)', () => {
    expect(offsetOf('Asia/Seoul', now)).toBe('+09:00');
    expect(offsetOf('America/New_York', now)).toBe('-04:00');
    expect(offsetOf('America/New_York', Date.UTC(2026, 0, 15))).toBe('-05:00');
    expect(offsetOf('Asia/Kathmandu', now)).toBe('+05:45');
    expect(offsetOf('UTC', now)).toBe('+00:00');
  });
  it('resolves today/yesterday/Nd in the user zone', () => {
    expect(resolveDate('today', 'Asia/Seoul', now)).toEqual({ ok: true, date: '2026-07-02' });
    expect(resolveDate('today', 'UTC', now)).toEqual({ ok: true, date: '2026-07-01' });
    expect(resolveDate('yesterday', 'Asia/Seoul', now)).toEqual({ ok: true, date: '2026-07-01' });
    expect(resolveDate('7d', 'UTC', now)).toEqual({ ok: true, date: '2026-06-24' });
    expect(resolveDate('2026-02-30', 'UTC', now)).toMatchObject({ ok: false });
  });
});

describe('buildJobQuery', () => {
  const now = Date.UTC(2026, 6, 1, 23, 30);
  it('builds the API query with the user offset', () => {
    const r = buildJobQuery(
      {
        statuses: ['error'],
        contentId: ' movie-01 ',
        from: '2026-01-10',
        to: 'today',
        timeZone: 'America/New_York',
      },
      now,
    );
    // The reader's days (New York) are asked for as the UTC days that cover them.
    expect(r).toMatchObject({
      ok: true,
      query: {
        statuses: ['DM600'],
        contentId: 'movie-01',
        from: '2026-01-10',
        to: '2026-07-02',
        timeZone: '-05:00',
      },
      days: { zone: 'America/New_York', from: '2026-01-10', to: '2026-07-01' },
    });
    expect(buildJobQuery({ timeZone: 'Asia/Seoul' }, now)).toEqual({
      ok: true,
      query: { timeZone: '+09:00' },
    });
  });
  it('collects every problem with its field', () => {
    const r = buildJobQuery(
      { statuses: ['nope'], contentId: 'bad id!', from: '2026-05-02', to: '2026-05-01', pageUnit: 5000 },
      now,
    );
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors.map((e) => e.field).sort()).toEqual(['content id', 'from', 'page size', 'status']);
  });
  it('refuses an unknown time zone', () => {
    const r = buildJobQuery({ timeZone: 'Mars/Base' }, now);
    expect(r).toMatchObject({ ok: false, errors: [{ field: 'time zone' }] });
  });
});

describe('listJobs / listAllJobs', () => {
  it('queries the client with the built query and returns the page', async () => {
    const fake = new FakeWatermarkingClient({ siteIds: [SITE] });
    fake.seedJob(SITE, { contentId: 'a', status: 'DM600', regTime: t0, updateTime: t0 }, []);
    fake.seedJob(SITE, { contentId: 'b', status: 'DM500', regTime: t0, updateTime: t0 }, []);
    const r = await listJobs(fake, SITE, { statuses: ['failed'], timeZone: 'Asia/Seoul' });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.page.items.map((j) => j.contentId)).toEqual(['a']);
    expect(fake.callsOf('searchJobs')[0]?.args[0]).toEqual({ statuses: ['DM600'], timeZone: '+09:00' });
    const bad = await listJobs(fake, SITE, { statuses: ['??'] });
    expect(bad.ok).toBe(false);
    expect(fake.callsOf('searchJobs')).toHaveLength(1);
  });
  it('pages through all jobs up to a cap', async () => {
    const fake = new FakeWatermarkingClient({ siteIds: [SITE] });
    for (let i = 0; i < 2300; i++)
      fake.seedJob(SITE, { contentId: `c${i}`, status: 'DM500', regTime: t0, updateTime: t0 }, []);
    const all = await listAllJobs(fake, SITE, {});
    expect(all).toMatchObject({ ok: true, totalCount: 2300, truncated: false });
    if (all.ok) expect(all.jobs).toHaveLength(2300);
    expect(fake.callsOf('searchJobs')).toHaveLength(3);
    const capped = await listAllJobs(fake, SITE, {}, { max: 1500 });
    if (capped.ok) expect([capped.jobs.length, capped.truncated]).toEqual([1500, true]);
  });
});

describe('taskCsv', () => {
  it('exports every task, failures first, formula-guarded', () => {
    const tasks = [
      task(2, 'TK002'),
      { ...task(1, 'TK005', '17'), recipient: '-evil', description: '=cmd()' },
    ];
    const csv = taskCsv(tasks);
    expect(csv).toContain("'=cmd()");
    const read = readCsv(csv);
    if (!read.ok) throw new Error('csv');
    const rows = read.records.map((r) => r.cells);
    expect(rows[0]?.slice(0, 7)).toEqual([
      'dwm_id',
      'recipient',
      'description',
      'task_status',
      'status_name',
      'cli_error_code',
      'failed',
    ]);
    expect(rows[1]?.slice(0, 7)).toEqual(['1', '-evil', '=cmd()', 'TK005', 'FAIL', '17', 'yes']);
    expect(rows[2]?.slice(0, 7)).toEqual(['2', 'r-2', '', 'TK002', 'COMPLETE', '0', 'no']);
    expect(rows[1]?.[9]).toBe('2026-01-15T09:00:00.000Z');
    expect(rows).toHaveLength(3);
  });
});
