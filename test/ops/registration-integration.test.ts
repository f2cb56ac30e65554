// The registration runner through the real API client against the emulator (loopback only).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type EmulatorHandle, startEmulator } from '../../dev/emulator/index.js';
import { type Api, createApi } from '../../src/api/index.js';
import type { WatermarkingClient } from '../../src/api/types.js';
import { nameKey } from '../../src/api/validate.js';
import { existingLookup, findExisting } from '../../src/ops/recipients.js';
import { parseRecipientLines, planRegistration } from '../../src/ops/watermarking/registration/plan.js';
import { reportCounts, runRegistration } from '../../src/ops/watermarking/registration/run.js';

let emu: EmulatorHandle;
let api: Api;
let wm: WatermarkingClient;
const SITE = 'AB12';
let seq = 0;

/** Names unique to one test, so the tests do not see each other's recipients. */
function names(n: number): string[] {
  const tag = `it${++seq}x${Date.now().toString(36)}`;
  return Array.from({ length: n }, (_, i) => `${tag}-${i}`);
}

async function plan(lines: string[]) {
  return planRegistration(parseRecipientLines(lines.join('\n')), existingLookup(wm, SITE));
}

/** Every name is on the site exactly once (case-insensitively). */
async function expectOnce(all: string[]) {
  const page = await wm.searchRecipients(SITE, { keywords: [all[0]?.split('-')[0] ?? ''], pageUnit: 1000 });
  const keys = page.items.map((r) => nameKey(r.name));
  expect(new Set(keys).size).toBe(keys.length);
  for (const n of all) expect(keys.filter((k) => k === nameKey(n))).toHaveLength(1);
}

beforeAll(async () => {
  emu = await startEmulator();
  api = createApi({ timeouts: { headersMs: 400 }, retries: { max: 0 } });
  wm = api.watermarking({ ...emu.demo.watermarking, baseUrl: emu.wmBaseUrl });
});
afterAll(async () => {
  await api.close();
  await emu.close();
});
beforeEach(() => emu.faults.clear());

describe('runRegistration against the emulator', () => {
  it('registers 400 recipients in 3 POSTs and skips existing ones found case-insensitively', async () => {
    const all = names(400);
    await wm.registerRecipients(SITE, [{ name: all[0]!.toUpperCase() }]);
    const before = emu.recipientCount(SITE);
    emu.resetRequestCounts();
    const p = await plan([...all, 'bad name']);
    expect(p.counts).toMatchObject({ alreadyRegistered: 1, invalid: 1, toRegister: 399, batches: 3 });
    const report = await runRegistration(wm, SITE, p);
    expect(report.status).toBe('completed');
    expect(reportCounts(report)).toMatchObject({ registered: 399, failed: 0 });
    expect(emu.recipientCount(SITE) - before).toBe(399);
    expect(emu.requestCounts()['POST /wm/api/recipient/:siteId']).toBe(3);
    const found = await findExisting(wm, SITE, all);
    for (const r of report.registered) expect(found.get(nameKey(r.name))?.dwmId).toBe(r.dwmId);
  });

  it('a dropped connection (not applied) is reconciled and retried once', async () => {
    const all = names(30);
    const p = await plan(all);
    emu.faults.add({ match: 'POST /wm/api/recipient', times: 1, drop: true });
    emu.resetRequestCounts();
    const report = await runRegistration(wm, SITE, p);
    expect(emu.requestCounts()['POST /wm/api/recipient/:siteId']).toBe(2);
    expect(reportCounts(report)).toMatchObject({ registered: 30, failed: 0 });
    await expectOnce(all);
  });

  it('a timeout whose request is applied late never registers a name twice', async () => {
    const all = names(20);
    const p = await plan(all);
    const before = emu.recipientCount(SITE);
    // The first POST is held 1.2 s by the emulator, longer than the client's 400 ms header timeout:
    // the runner sees an ambiguous failure while the service still applies the request later.
    // The runner looks the names up only once the grace after the failure has passed (here 2 s,
    // past the 1.2 s hold), finds them, and sends nothing again: one POST on the wire.
    emu.faults.add({ match: 'POST /wm/api/recipient', times: 1, latencyMs: 1200 });
    emu.resetRequestCounts();
    const report = await runRegistration(wm, SITE, p, { inFlightGraceMs: 2_000 });
    expect(emu.requestCounts()['POST /wm/api/recipient/:siteId']).toBe(1);
    expect(reportCounts(report)).toMatchObject({ registered: 20, failed: 0 });
    expect(report.registered.every((r) => r.reconciled)).toBe(true);
    expect(emu.recipientCount(SITE) - before).toBe(20);
    await expectOnce(all);
  });

  it('a name registered by someone else after planning is reported, the rest registered', async () => {
    const all = names(10);
    const p = await plan(all);
    await wm.registerRecipients(SITE, [{ name: all[4]!.toUpperCase() }]);
    const report = await runRegistration(wm, SITE, p);
    expect(reportCounts(report)).toMatchObject({ registered: 9, registeredMeanwhile: 1, failed: 0 });
    await expectOnce(all);
  });

  it('a service failure of one batch leaves the other batches registered', async () => {
    const all = names(300);
    const p = await plan(all);
    emu.faults.add({
      match: 'POST /wm/api/recipient',
      times: 1,
      errorCode: { code: 'E9999', message: 'Internal error' },
    });
    const report = await runRegistration(wm, SITE, p, { concurrency: 1 });
    expect(reportCounts(report)).toMatchObject({ registered: 150, failed: 150, batchesFailed: 1 });
    expect(report.failed[0]).toMatchObject({ kind: 'service', code: 'E9999' });
  });
});
