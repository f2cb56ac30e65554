/** The emulator's "changed outside the bot" controls used by the notify end-to-end tests. */
import { afterEach, describe, expect, it } from 'vitest';
import { type Json, start, svc, T0, type TestEmu } from './helpers.js';

let t: TestEmu;
afterEach(async () => {
  await t?.emu.close();
});

describe('emulator: outside changes', () => {
  it('license records added with success/fail and error codes show in the list, newest first, by day', async () => {
    t = await start();
    const n = t.emu.addLicenses('DEMO', [
      {
        cid: 'spike-1',
        status: 'fail',
        errorCode: 'E4001',
        regTimeMs: T0 - 60_000,
        deviceId: 'd1',
        deviceModel: 'Pixel 9',
      },
      { cid: 'spike-2', status: 'success', regTimeMs: T0 - 30_000 },
      { cid: 'spike-3', status: 'fail', regTimeMs: T0 - 10_000 },
    ]);
    expect(n).toBe(3);
    const day = new Date(T0).toISOString().slice(0, 10);
    const r = await svc(t.emu, 'GET', '/drm/license', {
      query: {
        api_code: 'UA003001100',
        site_id: 'DEMO',
        from: day,
        to: day,
        search_condition: 'cid',
        search_keyword: 'spike-',
      },
    });
    expect(r.body.error_code).toBe('0000');
    expect(r.body.data.map((l: Json) => [l.cid, l.status, l.error_code])).toEqual([
      ['spike-3', 'fail', 'E4001'],
      ['spike-2', 'success', '0000'],
      ['spike-1', 'fail', 'E4001'],
    ]);
    expect(r.body.data[2]).toMatchObject({ device_id: 'd1', device_model: 'Pixel 9' });
    expect(() => t.emu.addLicenses('NOPE', [])).toThrow();
  });

  it('a pending plan request cancelled elsewhere reads ST002; a decided one cannot be cancelled again', async () => {
    t = await start();
    const reg = await svc(t.emu, 'POST', '/plan/request/status/FILM', {
      json: { api_code: 'UA010301200', service_code: 'PD001', request_type: 'SM003' },
    });
    const id = reg.body.data.req_group_id as string;
    t.clock.t += 60_000;
    t.emu.cancelRequestElsewhere('FILM', id);
    const latest = await svc(t.emu, 'GET', '/plan/request/status/FILM', {
      query: { api_code: 'UA010301100', service_code: 'PD001' },
    });
    expect(latest.body.data).toMatchObject({ req_group_id: id, reg_status: 'ST002' });
    expect(latest.body.data.update_dt).not.toBe(latest.body.data.reg_dt);
    expect(() => t.emu.cancelRequestElsewhere('FILM', id)).toThrow(/not ST001/);
    expect(() => t.emu.cancelRequestElsewhere('FILM', 'RG0')).toThrow(/unknown request/);
  });

  it('an additional-site request decided by the provider shows its new status and site id', async () => {
    t = await start();
    const acc = t.emu.demo.service.accountId;
    const created = await svc(t.emu, 'POST', '/account/siteId/approve', {
      json: { api_code: 'UA010310200', service_name: 'Notify Test Site' },
    });
    const seq = created.body.data.seq as number;
    t.emu.decideSiteRequest(acc, seq, 'approved', 'NTST');
    const list = await svc(t.emu, 'GET', '/account/siteId/approve', {
      query: { api_code: 'UA010310100', page_unit: 100 },
    });
    expect(list.body.data.find((r: Json) => r.seq === seq)).toMatchObject({
      status: 'approved',
      site_id: 'NTST',
    });
    expect(() => t.emu.decideSiteRequest(acc, seq, 'rejected')).toThrow(/approved/);
    expect(() => t.emu.decideSiteRequest('nobody', seq, 'rejected')).toThrow(/unknown service account/);
  });
});
