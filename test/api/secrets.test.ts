import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmulatorHandle, startEmulator } from '../../dev/emulator/index.js';
import { createApi } from '../../src/api/index.js';
import { captureLogger, fakeSleep } from './helpers.js';

let emu: EmulatorHandle;
beforeAll(async () => {
  emu = await startEmulator();
});
afterAll(async () => {
  await emu.close();
});

describe('no secret leaves the API module', () => {
  it('debug logs and error messages carry neither keys nor tokens', async () => {
    const cap = captureLogger();
    const api = createApi({ logger: cap.logger, sleep: fakeSleep().sleep });
    const errors: string[] = [];
    const wm = api.watermarking({ ...emu.demo.watermarking, baseUrl: emu.wmBaseUrl });
    const svc = api.service({ ...emu.demo.service, baseUrl: emu.serviceBaseUrl });
    await wm.searchJobs(emu.demo.defaultSiteId, { pageUnit: 2 });
    await svc.getSites();
    emu.expireTokens();
    await wm
      .getRecipient(emu.demo.defaultSiteId, 1)
      .catch((e) => errors.push(String(e.message), String(e.stack)));
    emu.faults.add({ status: 401 });
    await wm.searchJobs(emu.demo.defaultSiteId).catch((e) => errors.push(String(e.message), String(e.stack)));
    await svc.getSites().catch((e) => errors.push(String(e.message), String(e.stack)));
    emu.faults.clear();
    await api.close();
    const haystack = cap.text() + errors.join('\n');
    expect(cap.text()).toContain('wm.searchJobs');
    expect(errors.length).toBeGreaterThanOrEqual(4);
    for (const secret of [emu.demo.watermarking.accessKey, emu.demo.service.secretKey]) {
      expect(haystack).not.toContain(secret);
    }
    expect(haystack).not.toMatch(/Bearer\s+\S{8,}/);
    expect(haystack).not.toMatch(/Basic\s+\S{8,}/);
    expect(haystack).not.toMatch(/eyJ[\w-]{8,}\./);
  });
});
