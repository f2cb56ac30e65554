/**
 * Service API times the spec leaves unzoned (additional-site requests, packaging history) under
 * both readings: written in UTC (the emulator's default) or in a local offset
 * (`serviceTimeZone`), read with SERVICE_TIME_ZONE set to match. The instants the bot reads are
 * the same either way, and the packaging keyset (cursors sent back as the service wrote them)
 * walks the same records. Loopback only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../dev/emulator/index.js';
import type { EmulatorHandle } from '../../dev/emulator/types.js';
import { type Api, createApi } from '../../src/api/index.js';
import { collectAll, iteratePackaging } from '../../src/api/paging.js';
import { listPackaging } from '../../src/ops/service/drm-data.js';
import { listSiteRequests } from '../../src/ops/service/sites.js';

const T0 = Date.UTC(2026, 10, 22, 12, 0, 0);
const SITE = 'DEMO';
let emu: EmulatorHandle;
const apis: Api[] = [];

beforeAll(async () => {
  emu = await startEmulator({ now: () => T0 });
});
afterAll(async () => {
  for (const a of apis) await a.close();
  await emu?.close();
});

/** A Service API client of the emulator's demo account, reading unzoned times in `serviceTimeZone`. */
function serviceClient(serviceTimeZone?: string) {
  const api = createApi({
    retries: { max: 0 },
    jwtTtlSeconds: 0,
    clock: () => T0,
    ...(serviceTimeZone ? { serviceTimeZone } : {}),
  });
  apis.push(api);
  const svc = api.service({ ...emu.demo.service, baseUrl: emu.serviceBaseUrl });
  return svc;
}

async function read(serviceTimeZone?: string) {
  const svc = serviceClient(serviceTimeZone);
  const requests = await listSiteRequests(svc, { pageSize: 1000 });
  const packaging = await collectAll(iteratePackaging(svc, SITE));
  return {
    requests: requests.items.map((r) => [r.seq, r.regTime.epochMs, r.updateTime.epochMs]),
    packaging: packaging.map((r) => [r.cid, r.createdTime.epochMs, r.updateTime.epochMs]),
  };
}

/** The packaging records of one UTC day, every "More" page walked (bounded). */
async function packagingOfDay(day: string, serviceTimeZone?: string): Promise<string[]> {
  const svc = serviceClient(serviceTimeZone);
  const cids: string[] = [];
  let page = await listPackaging(svc, { siteId: SITE, filters: { from: day, to: day, timeZone: 'UTC' } });
  for (let i = 0; i < 50; i++) {
    cids.push(...page.items.map((r) => r.cid));
    if (!page.nextCursor) break;
    page = await listPackaging(svc, { cursor: page.nextCursor });
  }
  return cids;
}

describe('unzoned Service API times', () => {
  it('packaging from/to go out as the days of SERVICE_TIME_ZONE: a day reads the same records either way', async () => {
    emu.setBehaviours({});
    const svc = serviceClient();
    // A record late in its UTC day: a +09:00 service files it under the next local day.
    const late = (await collectAll(iteratePackaging(svc, SITE))).find(
      (r) => r.createdTime.epochMs !== null && new Date(r.createdTime.epochMs).getUTCHours() >= 16,
    );
    expect(late).toBeDefined();
    const day = new Date(late?.createdTime.epochMs as number).toISOString().slice(0, 10);
    const utc = await packagingOfDay(day);
    expect(utc).toContain(late?.cid);
    emu.setBehaviours({ pageCap: 3, serviceTimeZone: '+09:00' });
    expect(await packagingOfDay(day, '+09:00')).toEqual(utc);
    emu.setBehaviours({});
  });

  it('read in SERVICE_TIME_ZONE give the same instants as UTC times read as UTC', async () => {
    // Pages of three: the packaging walk goes through several cursors.
    emu.setBehaviours({ pageCap: 3 });
    const utc = await read();
    expect(utc.requests.length).toBeGreaterThan(0);
    expect(utc.packaging.length).toBeGreaterThan(3);
    emu.setBehaviours({ pageCap: 3, serviceTimeZone: '+09:00' });
    expect(await read('+09:00')).toEqual(utc);
    // Without the setting, a service writing local times is read nine hours late.
    const wrong = await read();
    expect(wrong.requests[0]?.[1]).toBe((utc.requests[0]?.[1] as number) + 9 * 3600_000);
    emu.setBehaviours({});
  });
});
