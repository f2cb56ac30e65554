/** The paced export (progress at most once per interval) and the per-kind query mapping. */
import { describe, expect, it } from 'vitest';
import type { ExportProgress } from '../../src/ops/service/drm-data.js';
import { exportQueryOf, exportWithProgress } from '../../src/ops/service/paced-export.js';
import { FakeServiceClient, tv } from '../support/fake-service.js';

function withLicenses(n: number): FakeServiceClient {
  const c = new FakeServiceClient();
  c.licenses = Array.from({ length: n }, (_, i) => ({
    cid: `cid-${i}`,
    status: 'success' as const,
    errorCode: '0000',
    drmType: 'Widevine',
    userId: `u${i}`,
    deviceId: `d${i}`,
    deviceModel: 'Pixel',
    licenseType: 'token',
    platformName: 'Android',
    regTime: tv('2026-01-01T00:00:00Z'),
  }));
  return c;
}

describe('exportWithProgress', () => {
  it('fetches every page and reports the first, then at most once per interval', async () => {
    const client = withLicenses(2500);
    let t = 0;
    const seen: ExportProgress[] = [];
    // Each page "takes" 600 ms: pages 1 (t=600), 2 (t=1200: too soon), 3 (t=1800: reported).
    const r = await exportWithProgress(
      'licenses',
      client,
      'AB12',
      {},
      {
        now: () => (t += 600),
        minIntervalMs: 1000,
        onProgress: async (p) => {
          seen.push(p);
        },
      },
    );
    expect(r.rowCount).toBe(2500);
    expect(r.pages).toBe(3);
    expect(r.csv.trim().split('\r\n')).toHaveLength(2501);
    expect(seen.map((p) => p.pages)).toEqual([1, 3]);
    expect(seen.at(-1)?.rows).toBe(2500);
    expect(r.progressCalls).toBe(2);
    expect(client.calls.filter((c) => c.method === 'listLicenses')).toHaveLength(3);
  });

  it('reports every page when the clock moves enough, and stops at maxRows', async () => {
    const client = withLicenses(2500);
    let t = 0;
    const pages: number[] = [];
    const r = await exportWithProgress(
      'licenses',
      client,
      'AB12',
      {},
      {
        now: () => (t += 5000),
        maxRows: 1500,
        onProgress: async (p) => {
          pages.push(p.pages);
        },
      },
    );
    expect(pages).toEqual([1, 2]);
    expect(r.rowCount).toBe(1500);
    expect(r.truncated).toBe(true);
  });

  it('a sink that fails aborts the export with its error', async () => {
    const client = withLicenses(10);
    await expect(
      exportWithProgress(
        'licenses',
        client,
        'AB12',
        {},
        {
          onProgress: async () => {
            throw new Error('sink down');
          },
        },
      ),
    ).rejects.toThrow('sink down');
  });
});

describe('exportQueryOf', () => {
  it('keeps only what each kind accepts and validates it', () => {
    expect(exportQueryOf('users', { from: '2026-01-01', user: 'u1', status: 'fail' })).toEqual({
      from: '2026-01-01',
      searchKeyword: 'u1',
    });
    expect(exportQueryOf('cids', { status: 'fail', user: 'x' })).toEqual({ searchStatus: 'fail' });
    expect(exportQueryOf('devices', { device: 'd1' })).toEqual({ searchKeyword: 'd1' });
    expect(exportQueryOf('licenses', { drm: 'widevine' })).toMatchObject({
      searchCondition: 'drm_type',
      searchKeyword: 'Widevine',
    });
    expect(() => exportQueryOf('licenses', { from: '2026-02-30' })).toThrow();
    expect(() => exportQueryOf('users', { from: '2026-03-01', to: '2026-01-01' })).toThrow();
  });
});
