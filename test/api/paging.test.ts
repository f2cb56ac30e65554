import { describe, expect, it } from 'vitest';
import { collectAll, iteratePackaging, iteratePages, PageWalk } from '../../src/api/paging.js';
import type { PackagingQuery, PackagingRecord, SvcPage } from '../../src/api/types.js';

/** `cap`: the most items the service puts on a page, whatever page_unit asks. */
function source(total: number, reportTotal = true, cap = Number.POSITIVE_INFINITY) {
  const calls: Array<{ pageIndex: number; pageUnit: number }> = [];
  const fetch = async (a: { pageIndex: number; pageUnit: number }) => {
    calls.push(a);
    const unit = Math.min(a.pageUnit, cap);
    const start = (a.pageIndex - 1) * unit;
    const items = Array.from({ length: Math.max(0, Math.min(unit, total - start)) }, (_, i) => start + i);
    return reportTotal ? { items, totalCount: total } : { items };
  };
  return { fetch, calls };
}

describe('iteratePages', () => {
  it('stops at total_count without an extra call', async () => {
    const s = source(20);
    expect(await collectAll(iteratePages(s.fetch, { pageUnit: 10 }))).toEqual([...Array(20).keys()]);
    expect(s.calls.map((c) => c.pageIndex)).toEqual([1, 2]);
  });
  it('stops on a short page when no total is reported', async () => {
    const s = source(25, false);
    expect(await collectAll(iteratePages(s.fetch, { pageUnit: 10 }))).toHaveLength(25);
    expect(s.calls).toHaveLength(3);
  });
  it('stops on an empty page when the total is exact multiple and unknown', async () => {
    const s = source(20, false);
    expect(await collectAll(iteratePages(s.fetch, { pageUnit: 10 }))).toHaveLength(20);
    expect(s.calls).toHaveLength(3);
  });
  it('reads every page of a service that caps the page size below page_unit', async () => {
    const s = source(250, true, 100);
    expect(await collectAll(iteratePages(s.fetch, { pageUnit: 1000 }))).toEqual([...Array(250).keys()]);
    expect(s.calls.map((c) => c.pageIndex)).toEqual([1, 2, 3]);
  });
  it('reads every page of a capped service that leaves total_count out (missing is unknown)', async () => {
    const s = source(250, false, 100);
    expect(await collectAll(iteratePages(s.fetch, { pageUnit: 1000 }))).toHaveLength(250);
    expect(s.calls).toHaveLength(3);
    const lowerBound = async (a: { pageIndex: number; pageUnit: number }) => {
      const p = (await source(250, false, 100).fetch(a)) as { items: number[] };
      // what watermarking.ts reports without total_count: the items seen, flagged as unknown
      return { ...p, totalCount: (a.pageIndex - 1) * 100 + p.items.length, totalUnknown: true };
    };
    expect(await collectAll(iteratePages(lowerBound, { pageUnit: 1000 }))).toHaveLength(250);
  });
  it('reads a service that ignores page_index at most maxPages times', async () => {
    let calls = 0;
    const same = async () => {
      calls++;
      return { items: [1, 2, 3] };
    };
    const walked = await collectAll(iteratePages(same, { pageUnit: 3, maxPages: 5 }));
    expect(walked).toHaveLength(15);
    expect(calls).toBe(5);
  });
  it('stops at maxItems and clamps page size', async () => {
    const s = source(5000);
    const items = await collectAll(iteratePages(s.fetch, { pageUnit: 5000, maxItems: 1500 }));
    expect(items).toHaveLength(1500);
    expect(s.calls[0]?.pageUnit).toBe(1000);
    expect(s.calls).toHaveLength(2);
  });
  it('collectAll caps too', async () => {
    const s = source(100);
    expect(await collectAll(iteratePages(s.fetch, { pageUnit: 10 }), 15)).toHaveLength(15);
  });
});

describe('PageWalk', () => {
  it('keeps only items no earlier page returned, and ends on a page with nothing new', () => {
    const walk = new PageWalk();
    const first = walk.fresh([{ id: 1 }, { id: 2 }], (x) => x.id);
    expect(first.map((x) => x.id)).toEqual([1, 2]);
    expect(walk.next({ items: [{}, {}] }, first.length)).toBe(true);
    // The list shifted by one between the two pages: 2 comes again.
    const second = walk.fresh([{ id: 2 }, { id: 3 }], (x) => x.id);
    expect(second.map((x) => x.id)).toEqual([3]);
    expect(walk.next({ items: [{}, {}] }, second.length)).toBe(true);
    // page_index ignored: the same page again is no progress.
    const third = walk.fresh([{ id: 2 }, { id: 3 }], (x) => x.id);
    expect(third).toEqual([]);
    expect(walk.next({ items: [{}, {}] }, third.length)).toBe(false);
  });
});

describe('iteratePackaging', () => {
  const rec = (i: number): PackagingRecord => ({
    siteId: 'AB12',
    cid: `c${i}`,
    track: 'HD',
    createdTime: { raw: `2026-01-01T00:00:${String(i).padStart(2, '0')}`, epochMs: i },
    updateTime: { raw: `2026-01-02T00:00:${String(i).padStart(2, '0')}`, epochMs: i },
  });
  it('follows the keyset cursor until an empty page', async () => {
    const queries: PackagingQuery[] = [];
    const client = {
      listPackaging: async (_s: string, q: PackagingQuery = {}): Promise<SvcPage<PackagingRecord>> => {
        queries.push(q);
        const after = q.lastCreatedTimeCid ? Number(q.lastCreatedTimeCid.slice(-2)) + 1 : 0;
        const items = Array.from({ length: Math.max(0, Math.min(4, 10 - after)) }, (_, i) => rec(after + i));
        return { items, count: items.length, pageIndex: 1, pageUnit: items.length };
      },
    };
    const all = await collectAll(
      iteratePackaging(client, 'AB12', { searchCondition: 'cid', searchKeyword: 'c' }),
    );
    expect(all.map((r) => r.cid)).toEqual([...Array(10).keys()].map((i) => `c${i}`));
    expect(queries[0]).toEqual({ searchCondition: 'cid', searchKeyword: 'c' });
    expect(queries[1]).toMatchObject({
      lastCreatedTimeCid: '2026-01-01T00:00:03',
      lastUpdateTime: '2026-01-02T00:00:03',
    });
    expect(queries).toHaveLength(4);
  });
  it('stops when the service ignores the cursor', async () => {
    let calls = 0;
    const client = {
      listPackaging: async (): Promise<SvcPage<PackagingRecord>> => {
        calls++;
        return { items: [rec(1)], count: 1, pageIndex: 1, pageUnit: 1 };
      },
    };
    expect(await collectAll(iteratePackaging(client, 'AB12'))).toHaveLength(2);
    expect(calls).toBe(2);
  });
});
