/**
 * Reading every page from services that page differently from the emulator: pages capped below
 * page_unit, total_count left out, page_index ignored. Scripted clients, no network.
 */
import { describe, expect, it } from 'vitest';
import { parseServiceTime } from '../../src/api/time.js';
import type { Job, Recipient, WatermarkingClient } from '../../src/api/types.js';
import { listAllJobs } from '../../src/ops/jobs.js';
import { findExisting } from '../../src/ops/recipients.js';

const t = parseServiceTime('2026-11-27T01:02:03');
const job = (id: number): Job => ({
  jobId: id,
  contentId: `c${id}`,
  status: 'DM500',
  regTime: t,
  updateTime: t,
});
const rec = (id: number): Recipient => ({ dwmId: id, name: `name${id}`, description: '', regTime: t });

/** Pages of `items` capped at `cap`; `ignoreIndex`: page 1 every time; no total_count. */
function pages<T>(items: T[], cap: number, ignoreIndex = false) {
  let calls = 0;
  const page = (q: { pageIndex?: number; pageUnit?: number } = {}) => {
    calls++;
    const unit = Math.min(q.pageUnit ?? 25, cap);
    const i = ignoreIndex ? 1 : (q.pageIndex ?? 1);
    const slice = items.slice((i - 1) * unit, i * unit);
    return {
      items: slice,
      totalCount: (i - 1) * unit + slice.length,
      totalUnknown: true,
      pageIndex: i,
      pageUnit: q.pageUnit ?? 25,
      timeZone: '+00:00',
    };
  };
  return { page, calls: () => calls };
}

describe('listing every job', () => {
  it('reads all pages of a service capped at 100 without total_count', async () => {
    const p = pages(
      Array.from({ length: 250 }, (_, i) => job(i + 1)),
      100,
    );
    const client = {
      searchJobs: async (_s: string, q: object) => p.page(q),
    } as unknown as WatermarkingClient;
    const r = await listAllJobs(client, 'AB12');
    expect(r.ok && r.jobs.length).toBe(250);
    expect(r.ok && r.totalCount).toBe(250);
    expect(p.calls()).toBe(3);
  });

  it('stops when the service ignores page_index (a page with nothing new)', async () => {
    const p = pages(
      Array.from({ length: 250 }, (_, i) => job(i + 1)),
      100,
      true,
    );
    const client = {
      searchJobs: async (_s: string, q: object) => p.page(q),
    } as unknown as WatermarkingClient;
    const r = await listAllJobs(client, 'AB12');
    expect(r.ok && r.jobs.length).toBe(100);
    expect(p.calls()).toBe(2);
  });
});

describe('finding registered recipients by listing', () => {
  it('sees names on later pages of a capped service, and stops when page_index is ignored', async () => {
    const all = Array.from({ length: 250 }, (_, i) => rec(i + 1));
    for (const [ignoreIndex, found, calls] of [
      [false, ['name1', 'name250'], 3],
      [true, ['name1'], 2],
    ] as const) {
      const p = pages(all, 100, ignoreIndex);
      const client = {
        searchRecipients: async (_s: string, q: object) => p.page(q),
      } as unknown as WatermarkingClient;
      const out = await findExisting(client, 'AB12', ['name1', 'name250'], { strategy: 'list' });
      expect([...out.values()].map((r) => r.name)).toEqual(found);
      expect(p.calls()).toBe(calls);
    }
  });
});
