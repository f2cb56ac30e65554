import { request } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../dev/emulator/index.js';
import { start, type TestEmu, wm, wmToken } from './helpers.js';

let t: TestEmu;
let token: string;

beforeAll(async () => {
  t = await start();
  token = await wmToken(t.emu);
});
afterEach(() => {
  t.emu.faults.clear();
  t.emu.setLatency(0);
});
afterAll(async () => {
  await t.emu.close();
});

const jobs = () => fetch(`${t.emu.wmBaseUrl}/api/job/DEMO`, { headers: { authorization: token } });

describe('fault injection', () => {
  it('status with Retry-After, applied `times` times then gone', async () => {
    t.emu.faults.add({ match: 'GET /wm/api/job/DEMO', status: 503, retryAfterSeconds: 7, times: 2 });
    const a = await jobs();
    expect(a.status).toBe(503);
    expect(a.headers.get('retry-after')).toBe('7');
    await a.text();
    expect((await jobs()).status).toBe(503);
    const c = await jobs();
    expect(c.status).toBe(200);
    expect(((await c.json()) as { error_code: string }).error_code).toBe('0000');
  });

  it('`skip` lets the first matching requests through, then the rule applies `times` times', async () => {
    t.emu.faults.add({ match: 'GET /wm/api/job/DEMO', status: 503, skip: 2, times: 1 });
    const statuses = [];
    for (let i = 0; i < 4; i++) {
      const r = await jobs();
      await r.text();
      statuses.push(r.status);
    }
    expect(statuses).toEqual([200, 200, 503, 200]);
  });

  it('429 and 401/403 statuses', async () => {
    t.emu.faults.add({ status: 429, retryAfterSeconds: 1, times: 1 });
    t.emu.faults.add({ status: 401, times: 1 });
    t.emu.faults.add({ status: 403, times: 1 });
    const statuses = [];
    for (let i = 0; i < 4; i++) {
      const r = await jobs();
      await r.text();
      statuses.push(r.status);
    }
    expect(statuses).toEqual([429, 401, 403, 200]);
  });

  it('match by substring or RegExp only hits matching requests', async () => {
    t.emu.faults.add({ match: /\/recipient\//, status: 500 });
    const r = await jobs();
    expect(r.status).toBe(200);
    await r.text();
    const hit = await fetch(`${t.emu.wmBaseUrl}/api/recipient/DEMO`, { headers: { authorization: token } });
    expect(hit.status).toBe(500);
    await hit.text();
    t.emu.faults.clear();
    t.emu.faults.add({ match: 'POST /wm/api/recipient', status: 500 });
    expect((await wm(t.emu, token, 'GET', '/api/recipient/DEMO')).status).toBe(200);
  });

  it('drop destroys the connection without an answer', async () => {
    t.emu.faults.add({ drop: true, times: 1 });
    await expect(jobs()).rejects.toThrow();
    expect((await jobs()).status).toBe(200);
  });

  it('malformed answers 200 with a body that is not JSON', async () => {
    t.emu.faults.add({ malformed: true, times: 1 });
    const r = await jobs();
    expect(r.status).toBe(200);
    const text = await r.text();
    expect(() => JSON.parse(text)).toThrow();
  });

  it('body replaces the answer; errorCode answers a failure envelope', async () => {
    t.emu.faults.add({ body: { error_code: '0000', data: 'not-a-list' }, times: 1 });
    t.emu.faults.add({ errorCode: { code: 'E9999', message: 'maintenance' }, times: 1 });
    expect(await (await jobs()).json()).toEqual({ error_code: '0000', data: 'not-a-list' });
    expect(await (await jobs()).json()).toEqual({ error_code: 'E9999', error_message: 'maintenance' });
    expect(((await (await jobs()).json()) as { total_count: number }).total_count).toBeGreaterThan(0);
  });

  it('latency rules delay and then let the request through; global latency too', async () => {
    // Correctness only: the delayed request still gets the real answer and the rule is consumed.
    t.emu.faults.add({ latencyMs: 30, times: 1 });
    const r = await jobs();
    expect(((await r.json()) as { error_code: string }).error_code).toBe('0000');
    t.emu.setLatency(5);
    expect((await jobs()).status).toBe(200);
  });

  it('faults are counted in requestCounts by route template', async () => {
    t.emu.resetRequestCounts();
    t.emu.faults.add({ status: 500, times: 1 });
    await (await jobs()).text();
    await (await jobs()).text();
    expect(t.emu.requestCounts()['GET /wm/api/job/:siteId']).toBe(2);
  });
});

describe('server', () => {
  it('refuses a non-loopback host', async () => {
    await expect(startEmulator({ host: '0.0.0.0' })).rejects.toThrow(/loopback/);
  });

  it('serves over plain node:http with keep-alive and closes cleanly', async () => {
    const emu = await startEmulator({ seed: false });
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(`${emu.wmBaseUrl}/api/token/DEMO`, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(401);
    expect(emu.recipientCount('DEMO')).toBe(0);
    await emu.close();
    await expect(fetch(`${emu.wmBaseUrl}/api/token/DEMO`)).rejects.toThrow();
  });
});
