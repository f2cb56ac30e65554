import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/api/errors.js';
import { createApi } from '../../src/api/index.js';
import {
  checkCode,
  checkEmail,
  checkFileExtension,
  checkRecipientBatch,
  checkRecipientPatch,
  checkTokenDuration,
  checkUrl,
} from '../../src/api/validate.js';
import { ok, startServer, type TestServer } from './helpers.js';

describe('added validation rules', () => {
  it('e-mail', () => {
    expect(checkEmail('ops@example.com')).toBeNull();
    expect(checkEmail('a.b+c@sub.example.co.kr')).toBeNull();
    expect(checkEmail('no-at-sign')).toMatch(/not an e-mail address: use the form name@example.com/);
    expect(checkEmail('a@b')).not.toBeNull();
    expect(checkEmail('a b@example.com')).not.toBeNull();
  });
  it('URL', () => {
    expect(checkUrl('https://example.com/cb')).toBeNull();
    expect(checkUrl('')).toBeNull();
    expect(checkUrl('example.com/cb')).toMatch(/not a URL/);
    expect(checkUrl('ftp://example.com')).toMatch(/must start with https:\/\/ or http:\/\//);
  });
  it('token duration', () => {
    expect(checkTokenDuration(3600)).toBeNull();
    expect(checkTokenDuration(0)).toMatch(/whole number of seconds/);
    expect(checkTokenDuration(1.5)).not.toBeNull();
  });
  it('codes', () => {
    expect(checkCode('DM000', ['DM000', 'DM500'], 'Job status')).toBeNull();
    expect(checkCode('DM999', ['DM000', 'DM500'], 'Job status')).toBe(
      'Job status "DM999" is not known: use one of DM000, DM500.',
    );
  });
  it('file extensions', () => {
    expect(checkFileExtension('fps.DER', ['.der', '.cer'], 'The certificate')).toBeNull();
    expect(checkFileExtension('fps.txt', ['.der', '.cer'], 'The certificate')).toMatch(
      /must be a .der or .cer file/,
    );
  });
  it('recipient batch: count, names, descriptions, duplicates ignoring case', () => {
    const findings = (rs: { name: string; description?: string }[]) =>
      checkRecipientBatch(rs).filter(([, f]) => f !== null);
    expect(findings([{ name: 'Netflix-EMEA', description: 'ok' }])).toEqual([]);
    expect(findings([])[0]?.[1]).toMatch(/at least one/);
    const many = Array.from({ length: 151 }, (_, i) => ({ name: `r${i}` }));
    expect(findings(many)[0]?.[1]).toMatch(/151 recipients.*at most 150.*Split/);
    const f = findings([
      { name: 'Hbo.Max' },
      { name: 'bad name!' },
      { name: 'HBO.MAX', description: 'x'.repeat(51) },
    ]);
    expect(f.map(([field]) => field)).toEqual([
      'recipient 2 name',
      'recipient 3 description',
      'recipient 3 name',
    ]);
    expect(f[0]?.[1]).toMatch(/contains space, "!"/);
    expect(f[1]?.[1]).toMatch(/51 characters long; the limit is 50/);
    expect(f[2]?.[1]).toMatch(/repeats recipient 1/);
  });
  it('recipient patch needs a field', () => {
    expect(checkRecipientPatch({})[0]?.[1]).toMatch(/Nothing to change/);
    expect(checkRecipientPatch({ name: 'ok' }).filter(([, f]) => f)).toEqual([]);
    expect(checkRecipientPatch({ name: 'n'.repeat(129) }).filter(([, f]) => f)[0]?.[1]).toMatch(
      /limit is 128/,
    );
  });
});

describe('clients validate before sending', () => {
  let server: TestServer;
  const api = createApi();
  beforeAll(async () => {
    server = await startServer((_r, res) => ok(res, { token: 'Bearer t' }));
  });
  afterAll(async () => {
    await api.close();
    await server.close();
  });

  async function refused(p: Promise<unknown>, field: string, msg: RegExp) {
    const err = await p.catch((e) => e);
    expect(err).toBeInstanceOf(ValidationError);
    const issue = (err as ValidationError).issues.find((i) => i.field === field);
    expect(issue, `issue for ${field} in ${JSON.stringify((err as ValidationError).issues)}`).toBeDefined();
    expect(issue?.message).toMatch(msg);
  }

  it('watermarking inputs', async () => {
    const wm = api.watermarking({ accountId: 'a', accessKey: 'k', baseUrl: server.url });
    await refused(wm.searchJobs('AB1'), 'site id', /exactly 4 letters or digits/);
    await refused(wm.searchJobs('AB12', { contentId: 'a/b' }), 'content id', /only letters, digits/);
    await refused(wm.searchJobs('AB12', { statuses: ['DM999' as never] }), 'job status', /not known/);
    await refused(wm.searchJobs('AB12', { pageUnit: 1001 }), 'page size', /1 to 1000/);
    await refused(wm.searchJobs('AB12', { pageIndex: 0 }), 'page', /pages start at 1/);
    await refused(wm.searchJobs('AB12', { from: '2026-13-01' }), 'from', /not a real calendar date/);
    await refused(
      wm.searchJobs('AB12', { from: '2026-02-02', to: '2026-02-01' }),
      'date range',
      /after the end date/,
    );
    await refused(wm.searchJobs('AB12', { timeZone: '9' }), 'time zone', /use \+hh:mm/);
    await refused(wm.getJob('AB12', 0), 'job id', /1 or more/);
    await refused(wm.getRecipient('AB12', 1.5), 'DWM id', /whole number/);
    await refused(wm.searchRecipients('AB12', { keywords: [' '] }), 'search keyword', /empty/);
    await refused(
      wm.registerRecipients('AB12', [{ name: 'a' }, { name: 'A' }]),
      'recipient 2 name',
      /repeats/,
    );
    await refused(wm.modifyRecipient('AB12', 5, {}), 'recipient', /Nothing to change/);
    expect(server.seen).toHaveLength(0);
  });

  it('service inputs', async () => {
    const svc = api.service({ accountId: 'a', accountSeq: '1', secretKey: 's', baseUrl: server.url });
    await refused(svc.requestAdditionalSite(' '), 'site name', /empty/);
    await refused(
      svc.listAdditionalSiteRequests({ searchKeyword: 'x' }),
      'search keyword',
      /needs a search type/,
    );
    await refused(svc.listSubMembers({ pageUnit: 0 }), 'page size', /1 to 1000/);
    await refused(svc.createSubMember('nope'), 'e-mail', /not an e-mail/);
    await refused(svc.createSubMember('a@example.com', 999 as never), 'group', /1000, 1001, 1014/);
    await refused(svc.resetSubMemberPassword(-1), 'member', /1 or more/);
    await refused(svc.updateSubMember({ memberSeq: 3 }), 'update', /Nothing to change/);
    await refused(svc.updateSubMember({ memberSeq: 3, status: 'MT009' as never }), 'status', /MT001, MT002/);
    await refused(svc.getLatestStatusRequest('AB12', 'PD009' as never), 'service', /PD001, PD002/);
    await refused(
      svc.registerStatusRequest('AB12', { serviceCode: 'PD001', requestType: 'SM004' as never }),
      'request type',
      /SM001, SM002, SM003/,
    );
    await refused(
      svc.cancelStatusRequest('AB12', { serviceCode: 'PD001', requestId: '' }),
      'request id',
      /empty/,
    );
    await refused(
      svc.listLicenses('AB12', { searchKeyword: 'x' }),
      'search keyword',
      /needs a search condition/,
    );
    await refused(
      svc.listLicenses('AB12', { searchCondition: 'name' as never }),
      'search condition',
      /cid, drm_type/,
    );
    await refused(
      svc.listLicenses('AB12', { searchStatus: 'ok' as never }),
      'search status',
      /success, fail/,
    );
    await refused(svc.listCidLicenses('AB12', { to: '2026-1-1' }), 'to', /yyyy-MM-dd/);
    await refused(svc.listUsers('xx'), 'site id', /4 letters/);
    await refused(svc.listDevices('AB12', { pageIndex: 0 }), 'page', /start at 1/);
    await refused(svc.listPackaging('AB12', { lastUpdateTime: '2026-01-01T00:00:00' }), 'cursor', /both/);
    await refused(svc.getSettings('AB-1'), 'site id', /4 letters/);
    await refused(svc.updateSettings('AB12', {}), 'settings', /Nothing to change/);
    await refused(
      svc.updateSettings('AB12', { tokenDuration: 0 }),
      'token duration',
      /whole number of seconds/,
    );
    await refused(
      svc.updateSettings('AB12', { licenseCallbackUrl: 'nope' }),
      'license callback URL',
      /not a URL/,
    );
    const file = (filename: string, n = 3) => ({ filename, data: new Uint8Array(n) });
    const up = { ask: 'ask', keyPw: 'pw', fpsCert: file('c.der'), privateKey: file('k.pem') };
    await refused(
      svc.uploadFpsCert('AB12', { ...up, keyPw: 'p'.repeat(33) }),
      'key password',
      /33 bytes; the limit is 32/,
    );
    await refused(
      svc.uploadFpsCert('AB12', { ...up, fpsCert: file('c.pem') }),
      'certificate',
      /.der or .cer/,
    );
    await refused(svc.uploadFpsCert('AB12', { ...up, privateKey: file('k.pem', 0) }), 'private key', /empty/);
    await refused(svc.uploadFpsCert('AB12', { ...up, ask: '' }), 'ask', /empty/);
    await refused(svc.getMonthlyStats('AB12', '2026/01/01'), 'target date', /yyyy-MM-dd/);
    expect(server.seen).toHaveLength(0);
  });
});
