/**
 * Packaging keyset paging (endpoint 15) under a service that sends the cursor's own record again
 * and the other records of its second (their stored times finer than the printed seconds): only
 * those already shown are dropped, not the others of the same second; a last record without a
 * time, or a page holding only records already shown, stops with "more may exist".
 */
import { describe, expect, it } from 'vitest';
import type { PackagingQuery, PackagingRecord, ServiceClient } from '../../../src/api/types.js';
import { listPackaging } from '../../../src/ops/service/drm-data.js';

const rec = (cid: string, created: string, updated = created): PackagingRecord => ({
  siteId: 'AB12',
  cid,
  track: 'HD',
  createdTime: { raw: created, epochMs: created ? Date.parse(`${created.replace(' ', 'T')}Z`) : null },
  updateTime: { raw: updated, epochMs: updated ? Date.parse(`${updated.replace(' ', 'T')}Z`) : null },
});

/** A service whose keyset is inclusive: records at or after the cursor's times, `size` a page. */
function inclusiveService(records: PackagingRecord[], size: number): Pick<ServiceClient, 'listPackaging'> {
  return {
    async listPackaging(_siteId: string, q: PackagingQuery = {}) {
      const after = records.filter(
        (r) =>
          q.lastCreatedTimeCid === undefined ||
          r.createdTime.raw > q.lastCreatedTimeCid ||
          (r.createdTime.raw === q.lastCreatedTimeCid && r.updateTime.raw >= (q.lastUpdateTime ?? '')),
      );
      const items = after.slice(0, size);
      return { items, count: items.length, pageIndex: 1, pageUnit: size };
    },
  };
}

describe('packaging keyset paging', () => {
  it("drops only the cursor's own record: the other records of the same second are shown", async () => {
    const T1 = '2026-11-20 10:00:00';
    const T2 = '2026-11-20 10:00:05';
    const records = [rec('a', T1), rec('b', T2), rec('c', T2), rec('d', '2026-11-20 10:00:09')];
    const svc = inclusiveService(records, 3) as ServiceClient;
    const seen: string[] = [];
    let page = await listPackaging(svc, { siteId: 'AB12' });
    for (let n = 0; n < 10; n++) {
      seen.push(...page.items.map((r) => r.cid));
      if (!page.nextCursor) break;
      page = await listPackaging(svc, { cursor: page.nextCursor });
    }
    expect(seen).toEqual(['a', 'b', 'c', 'd']);
  });

  it('a page holding only records already shown (one second fuller than a page) stops with "more may exist"', async () => {
    const T2 = '2026-11-20 10:00:05';
    const svc = inclusiveService(
      [rec('a', T2), rec('b', T2), rec('c', T2), rec('d', '2026-11-20 10:00:09')],
      2,
    );
    let page = await listPackaging(svc as ServiceClient, { siteId: 'AB12' });
    const seen = page.items.map((r) => r.cid);
    for (let n = 0; n < 10 && page.nextCursor; n++) {
      page = await listPackaging(svc as ServiceClient, { cursor: page.nextCursor });
      seen.push(...page.items.map((r) => r.cid));
    }
    expect(seen).toEqual(['a', 'b']);
    expect(page.moreMayExist).toBe(true);
  });

  it('a last record without a time stops with "more may exist", not as the end', async () => {
    const svc = inclusiveService([rec('a', '2026-11-20 10:00:00'), rec('x', '')], 5) as ServiceClient;
    const page = await listPackaging(svc, { siteId: 'AB12' });
    expect(page.items.map((r) => r.cid)).toEqual(['a', 'x']);
    expect(page.nextCursor).toBeNull();
    expect(page.moreMayExist).toBe(true);
  });
});
