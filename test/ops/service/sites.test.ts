import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../src/api/errors.js';
import {
  checkSiteName,
  listSiteRequests,
  listSites,
  requestAdditionalSite,
  SITE_NAME_MAX,
  toSiteRequestQuery,
} from '../../../src/ops/service/sites.js';
import { FakeServiceClient } from '../../support/fake-service.js';

describe('listSites', () => {
  it('returns every site sorted, products labelled DRM/FWM with status', async () => {
    const c = new FakeServiceClient();
    const sites = await listSites(c);
    expect(sites.map((s) => s.siteId)).toEqual(['AA00', 'AB12']);
    expect(sites[1]?.products).toEqual([
      { serviceCode: 'PD001', label: 'DRM', status: 'SE000', statusLabel: 'In service', inService: true },
      { serviceCode: 'PD002', label: 'FWM', status: 'SE001', statusLabel: 'Suspended', inService: false },
    ]);
  });
});

describe('requestAdditionalSite', () => {
  it('trims the name and returns the request seq', async () => {
    const c = new FakeServiceClient();
    const r = await requestAdditionalSite(c, '  Movies EU ');
    expect(r).toEqual({ seq: 100, name: 'Movies EU' });
    expect(c.callsOf('requestAdditionalSite')[0]?.args).toEqual(['Movies EU']);
  });

  it.each([
    ['', /empty/],
    ['   ', /empty/],
    [
      'x'.repeat(SITE_NAME_MAX + 1),
      /this bot takes at most 100 \(its own limit: the service documents none\)/,
    ],
    ['bad\u0007name', /control characters/],
  ])('refuses %j before calling the service', async (name, msg) => {
    const c = new FakeServiceClient();
    await expect(requestAdditionalSite(c, name)).rejects.toThrow(msg);
    expect(c.calls).toHaveLength(0);
  });

  it('accepts a name of exactly the maximum length', () => {
    expect(checkSiteName('x'.repeat(SITE_NAME_MAX))).toBeNull();
  });
});

describe('toSiteRequestQuery', () => {
  it('maps filters to the API query', () => {
    expect(
      toSiteRequestQuery({
        from: '2026-01-01',
        to: '2026-01-31',
        status: 'requested',
        site: 'AB12',
        page: 2,
      }),
    ).toEqual({
      from: '2026-01-01',
      to: '2026-01-31',
      reqStatus: 'requested',
      searchType: 'site_id',
      searchKeyword: 'AB12',
      pageIndex: 2,
    });
    expect(toSiteRequestQuery({ account: 'acme' })).toEqual({
      searchType: 'account_id',
      searchKeyword: 'acme',
    });
  });

  it('refuses account and site together, bad dates, reversed range, bad paging', () => {
    expect(() => toSiteRequestQuery({ account: 'a', site: 'AB12' })).toThrow(/either account: or site:/);
    expect(() => toSiteRequestQuery({ from: '2026-13-01' })).toThrow(ValidationError);
    expect(() => toSiteRequestQuery({ from: '2026-02-01', to: '2026-01-01' })).toThrow(/after the end date/);
    expect(() => toSiteRequestQuery({ pageSize: 1001 })).toThrow(/1 to 1000/);
    expect(() => toSiteRequestQuery({ page: 0 })).toThrow(/pages start at 1/);
  });
});

describe('listSiteRequests', () => {
  it('pages and says whether more may follow', async () => {
    const c = new FakeServiceClient();
    for (let i = 0; i < 3; i++) await c.requestAdditionalSite(`s${i}`);
    const p1 = await listSiteRequests(c, { pageSize: 2 });
    expect(p1.items.map((r) => r.serviceName)).toEqual(['s0', 's1']);
    expect(p1.hasMore).toBe(true);
    const p2 = await listSiteRequests(c, { pageSize: 2, page: 2 });
    expect(p2.items.map((r) => r.serviceName)).toEqual(['s2']);
    expect(p2.hasMore).toBe(false);
  });
});
