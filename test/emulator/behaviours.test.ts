/**
 * The emulator's switchable spec deviations, on the wire (raw HTTP, loopback): each does what
 * it says and nothing else.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BIG_ID_OFFSET, bigId } from '../../dev/emulator/index.js';
import { type Json, start, T0, type TestEmu, wm, wmToken } from './helpers.js';

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
});
