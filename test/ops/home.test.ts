/** Home data gathering: isolation of parts and sites, timeouts, 24-hour failure window, site cap. */
import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ServiceError, TransportError } from '../../src/api/errors.js';
import type {
  ApiFactory,
  Job,
  JobSearchQuery,
  ServiceClient,
  WatermarkingClient,
  WmPage,
  WorkspaceCredentials,
} from '../../src/api/types.js';
import { gatherHome, part, reasonOf } from '../../src/ops/home.js';
import type { OpsDeps } from '../../src/ops/workspace.js';
import { homeView } from '../../src/slack/features/home/render.js';
import { createStore } from '../../src/store/index.js';
import type { Store } from '../../src/store/types.js';
import { Subscriptions } from '../../src/watch/subscriptions.js';

const NOW = Date.UTC(2026, 10, 22, 9, 0, 0);
const HOUR = 3600_000;
const t = (ms: number) => ({ raw: new Date(ms).toISOString(), epochMs: ms });
const job = (id: number, status: Job['status'], agoMs: number): Job => ({
  jobId: id,
  contentId: `c-${id}`,
  status,
  regTime: t(NOW - agoMs - 1000),
  updateTime: t(NOW - agoMs),
});

function page(items: Job[], totalCount = items.length): WmPage<Job> {
  return { items, totalCount, pageIndex: 1, pageUnit: 1000, timeZone: '+00:00' };
}

const never = () => new Promise<never>(() => undefined);

describe('part / reasonOf', () => {
  it('value, failure reason, timeout', async () => {
    expect(await part(async () => 1, 1000)).toEqual({ ok: true, value: 1 });
    expect(await part(() => Promise.reject(new TransportError('wm.searchJobs', 'x', 503, 1)), 1000)).toEqual({
      ok: false,
      reason: 'the service could not be reached',
    });
    const r = await part(never, 20);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.reason).toMatch(/did not answer within/);
  });
  it('unknown errors never leak their message', () => {
    expect(reasonOf(new Error('secret sk_live_abc'))).toBe('unexpected error');
    expect(reasonOf('boom')).toBe('unexpected error');
  });
});

describe('gatherHome', () => {
  let store: Store;
  let searches: Array<{ siteId: string; q: JobSearchQuery | undefined }>;
  let wm: Partial<WatermarkingClient>;
  let svc: Partial<ServiceClient>;
  const creds = (siteIds: string[]): WorkspaceCredentials => ({
    siteIds,
    defaultSiteId: siteIds[0]!,
    watermarking: { accountId: 'a', accessKey: 'k'.repeat(20), baseUrl: 'http://127.0.0.1:1' },
    service: { accountId: 's', accountSeq: '1', secretKey: 'x'.repeat(20), baseUrl: 'http://127.0.0.1:1' },
  });
  const deps = (): OpsDeps => ({
    config: { distribution: 'oauth' },
    store,
    now: () => NOW,
    api: {
      watermarking: () => wm as WatermarkingClient,
      service: () => svc as ServiceClient,
      close: async () => undefined,
    } as ApiFactory,
  });

  beforeEach(async () => {
    store = await createStore({ url: 'memory://', encryptionKey: randomBytes(32).toString('base64') });
    searches = [];
    wm = {
      async searchJobs(siteId, q) {
        searches.push({ siteId, q });
        if (siteId === 'SLOW') return never();
        if (siteId === 'DOWN') throw new TransportError('wm.searchJobs', 'refused', undefined, 1);
        if (q?.statuses?.includes('DM600')) {
          // One failure 2 h ago, one 30 h ago (outside the window).
          return page([job(1, 'DM600', 2 * HOUR), job(2, 'DM600', 30 * HOUR)]);
        }
        return page([job(10, 'DM000', 60_000), job(11, 'DM001', 120_000)], 7);
      },
    };
    svc = {
      async getSites() {
        throw new TransportError('svc.getSites', 'down', 503, 1);
      },
      async getLatestStatusRequest(siteId, serviceCode) {
        return serviceCode === 'PD002'
          ? {
              siteId,
              requestId: 'R1',
              type: 'SM003',
              message: 'more time',
              status: 'ST001',
              registeredBy: 'me',
              regTime: t(NOW - HOUR),
            }
          : null;
      },
    };
  });
  afterEach(async () => {
    await store.close();
  });

  it('not configured: every service part says so; watches still read', async () => {
    await new Subscriptions(store, () => NOW).create('T1', {
      channelId: 'C1',
      siteId: 'DEMO',
      createdBy: 'U1',
      filters: { statuses: [], mode: 'all' },
    });
    const d = await gatherHome(deps(), 'T1');
    expect(d.connection).toMatchObject({ ok: true, value: { configured: false } });
    expect(d.jobs).toEqual({ ok: false, reason: 'not configured', next: { do: 'setup' } });
    expect(d.plan.ok).toBe(false);
    expect(d.watches.ok && d.watches.value.map((s) => s.channelId)).toEqual(['C1']);
  });

  it('isolates a failing part and failing or slow sites', async () => {
    await store.credentials.put('T1', {
      credentials: creds(['DEMO', 'DOWN', 'SLOW']),
      verifiedAt: new Date(NOW).toISOString(),
      savedBy: 'U1',
    });
    const d = await gatherHome(deps(), 'T1', { timeoutMs: 200 });
    expect(d.sites).toEqual({ ok: false, reason: 'the service could not be reached' });
    expect(d.jobs.ok).toBe(true);
    if (!d.jobs.ok) return;
    const [demo, down, slow] = d.jobs.value.sites;
    expect(demo?.jobs).toMatchObject({ ok: true, value: { inFlightTotal: 7, failuresTotal: 1 } });
    expect(demo?.jobs.ok && demo.jobs.value.failures.map((j) => j.jobId)).toEqual([1]);
    expect(down?.jobs).toEqual({ ok: false, reason: 'the service could not be reached' });
    expect(slow?.jobs.ok).toBe(false);
    expect(d.plan).toMatchObject({
      ok: true,
      value: { requestId: 'R1', serviceCode: 'PD002', pending: true },
    });
    // The failure query asks from the UTC date of now - 24 h.
    const failQ = searches.find((s) => s.siteId === 'DEMO' && s.q?.statuses?.includes('DM600'));
    expect(failQ?.q?.from).toBe('2026-11-21');
  });

  it('names a product whose latest plan request the service refuses with an unknown code, and keeps the others', async () => {
    await store.credentials.put('T1', { credentials: creds(['DEMO']), verifiedAt: '', savedBy: 'U1' });
    const read = svc.getLatestStatusRequest!.bind(svc);
    svc.getLatestStatusRequest = async (siteId, serviceCode) => {
      if (serviceCode === 'PD001')
        throw new ServiceError('svc.getLatestStatusRequest', '7777', 'no such thing here');
      return read(siteId, serviceCode);
    };
    const d = await gatherHome(deps(), 'T1');
    expect(d.plan).toMatchObject({ ok: true, value: { requestId: 'R1', serviceCode: 'PD002' } });
    expect(d.planUnread).toEqual([
      { siteId: 'DEMO', serviceCode: 'PD001', unread: { code: '7777', message: 'no such thing here' } },
    ]);
    const text = JSON.stringify(homeView(d, { isAdmin: false }).blocks);
    expect(text).toContain('no earlier request could be read (7777: no such thing here)');
    expect(text).toContain('request `R1`');
  });

  it('looks up jobs of at most maxSites sites and counts the rest', async () => {
    const ids = Array.from({ length: 30 }, (_, i) => `S${String(i).padStart(3, '0')}`);
    await store.credentials.put('T1', { credentials: creds(ids), verifiedAt: '', savedBy: 'U1' });
    const d = await gatherHome(deps(), 'T1', { maxSites: 5 });
    expect(d.jobs.ok && d.jobs.value.sites.length).toBe(5);
    expect(d.jobs.ok && d.jobs.value.sitesNotChecked).toBe(25);
    expect(new Set(searches.map((s) => s.siteId)).size).toBe(5);
  });
});
