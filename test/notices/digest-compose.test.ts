/**
 * The digest's jobs and recipient registrations read their lists page by page: until the list
 * ends, items a later page repeats counted once, only the 24 h window counted, and a list cut at
 * the page cap said (`truncated`).
 */
import { describe, expect, it } from 'vitest';
import type { Job, Recipient, WatermarkingClient, WmPage } from '../../src/api/types.js';
import { composeDigest } from '../../src/notices/digest-compose.js';

const NOW = Date.UTC(2026, 10, 22, 9, 0, 0);
const HOUR = 3600_000;
const PAGE = 1000;

const time = (ms: number) => ({ raw: new Date(ms).toISOString(), epochMs: ms });
const job = (jobId: number, ms: number, status: Job['status'] = 'DM500'): Job => ({
  jobId,
  contentId: `c${jobId}`,
  status,
  regTime: time(ms),
  updateTime: time(ms),
});
const recipient = (dwmId: number, ms: number): Recipient => ({
  dwmId,
  name: `r${dwmId}`,
  description: '',
  regTime: time(ms),
});
const page = <T>(items: T[], pageIndex: number, totalCount: number): WmPage<T> =>
  ({ items, totalCount, pageIndex, pageUnit: PAGE, timeZone: '+00:00' }) as WmPage<T>;

/** A client whose lists are `pages` (page i is pages[i - 1]); the pages asked are recorded. */
function wmOf(jobPages: Job[][], recipientPages: Recipient[][], total: number) {
  const asked: string[] = [];
  const wm = {
    async searchJobs(_site: string, q?: { pageIndex?: number }) {
      const i = q?.pageIndex ?? 1;
      asked.push(`jobs:${i}`);
      return page(jobPages[i - 1] ?? [], i, total);
    },
    async searchRecipients(_site: string, q?: { pageIndex?: number }) {
      const i = q?.pageIndex ?? 1;
      asked.push(`recipients:${i}`);
      return page(recipientPages[i - 1] ?? [], i, total);
    },
    async getJobTasks() {
      return { items: [] };
    },
  } as unknown as WatermarkingClient;
  return { wm, asked };
}

const full = <T>(make: (id: number, ms: number) => T, from: number, ms: number) =>
  Array.from({ length: PAGE }, (_, k) => make(from + k, ms));

describe('digest figures: paged lists', () => {
  it('reads until the list ends; repeats counted once; only the window counted; not truncated', async () => {
    const inside = NOW - 2 * HOUR;
    const before = NOW - 30 * HOUR;
    // Page 2 repeats the last item of page 1 (the list shifted) and holds one item before the window.
    const jobs = [full(job, 1, inside), [job(PAGE, inside), job(5000, before), job(5001, inside, 'DM600')]];
    const recipients = [full(recipient, 1, inside), [recipient(PAGE, inside), recipient(5000, before)]];
    const { wm, asked } = wmOf(jobs, recipients, 2 * PAGE + 2);
    const d = await composeDigest({ channelId: 'C1', zone: 'UTC', siteIds: ['AB12'], wm, now: NOW });
    expect(d.jobs.ok && d.jobs.value.truncated).toBe(false);
    expect(d.jobs.ok && d.jobs.value.byStatus).toMatchObject({ DM500: PAGE, DM600: 1 });
    expect(d.registrations.ok && d.registrations.value).toEqual({
      perSite: [{ siteId: 'AB12', count: PAGE }],
      total: PAGE,
      truncated: false,
    });
    expect(asked.sort()).toEqual(['jobs:1', 'jobs:2', 'recipients:1', 'recipients:2']);
  });

  it('a list longer than the page cap is cut there and said to be', async () => {
    const inside = NOW - HOUR;
    const pages = (n: number) => Array.from({ length: n }, (_, i) => full(job, i * PAGE + 1, inside));
    const rpages = (n: number) => Array.from({ length: n }, (_, i) => full(recipient, i * PAGE + 1, inside));
    const { wm, asked } = wmOf(pages(5), rpages(5), 5 * PAGE);
    const d = await composeDigest({
      channelId: 'C1',
      zone: 'UTC',
      siteIds: ['AB12'],
      wm,
      now: NOW,
      maxPages: 2,
    });
    expect(d.jobs.ok && d.jobs.value.truncated).toBe(true);
    expect(d.jobs.ok && d.jobs.value.byStatus.DM500).toBe(2 * PAGE);
    expect(d.registrations.ok && d.registrations.value.truncated).toBe(true);
    expect(d.registrations.ok && d.registrations.value.total).toBe(2 * PAGE);
    expect(asked.filter((a) => a.startsWith('jobs:'))).toEqual(['jobs:1', 'jobs:2']);
    expect(asked.filter((a) => a.startsWith('recipients:'))).toEqual(['recipients:1', 'recipients:2']);
  });
});
