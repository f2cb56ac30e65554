/**
 * The emulator's switchable spec deviations, on the wire (raw HTTP, loopback): each does what
 * it says and nothing else.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BIG_ID_OFFSET, bigId } from '../../dev/emulator/index.js';
import { API_CODE } from '../../src/api/codes.js';
import { DEFAULT_ERROR_CODES } from '../../src/api/error-codes.js';
import { type Json, start, svc, svcJwt, T0, type TestEmu, wm, wmToken } from './helpers.js';

let t: TestEmu;
let token: string;
beforeAll(async () => {
  t = await start();
  token = await wmToken(t.emu, 'DEMO');
});
afterAll(async () => {
  await t.emu.close();
});
beforeEach(() => t.emu.setBehaviours({}));

const recipients = async () =>
  (await wm(t.emu, token, 'GET', '/api/recipient/DEMO?page_unit=1000&time_zone=%2B09:00')).body as Json;

describe('emulator behaviours', () => {
  it('omitEmptyFields leaves out "" and null fields, keeps required ones', async () => {
    const plain = await recipients();
    const empty = plain.data.find((r: Json) => r.description === '');
    expect(empty).toBeDefined();
    t.emu.setBehaviours({ omitEmptyFields: true });
    const omitted = await recipients();
    const same = omitted.data.find((r: Json) => r.dwm_id === empty.dwm_id);
    expect('description' in same).toBe(false);
    expect(same.name).toBe(empty.name);
  });

  it('unknownCodes replaces listed codes with unlisted ones on the way out only', async () => {
    const filter = '/api/job/DEMO?job_status=DM001&page_unit=1000';
    const before = (await wm(t.emu, token, 'GET', filter)).body as Json;
    expect(before.data.length).toBeGreaterThan(0);
    t.emu.setBehaviours({ unknownCodes: true });
    const after = (await wm(t.emu, token, 'GET', filter)).body as Json;
    expect(after.data.map((j: Json) => j.job_status)).toEqual(before.data.map(() => 'DM002'));
  });

  it('bigIds sends ids as strings near 2^53 and reads them back in paths', async () => {
    const plain = await recipients();
    const id = plain.data[0].dwm_id as number;
    t.emu.setBehaviours({ bigIds: true });
    const big = await recipients();
    expect(big.data[0].dwm_id).toBe(bigId(id));
    expect(Number(big.data[0].dwm_id)).toBe(id + BIG_ID_OFFSET);
    expect(Number.isSafeInteger(Number(big.data[0].dwm_id))).toBe(true);
    const one = (await wm(t.emu, token, 'GET', `/api/recipient/DEMO/${bigId(id)}`)).body as Json;
    expect(one.data).toMatchObject({ dwm_id: bigId(id), name: plain.data[0].name });
  });

  it('clockSkewMs moves the Date header and the emulator clock', async () => {
    t.emu.setBehaviours({ clockSkewMs: 600_000 });
    const r = await fetch(`${t.emu.wmBaseUrl}/api/recipient/DEMO`, { headers: { authorization: token } });
    expect(Date.parse(r.headers.get('date') ?? '')).toBe(Math.floor((T0 + 600_000) / 1000) * 1000);
  });

  it('duplicateCode answers a duplicate registration with another code', async () => {
    const name = (await recipients()).data[0].name as string;
    t.emu.setBehaviours({ duplicateCode: 'DUP-01' });
    const r = await wm(t.emu, token, 'POST', '/api/recipient/DEMO', { recipients: [{ name }] });
    expect(r.body.error_code).toBe('DUP-01');
  });

  it('timeZoneText replaces the envelope time_zone, the times stay in the requested offset', async () => {
    const plain = await recipients();
    t.emu.setBehaviours({ timeZoneText: 'Asia/Seoul' });
    const named = await recipients();
    expect(plain.time_zone).toBe('+09:00');
    expect(named.time_zone).toBe('Asia/Seoul');
    expect(named.data).toEqual(plain.data);
  });

  it('planNone: endpoint 8 says "no request yet" as data null, an empty list or a not-found refusal', async () => {
    const latest = () =>
      svc(t.emu, 'GET', '/plan/request/status/AB12', {
        query: { api_code: API_CODE.getLatestStatusRequest, service_code: 'PD001' },
      });
    expect((await latest()).body).toMatchObject({ error_code: '0000', data: null });
    t.emu.setBehaviours({ planNone: 'empty' });
    expect((await latest()).body).toMatchObject({ error_code: '0000', data: [] });
    t.emu.setBehaviours({ planNone: 'notFound' });
    expect((await latest()).body.error_code).toBe(DEFAULT_ERROR_CODES.requestNotFound);
    t.emu.setBehaviours({ planNone: 'notFound', planNoneCode: 'NF-404' });
    expect((await latest()).body.error_code).toBe('NF-404');
  });

  it("siteRequestStatusWords: additional-site request statuses go out in the service's words", async () => {
    const list = () =>
      svc(t.emu, 'GET', '/account/siteId/approve', {
        query: { api_code: API_CODE.listAdditionalSiteRequests },
      });
    const plain = (await list()).body.data.map((r: Json) => r.status);
    expect(plain).toContain('requested');
    t.emu.setBehaviours({ siteRequestStatusWords: { requested: 'WAIT', approved: 'OK' } });
    const words = (await list()).body.data.map((r: Json) => r.status);
    expect(words).toEqual(plain.map((w: string) => ({ requested: 'WAIT', approved: 'OK' })[w] ?? w));
  });

  it('writeParamsIn: a write reads its parameters (api_code included) from that place only', async () => {
    const fields = { api_code: API_CODE.requestAdditionalSite, service_name: 'Placed Site' };
    const jwt = await svcJwt(t.emu);
    const post = async (where: 'query' | 'json' | 'form') => {
      const url = `${t.emu.serviceBaseUrl}/api/v2/account/siteId/approve`;
      const init: RequestInit =
        where === 'query'
          ? { method: 'POST' }
          : where === 'json'
            ? {
                method: 'POST',
                headers: { 'content-type': 'application/json' },
                body: JSON.stringify(fields),
              }
            : {
                method: 'POST',
                headers: { 'content-type': 'application/x-www-form-urlencoded' },
                body: new URLSearchParams(fields).toString(),
              };
      const r = await fetch(where === 'query' ? `${url}?${new URLSearchParams(fields)}` : url, {
        ...init,
        headers: { ...(init.headers as Record<string, string>), authorization: `Bearer ${jwt}` },
      });
      return ((await r.json()) as Json).error_code as string;
    };
    const places = ['query', 'json', 'form'] as const;
    for (const wanted of places) {
      t.emu.setBehaviours({ writeParamsIn: wanted });
      for (const sent of places) {
        expect(await post(sent), `${sent} sent, ${wanted} read`).toBe(
          sent === wanted ? '0000' : DEFAULT_ERROR_CODES.invalidParameter,
        );
      }
    }
    // Without the behaviour every placement is read.
    t.emu.setBehaviours({});
    for (const sent of places) expect(await post(sent)).toBe('0000');
  });

  it("errorCodes: a condition answered with the service's own code", async () => {
    t.emu.setBehaviours({ errorCodes: { recipientNotFound: 'R404' } });
    const r = await wm(t.emu, token, 'GET', '/api/recipient/DEMO/987654321');
    expect(r.body.error_code).toBe('R404');
  });
});
