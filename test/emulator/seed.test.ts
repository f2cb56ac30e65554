import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_CODE } from '../../src/api/codes.js';
import { type Json, start, svc, type TestEmu, wm, wmToken } from './helpers.js';

let a: TestEmu;
let b: TestEmu;

beforeAll(async () => {
  [a, b] = await Promise.all([start(), start()]);
});
afterAll(async () => {
  await Promise.all([a.emu.close(), b.emu.close()]);
});

async function snapshot(t: TestEmu): Promise<Json> {
  const tok = await wmToken(t.emu);
  return {
    recipients: (await wm(t.emu, tok, 'GET', '/api/recipient/DEMO?page_unit=1000')).body,
    jobs: (await wm(t.emu, tok, 'GET', '/api/job/DEMO?page_unit=1000')).body,
    licenses: (
      await svc(t.emu, 'GET', '/drm/license', {
        query: { api_code: API_CODE.listLicenses, site_id: 'DEMO', page_unit: 1000 },
      })
    ).body.data,
    settings: (await svc(t.emu, 'GET', '/drm/setting/DEMO', { query: { api_code: API_CODE.getSettings } }))
      .body.data,
  };
}

describe('seed', () => {
  it('is deterministic for the same clock', async () => {
    const [x, y] = await Promise.all([snapshot(a), snapshot(b)]);
    expect(x).toEqual(y);
  });

  it('has the documented shape: 40 distributor recipients, 60 jobs, 3 sites, 150 packaging records', async () => {
    const x = await snapshot(a);
    expect(x.recipients.total_count).toBe(40);
    expect(x.recipients.data.map((r: Json) => r.name)).toContain('Netflix-EMEA');
    expect(x.jobs.total_count).toBe(60);
    expect(a.emu.demo.siteIds).toEqual(['DEMO', 'AB12', 'FILM']);
    expect(a.emu.demo.defaultSiteId).toBe('DEMO');
    const pack = await svc(a.emu, 'GET', '/drm/pack', {
      query: { api_code: API_CODE.listPackaging, site_id: 'DEMO', page_unit: 1000 },
    });
    expect(pack.body.count).toBe(150);
  });
});
