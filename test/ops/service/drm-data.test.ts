import { describe, expect, it } from 'vitest';
import { readCsv } from '../../../src/ops/csv.js';
import {
  CURSOR_MAX_CHARS,
  decodeCursor,
  encodeCursor,
  exportAll,
  listLicenses,
  listPackaging,
  toCidQuery,
  toDeviceQuery,
  toLicenseQuery,
  toPackagingQuery,
  toUserQuery,
} from '../../../src/ops/service/drm-data.js';
import { FakeServiceClient, tv } from '../../support/fake-service.js';

function license(i: number) {
  return {
    cid: i === 0 ? '=HYPERLINK("x")' : `cid-${i}`,
    status: 'success' as const,
    errorCode: '0000',
    drmType: 'Widevine',
    userId: `user-${i % 7}`,
    deviceId: `dev-${i}`,
    deviceModel: 'Pixel',
    licenseType: 'token',
    platformName: 'Android',
    regTime: tv('2026-01-05T10:00:00Z'),
  };
}

describe('filters to queries', () => {
  it('maps one search option to search_condition + search_keyword', () => {
    expect(toLicenseQuery({ cid: 'movie-1', status: 'fail', from: '2026-01-01', pageSize: 50 })).toEqual({
      pageUnit: 50,
      from: '2026-01-01',
      searchStatus: 'fail',
      searchCondition: 'cid',
      searchKeyword: 'movie-1',
    });
    expect(toLicenseQuery({ drm: 'widevine' })).toEqual({
      searchCondition: 'drm_type',
      searchKeyword: 'Widevine',
    });
    expect(toLicenseQuery({ user: 'u1' })).toMatchObject({ searchCondition: 'user_id' });
    expect(toLicenseQuery({ device: 'd1' })).toMatchObject({ searchCondition: 'device_id' });
    expect(toLicenseQuery({ model: 'iPhone 15' })).toMatchObject({
      searchCondition: 'device_model',
      searchKeyword: 'iPhone 15',
    });
  });

  it('refuses two search options at once with a clear message', () => {
    expect(() => toLicenseQuery({ cid: 'a', user: 'b' })).toThrow(
      /Only one of cid:, drm:, user:, device:, model: can be used at a time \(got cid: and user:\)/,
    );
    expect(() => toPackagingQuery({ drm: 'NCG', model: 'x' })).toThrow(/Only one of/);
  });

  it('refuses invalid dates, range, status, drm type and empty keywords', () => {
    expect(() => toLicenseQuery({ from: '2026-02-30' })).toThrow(/not a real calendar date/);
    expect(() => toLicenseQuery({ to: '20260101' })).toThrow(/yyyy-MM-dd/);
    expect(() => toLicenseQuery({ from: '2026-03-01', to: '2026-02-01' })).toThrow(/after the end date/);
    expect(() => toLicenseQuery({ status: 'ok' as 'fail' })).toThrow(/success or fail/);
    expect(() => toLicenseQuery({ drm: 'Clearkey' })).toThrow(/PlayReady, Widevine, FairPlay, NCG/);
    expect(() => toLicenseQuery({ cid: '  ' })).toThrow(/content id is empty/);
    expect(() => toCidQuery({ status: 'nope' as 'fail' })).toThrow(/success or fail/);
  });

  it('maps users/devices/cids filters', () => {
    expect(toUserQuery({ user: 'alice', page: 3 })).toEqual({ pageIndex: 3, searchKeyword: 'alice' });
    expect(toDeviceQuery({ device: 'd-1', to: '2026-01-31' })).toEqual({
      to: '2026-01-31',
      searchKeyword: 'd-1',
    });
    expect(toCidQuery({ status: 'success' })).toEqual({ searchStatus: 'success' });
  });
});

describe('listLicenses', () => {
  it('returns one page with hasMore', async () => {
    const c = new FakeServiceClient();
    c.licenses = Array.from({ length: 30 }, (_, i) => license(i));
    const p = await listLicenses(c, 'AB12', { user: 'user-1' });
    expect(p.items).toHaveLength(25);
    expect(p.hasMore).toBe(true);
    expect(c.callsOf('listLicenses')[0]?.args).toEqual([
      'AB12',
      { searchCondition: 'user_id', searchKeyword: 'user-1' },
    ]);
    await expect(listLicenses(c, 'bad!', {})).rejects.toThrow(/site id/i);
  });
});

describe('exportAll', () => {
  it('fetches every page at page_unit 1000 with progress and the exact row count', async () => {
    const c = new FakeServiceClient();
    c.licenses = Array.from({ length: 2345 }, (_, i) => license(i));
    const progress: unknown[] = [];
    const r = await exportAll('licenses', c, 'AB12', toLicenseQuery({ from: '2026-01-01', page: 9 }), {
      onProgress: (p) => {
        progress.push(p);
      },
    });
    expect(r.rowCount).toBe(2345);
    expect(r.pages).toBe(3);
    expect(r.truncated).toBe(false);
    expect(progress).toEqual([
      { kind: 'licenses', pages: 1, rows: 1000 },
      { kind: 'licenses', pages: 2, rows: 2000 },
      { kind: 'licenses', pages: 3, rows: 2345 },
    ]);
    const calls = c.callsOf('listLicenses').map((x) => x.args[1]);
    expect(calls).toEqual([1, 2, 3].map((pageIndex) => ({ from: '2026-01-01', pageIndex, pageUnit: 1000 })));
    const parsed = readCsv(r.csv, { unguard: false });
    if (!parsed.ok) throw new Error('csv');
    expect(parsed.records).toHaveLength(2346);
    expect(parsed.records[0]?.cells[0]).toBe('cid');
    // Formula injection guard: the cell starting with "=" is written with an apostrophe.
    expect(parsed.records[1]?.cells[0]).toBe(`'=HYPERLINK("x")`);
    expect(parsed.records[1]?.cells.at(-1)).toBe('2026-01-05T10:00:00.000Z');
    expect(r.filename).toBe('drm-licenses-AB12.csv');
  });

  it('stops at maxRows and says truncated only when rows were left out', async () => {
    const c = new FakeServiceClient();
    c.users = Array.from({ length: 2500 }, (_, i) => ({
      userId: `u${i}`,
      licenseCount: 1,
      deviceCount: 1,
      success: 1,
      fail: 0,
    }));
    const r = await exportAll('users', c, 'AB12', {}, { maxRows: 1500 });
    expect(r).toMatchObject({ rowCount: 1500, truncated: true, pages: 2 });

    const exact = await exportAll('users', c, 'AB12', {}, { maxRows: 2000 });
    expect(exact).toMatchObject({ rowCount: 2000, truncated: true });
    c.users = c.users.slice(0, 2000);
    const done = await exportAll('users', c, 'AB12', {}, { maxRows: 2000 });
    expect(done).toMatchObject({ rowCount: 2000, truncated: false });
  });

  it('exports an empty range as a header only and covers devices and cids', async () => {
    const c = new FakeServiceClient();
    const empty = await exportAll('devices', c, 'AB12', {});
    expect(empty.rowCount).toBe(0);
    expect(empty.csv).toBe('device_id,device_model,license_cnt,success,fail\r\n');
    c.cids = [{ cid: 'c1', licenseCount: 4 }];
    const cids = await exportAll('cids', c, 'AB12', { searchStatus: 'success' });
    expect(cids.csv).toBe('cid,license_cnt\r\nc1,4\r\n');
    expect(c.callsOf('listCidLicenses')[0]?.args[1]).toEqual({
      searchStatus: 'success',
      pageIndex: 1,
      pageUnit: 1000,
    });
  });
});

describe('packaging keyset paging', () => {
  it('cursor round trip keeps site, filters and position and fits a button value', () => {
    const cursor = {
      siteId: 'AB12',
      query: {
        from: '2026-01-01',
        to: '2026-01-31',
        searchCondition: 'cid' as const,
        searchKeyword: 'k'.repeat(200),
        lastCreatedTimeCid: '2026-01-05 10:00:00',
        lastUpdateTime: '2026-01-06 11:00:00',
      },
    };
    const text = encodeCursor(cursor);
    expect(text).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(text.length).toBeLessThanOrEqual(CURSOR_MAX_CHARS);
    expect(decodeCursor(text)).toEqual(cursor);
  });

  it('rejects tampered cursors with a clear message', () => {
    expect(() => decodeCursor('not a cursor')).toThrow(/no longer valid/);
    expect(() => decodeCursor(Buffer.from('{"v":2}').toString('base64url'))).toThrow(/no longer valid/);
    expect(() => decodeCursor('')).toThrow(/no longer valid/);
  });

  it('words its refusals without the Slack control that carries the cursor (the ops layer knows no buttons)', () => {
    const refusal = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return JSON.stringify(e, Object.getOwnPropertyNames(e));
      }
      throw new Error('no refusal');
    };
    const tooLong = {
      siteId: 'AB12',
      query: {
        searchCondition: 'cid' as const,
        searchKeyword: 'k'.repeat(CURSOR_MAX_CHARS),
        lastCreatedTimeCid: '2026-01-05 10:00:00',
        lastUpdateTime: '2026-01-06 11:00:00',
      },
    };
    for (const text of [refusal(() => decodeCursor('not a cursor')), refusal(() => encodeCursor(tooLong))]) {
      expect(text).not.toMatch(/button/i);
    }
  });

  it('walks every record with More buttons until an empty page', async () => {
    const c = new FakeServiceClient();
    c.packaging = Array.from({ length: 5 }, (_, i) => ({
      siteId: 'AB12',
      cid: `c${i}`,
      track: 'HD',
      createdTime: tv(`2026-01-0${i + 1}T00:00:00Z`),
      updateTime: tv(`2026-01-0${i + 1}T01:00:00Z`),
    }));
    let page = await listPackaging(c, { siteId: 'AB12', filters: { cid: 'c' } });
    const seen = page.items.map((r) => r.cid);
    while (page.nextCursor) {
      page = await listPackaging(c, { cursor: page.nextCursor });
      seen.push(...page.items.map((r) => r.cid));
    }
    expect(seen).toEqual(['c0', 'c1', 'c2', 'c3', 'c4']);
    const queries = c.callsOf('listPackaging').map((x) => x.args[1]);
    expect(queries[1]).toEqual({
      searchCondition: 'cid',
      searchKeyword: 'c',
      lastCreatedTimeCid: '2026-01-02T00:00:00Z',
      lastUpdateTime: '2026-01-02T01:00:00Z',
    });
  });
});

describe('packaging cursor robustness', () => {
  it('drops a record repeated at the cursor position and stops instead of looping', async () => {
    const c = new FakeServiceClient();
    const rec = {
      siteId: 'AB12',
      cid: 'c9',
      track: 'HD',
      createdTime: tv('2026-01-01T00:00:00Z'),
      updateTime: tv('2026-01-02T00:00:00Z'),
    };
    // A service that ignores the keyset and always answers with the same record.
    c.listPackaging = async () => ({ items: [rec], count: 1, pageIndex: 1, pageUnit: 25 });
    const first = await listPackaging(c, { siteId: 'AB12' });
    expect(first.items).toHaveLength(1);
    const second = await listPackaging(c, { cursor: first.nextCursor! });
    expect(second).toEqual({ items: [], nextCursor: null });
  });
});
