// Every call of both clients against the emulator: a success and at least one failure each.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type EmulatorHandle, startEmulator } from '../../dev/emulator/index.js';
import { errorCondition } from '../../src/api/error-codes.js';
import {
  AuthError,
  PermissionError,
  ProtocolError,
  ServiceError,
  TransportError,
} from '../../src/api/errors.js';
import { type Api, collectAll, createApi, iteratePackaging, iteratePages } from '../../src/api/index.js';
import type { ServiceClient, WatermarkingClient } from '../../src/api/types.js';
import { fakeSleep } from './helpers.js';

let emu: EmulatorHandle;
let api: Api;
let wm: WatermarkingClient;
let svc: ServiceClient;
let site: string;

async function condition(p: Promise<unknown>): Promise<string | undefined> {
  const e = await p.then(
    () => undefined,
    (x) => x,
  );
  expect(e, 'expected a ServiceError').toBeInstanceOf(ServiceError);
  return errorCondition(e);
}

beforeAll(async () => {
  emu = await startEmulator();
  api = createApi({ sleep: fakeSleep().sleep, random: () => 0 });
  site = emu.demo.defaultSiteId;
  wm = api.watermarking({ ...emu.demo.watermarking, baseUrl: emu.wmBaseUrl });
  svc = api.service({ ...emu.demo.service, baseUrl: emu.serviceBaseUrl });
});
afterAll(async () => {
  await api.close();
  await emu.close();
});
beforeEach(() => emu.faults.clear());

describe('watermarking API against the emulator', () => {
  it('4.1 verify: good credentials pass, a wrong key is an AuthError', async () => {
    await wm.verify(site);
    const bad = api.watermarking({ ...emu.demo.watermarking, accessKey: 'wrong', baseUrl: emu.wmBaseUrl });
    await expect(bad.verify(site)).rejects.toBeInstanceOf(AuthError);
  });

  it('tokens expired on the server are refreshed transparently', async () => {
    await wm.searchJobs(site, { pageUnit: 1 });
    emu.expireTokens();
    const p = await wm.searchJobs(site, { pageUnit: 1 });
    expect(p.items).toHaveLength(1);
  });

  it('4.2 searchJobs: filters and paging; a 503 storm is a TransportError after retries', async () => {
    const all = await wm.searchJobs(site, { pageUnit: 1000 });
    expect(all.totalCount).toBeGreaterThan(0);
    expect(all.items.length).toBe(all.totalCount);
    const done = await wm.searchJobs(site, { statuses: ['DM500'], pageUnit: 1000 });
    expect(done.items.every((j) => j.status === 'DM500')).toBe(true);
    expect(done.items.every((j) => j.regTime.epochMs !== null)).toBe(true);
    const paged = await collectAll(iteratePages((a) => wm.searchJobs(site, a), { pageUnit: 2 }));
    expect(paged.map((j) => j.jobId).sort()).toEqual(all.items.map((j) => j.jobId).sort());

    emu.faults.add({ match: 'GET /wm/api/job/', status: 503, retryAfterSeconds: 1 });
    const e = await wm.searchJobs(site).catch((x) => x);
    expect(e).toBeInstanceOf(TransportError);
    expect(e.status).toBe(503);
    expect(e.attempts).toBe(4);
  });

  it('4.2 a transient 500 is retried and succeeds', async () => {
    emu.faults.add({ match: 'GET /wm/api/job/', status: 500, times: 2 });
    await expect(wm.searchJobs(site, { pageUnit: 1 })).resolves.toBeTruthy();
  });

  it('4.3 getJob / 4.4 getJobTasks, unknown job is jobNotFound', async () => {
    const jobId = emu.createJob(site, 'integration-job-1', [
      { recipient: 'it-rcpt-a' },
      { recipient: 'it-rcpt-b' },
    ]);
    const job = await wm.getJob(site, jobId, { timeZone: '+09:00' });
    expect(job).toMatchObject({ jobId, contentId: 'integration-job-1', status: 'DM000' });
    const tasks = await wm.getJobTasks(site, jobId);
    expect(tasks.items.map((t) => t.recipient).sort()).toEqual(['it-rcpt-a', 'it-rcpt-b']);
    expect(tasks.totalCount).toBe(2);
    expect(await condition(wm.getJob(site, 99_999_999))).toBe('jobNotFound');
    expect(await condition(wm.getJobTasks(site, 99_999_999))).toBe('jobNotFound');
  });

  it('4.5 searchRecipients / 4.6 getRecipient; malformed body is a ProtocolError; unknown dwmId', async () => {
    const page = await wm.searchRecipients(site, { pageUnit: 5 });
    expect(page.items.length).toBeGreaterThan(0);
    const first = page.items[0];
    if (!first) throw new Error('no recipient');
    const detail = await wm.getRecipient(site, first.dwmId);
    expect(detail.name).toBe(first.name);
    expect(detail.updateTime).toBeDefined();
    const kw = await wm.searchRecipients(site, { keywords: [first.name.toUpperCase()] });
    expect(kw.items.some((r) => r.dwmId === first.dwmId)).toBe(true);
    emu.faults.add({ match: 'GET /wm/api/recipient/', malformed: true, times: 1 });
    await expect(wm.searchRecipients(site)).rejects.toBeInstanceOf(ProtocolError);
    expect(await condition(wm.getRecipient(site, 99_999_999))).toBe('recipientNotFound');
  });

  it('4.7 registerRecipients; a name in another case is a duplicate', async () => {
    const made = await wm.registerRecipients(site, [
      { name: 'IT-Reg-One', description: 'first' },
      { name: 'IT-Reg-Two' },
    ]);
    expect(made.map((r) => r.name)).toEqual(['IT-Reg-One', 'IT-Reg-Two']);
    expect(made.every((r) => Number.isInteger(r.dwmId))).toBe(true);
    expect(await condition(wm.registerRecipients(site, [{ name: 'it-reg-one' }]))).toBe('duplicateRecipient');
  });

  it('4.7 a dropped POST is an ambiguous TransportError and is not retried', async () => {
    emu.resetRequestCounts();
    emu.faults.add({ match: 'POST /wm/api/recipient/', drop: true, times: 1 });
    const e = await wm.registerRecipients(site, [{ name: 'IT-Dropped' }]).catch((x) => x);
    expect(e).toBeInstanceOf(TransportError);
    expect(e.ambiguous).toBe(true);
    expect(emu.requestCounts()['POST /wm/api/recipient/:siteId']).toBe(1);
  });

  it('4.8 modifyRecipient; refused while in use by a pre-embedding task', async () => {
    const [r] = await wm.registerRecipients(site, [{ name: 'IT-Mod-Free' }]);
    if (!r) throw new Error('not registered');
    const m = await wm.modifyRecipient(site, r.dwmId, { description: 'changed' });
    expect(m.dwmId).toBe(r.dwmId);
    expect((await wm.getRecipient(site, r.dwmId)).description).toBe('changed');
    emu.createJob(site, 'integration-job-2', [{ recipient: r.dwmId }]);
    expect(await condition(wm.modifyRecipient(site, r.dwmId, { description: 'again' }))).toBe(
      'recipientInUse',
    );
  });
});

describe('Service API against the emulator', () => {
  it('1 getSites / verify; a wrong secret is an AuthError', async () => {
    await svc.verify();
    const sites = await svc.getSites();
    expect(sites.map((s) => s.siteId)).toEqual(expect.arrayContaining(emu.demo.siteIds));
    const bad = api.service({ ...emu.demo.service, secretKey: 'nope', baseUrl: emu.serviceBaseUrl });
    await expect(bad.getSites()).rejects.toBeInstanceOf(AuthError);
  });

  it('2 requestAdditionalSite / 3 listAdditionalSiteRequests; injected failures', async () => {
    const { seq } = await svc.requestAdditionalSite('Integration Site');
    expect(Number.isInteger(seq)).toBe(true);
    const list = await svc.listAdditionalSiteRequests({ pageUnit: 1000 });
    expect(list.items.some((r) => r.seq === seq && r.serviceName === 'Integration Site')).toBe(true);
    emu.faults.add({
      match: 'POST /svc/api/v2/account/siteId/approve',
      errorCode: { code: 'E9999', message: 'boom' },
    });
    expect(await condition(svc.requestAdditionalSite('x'))).toBe('internal');
    emu.faults.add({ match: 'GET /svc/api/v2/account/siteId/approve', status: 503 });
    await expect(svc.listAdditionalSiteRequests()).rejects.toBeInstanceOf(TransportError);
  });

  it('4 listSubMembers / 5 createSubMember / 6 reset / 7 update; their failures', async () => {
    const { memberSeq } = await svc.createSubMember('it.member@example.com', 1014);
    const members = await svc.listSubMembers({ pageUnit: 1000 });
    const me = members.items.find((m) => m.memberSeq === memberSeq);
    expect(me).toMatchObject({ email: 'it.member@example.com', groupSeq: 1014, status: 'MT001' });
    expect(await condition(svc.createSubMember('it.member@example.com'))).toBe('memberExists');
    await svc.resetSubMemberPassword(memberSeq);
    expect(await condition(svc.resetSubMemberPassword(99_999_999))).toBe('memberNotFound');
    await svc.updateSubMember({ memberSeq, status: 'MT002', groupSeq: 1001 });
    const after = (await svc.listSubMembers({ pageUnit: 1000 })).items.find((m) => m.memberSeq === memberSeq);
    expect(after).toMatchObject({ status: 'MT002', groupSeq: 1001 });
    expect(await condition(svc.updateSubMember({ memberSeq: 99_999_999, status: 'MT001' }))).toBe(
      'memberNotFound',
    );
    emu.faults.add({ match: 'GET /svc/api/v2/account/member', status: 403 });
    await expect(svc.listSubMembers()).rejects.toBeInstanceOf(PermissionError);
  });

  it('8 latest / 9 register / 10 cancel status requests and their refusals', async () => {
    const s = 'FILM';
    const before = await svc.getLatestStatusRequest(s, 'PD002');
    if (before?.status === 'ST001') {
      await svc.cancelStatusRequest(s, { serviceCode: 'PD002', requestId: before.requestId });
    }
    const reg = await svc.registerStatusRequest(s, {
      serviceCode: 'PD002',
      requestType: 'SM003',
      message: 'please',
    });
    expect(reg).toMatchObject({ siteId: s, type: 'SM003', message: 'please' });
    const latest = await svc.getLatestStatusRequest(s, 'PD002');
    expect(latest).toMatchObject({ requestId: reg.requestId, status: 'ST001' });
    expect(
      await condition(svc.registerStatusRequest(s, { serviceCode: 'PD002', requestType: 'SM001' })),
    ).toBe('requestAlreadyPending');
    const cancelled = await svc.cancelStatusRequest(s, { serviceCode: 'PD002', requestId: reg.requestId });
    expect(cancelled).toMatchObject({ requestId: reg.requestId, status: 'ST002', type: 'SM003' });
    expect(
      await condition(svc.cancelStatusRequest(s, { serviceCode: 'PD002', requestId: reg.requestId })),
    ).toBe('requestNotPending');
    expect(await condition(svc.cancelStatusRequest(s, { serviceCode: 'PD002', requestId: 'RG-none' }))).toBe(
      'requestNotFound',
    );
    expect(await condition(svc.getLatestStatusRequest('ZZ99', 'PD001'))).toBe('siteNotFound');
  });

  it('11 listLicenses with filters; a site not owned is siteNotFound', async () => {
    const all = await svc.listLicenses(site, { pageUnit: 50 });
    expect(all.items.length).toBeGreaterThan(0);
    expect(all.count).toBe(all.items.length);
    const fails = await svc.listLicenses(site, { searchStatus: 'fail', pageUnit: 1000 });
    expect(fails.items.every((l) => l.status === 'fail')).toBe(true);
    const wv = await svc.listLicenses(site, {
      searchCondition: 'drm_type',
      searchKeyword: 'Widevine',
      pageUnit: 1000,
    });
    expect(wv.items.every((l) => l.drmType === 'Widevine')).toBe(true);
    expect(await condition(svc.listLicenses('ZZ99'))).toBe('siteNotFound');
  });

  it('12 listUsers / 13 listDevices / 14 listCidLicenses; failures', async () => {
    const users = await svc.listUsers(site, { pageUnit: 10 });
    expect(users.items.length).toBeGreaterThan(0);
    const devices = await svc.listDevices(site, { pageUnit: 10 });
    expect(devices.items.length).toBeGreaterThan(0);
    const cids = await svc.listCidLicenses(site, { pageUnit: 10 });
    expect(cids.items.length).toBeGreaterThan(0);
    expect(await condition(svc.listUsers('ZZ99'))).toBe('siteNotFound');
    expect(await condition(svc.listDevices('ZZ99'))).toBe('siteNotFound');
    emu.faults.add({
      match: '/drm/cid-License',
      body: { error_code: '0000', data: [{ cid: 'x', license_cnt: 'many' }] },
    });
    const e = await svc.listCidLicenses(site).catch((x) => x);
    expect(e).toBeInstanceOf(ProtocolError);
    expect(e.field).toBe('data[0].license_cnt');
  });

  it('15 listPackaging with the keyset helper; a half cursor is refused by the emulator too', async () => {
    const first = await svc.listPackaging(site);
    expect(first.items.length).toBeGreaterThan(0);
    const all = await collectAll(iteratePackaging(svc, site, {}, { maxItems: 10_000 }));
    expect(all.length).toBeGreaterThanOrEqual(first.items.length);
    expect(new Set(all.map((r) => `${r.cid}|${r.createdTime.raw}`)).size).toBe(all.length);
    expect(await condition(svc.listPackaging('ZZ99'))).toBe('siteNotFound');
  });

  it('16 getSettings / 17 updateSettings', async () => {
    const before = await svc.getSettings(site);
    expect(before.siteId).toBe(site);
    expect(before.siteKey.length).toBeGreaterThan(0);
    await svc.updateSettings(site, { tokenDuration: 7200, licenseCallbackUrl: 'https://example.com/cb' });
    const after = await svc.getSettings(site);
    expect(after).toMatchObject({ tokenDuration: 7200, licenseCallbackUrl: 'https://example.com/cb' });
    expect(await condition(svc.getSettings('ZZ99'))).toBe('siteNotFound');
    expect(await condition(svc.updateSettings('ZZ99', { tokenDuration: 5 }))).toBe('siteNotFound');
  });

  it('18 uploadFpsCert (multipart); a service-side refusal maps to certificateInvalid', async () => {
    const up = {
      ask: 'ask-value',
      keyPw: 'pw',
      fpsCert: { filename: 'fps.der', data: new Uint8Array([48, 130, 1, 2]) },
      privateKey: { filename: 'key.pem', data: new TextEncoder().encode('-----BEGIN PRIVATE KEY-----') },
    };
    await svc.uploadFpsCert(site, up);
    emu.faults.add({ match: '/drm/setting/fpscert/', errorCode: { code: 'E6001', message: 'bad file' } });
    expect(await condition(svc.uploadFpsCert(site, up))).toBe('certificateInvalid');
  });

  it('19 getMonthlyStats; unknown site', async () => {
    const d = new Date();
    const target = `${d.getUTCFullYear()}-${String(d.getUTCMonth() + 1).padStart(2, '0')}-01`;
    const st = await svc.getMonthlyStats(site, target);
    expect(st.licenseCount).toBeGreaterThanOrEqual(0);
    expect(await condition(svc.getMonthlyStats('ZZ99', target))).toBe('siteNotFound');
  });
});

describe('endpoint 14 spelling', () => {
  it('falls back to cid-drmLicense when the service only has that path', async () => {
    const other = await startEmulator({ cidLicensePath: 'cid-drmLicense' });
    const a = createApi();
    try {
      const s = a.service({ ...other.demo.service, baseUrl: other.serviceBaseUrl });
      const p = await s.listCidLicenses(other.demo.defaultSiteId);
      expect(p.items.length).toBeGreaterThan(0);
      other.resetRequestCounts();
      await s.listCidLicenses(other.demo.defaultSiteId);
      const keys = Object.keys(other.requestCounts());
      expect(keys.some((k) => k.includes('cid-drmLicense'))).toBe(true);
      expect(keys.some((k) => k.includes('cid-License'))).toBe(false);
    } finally {
      await a.close();
      await other.close();
    }
  });
});
