/**
 * The service ops against the emulator through the real API client (loopback only).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../../dev/emulator/index.js';
import type { EmulatorHandle } from '../../../dev/emulator/types.js';
import { ServiceError } from '../../../src/api/errors.js';
import { type Api, createApi } from '../../../src/api/index.js';
import type { ServiceClient } from '../../../src/api/types.js';
import { readCsv } from '../../../src/ops/csv.js';
import { RefusedError } from '../../../src/ops/service/common.js';
import {
  decodeCursor,
  exportAll,
  listLicenses,
  listPackaging,
  toLicenseQuery,
} from '../../../src/ops/service/drm-data.js';
import { registerFpsCert } from '../../../src/ops/service/fpscert.js';
import { addMember, changeGroup, listMembers, setMemberActive } from '../../../src/ops/service/members.js';
import { cancelRequest, getPlanState, requestChange } from '../../../src/ops/service/plan.js';
import { getSettings, MASK_DOTS, updateSettings } from '../../../src/ops/service/settings.js';
import { listSiteRequests, listSites, requestAdditionalSite } from '../../../src/ops/service/sites.js';
import { getStatsComparison } from '../../../src/ops/service/stats.js';

let emu: EmulatorHandle;
let api: Api;
let client: ServiceClient;

beforeAll(async () => {
  emu = await startEmulator();
  api = createApi({ retries: { max: 0 } });
  client = api.service({ ...emu.demo.service, baseUrl: emu.serviceBaseUrl });
});
afterAll(async () => {
  await api?.close();
  await emu?.close();
});

describe('sites', () => {
  it('lists the seeded sites with products and statuses', async () => {
    const sites = await listSites(client);
    expect(sites.map((s) => s.siteId)).toEqual(['AB12', 'DEMO', 'FILM']);
    const ab12 = sites.find((s) => s.siteId === 'AB12')!;
    expect(ab12.products.map((p) => `${p.label}:${p.statusLabel}`)).toEqual([
      'DRM:In service',
      'FWM:Suspended',
    ]);
  });

  it('requests an additional site and finds it in the requests list', async () => {
    const { seq } = await requestAdditionalSite(client, 'Integration Channel');
    const page = await listSiteRequests(client, { pageSize: 100 });
    expect(page.items.some((r) => r.seq === seq && r.serviceName === 'Integration Channel')).toBe(true);
  });
});

describe('plan requests', () => {
  it('shows the pending AB12 FWM request, refuses a new one, cancels by id', async () => {
    const state = await getPlanState(client, 'AB12', 'fwm', { productStatus: 'SE001' });
    expect(state.latest).toMatchObject({ type: 'SM001', pending: true, statusLabel: 'Pending' });
    expect(state.actions.filter((a) => a.allowed).map((a) => a.action)).toEqual(['cancel']);

    const refused = await requestChange(client, 'AB12', 'fwm', 'trial').catch((e) => e);
    expect(refused).toBeInstanceOf(RefusedError);
    expect(refused.reason).toBe('alreadyPending');

    const wrongId = await cancelRequest(client, 'AB12', 'fwm', 'RG-nope').catch((e) => e);
    expect(wrongId.reason).toBe('requestChanged');

    const cancelled = await cancelRequest(client, 'AB12', 'fwm', state.latest!.requestId);
    expect(cancelled).toMatchObject({ requestId: state.latest!.requestId, type: 'SM001', status: 'ST002' });

    const again = await cancelRequest(client, 'AB12', 'fwm', state.latest!.requestId).catch((e) => e);
    expect(again.reason).toBe('notPending');
  });

  it('registers a request when none is pending, and the emulator approval closes it', async () => {
    const created = await requestChange(client, 'FILM', 'drm', 'resume', 'restored catalogue is ready');
    expect(created).toMatchObject({ type: 'SM001', pending: true });
    const state = await getPlanState(client, 'FILM', 'PD001');
    expect(state.latest?.requestId).toBe(created.requestId);
    emu.approveRequest('FILM', created.requestId);
    const after = await getPlanState(client, 'FILM', 'drm');
    expect(after.latest).toMatchObject({ status: 'ST003', pending: false });
    expect(after.actions.find((a) => a.action === 'cancel')?.allowed).toBe(false);
  });
});

describe('DRM data', () => {
  it('lists licenses with one search option and exports the full range as CSV', async () => {
    const page = await listLicenses(client, 'DEMO', { status: 'success', pageSize: 10 });
    expect(page.items).toHaveLength(10);
    expect(page.items.every((l) => l.status === 'success')).toBe(true);

    const progress: number[] = [];
    const all = await exportAll('licenses', client, 'DEMO', toLicenseQuery({}), {
      onProgress: (p) => {
        progress.push(p.rows);
      },
    });
    expect(all.rowCount).toBe(500);
    // No total_count in the Service API: a page shorter than page_unit may be a service's own cap,
    // so the end is known from the next (empty) page (api/paging.ts PageWalk).
    expect(progress).toEqual([500, 500]);
    const csv = readCsv(all.csv);
    expect(csv.ok && csv.records.length).toBe(501);

    const capped = await exportAll('licenses', client, 'DEMO', {}, { maxRows: 120 });
    expect(capped).toMatchObject({ rowCount: 120, truncated: true });
  });

  it('pages the packaging history with cursors and never repeats a record', async () => {
    let page = await listPackaging(client, { siteId: 'AB12' });
    const seen = page.items.map((r) => `${r.cid}|${r.createdTime.raw}`);
    let guard = 0;
    while (page.nextCursor && guard++ < 10) {
      expect(decodeCursor(page.nextCursor).siteId).toBe('AB12');
      page = await listPackaging(client, { cursor: page.nextCursor });
      seen.push(...page.items.map((r) => `${r.cid}|${r.createdTime.raw}`));
    }
    expect(page.nextCursor).toBeNull();
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.length).toBe(30);
  });
});

describe('stats, members, settings, certificate', () => {
  it('compares this month with the previous one', async () => {
    const r = await getStatsComparison(client, 'DEMO');
    expect(r.targetDate).toMatch(/^\d{4}-\d{2}-01$/);
    expect(r.current.userCount).toBeGreaterThan(0);
    expect(r.users.change).toBe(r.current.userCount - r.previous.userCount);
  });

  it('adds, deactivates and regroups a member; no-op refused', async () => {
    const before = await listMembers(client, { pageSize: 100 });
    expect(before.items.find((m) => m.email === 'qa.contractor@demo-streaming.example')?.statusLabel).toBe(
      'Inactive',
    );
    const added = await addMember(client, 'new.hire@demo-streaming.example', 'ts');
    await expect(setMemberActive(client, added.memberSeq, true)).rejects.toThrow(/already active/);
    await setMemberActive(client, added.memberSeq, false);
    await changeGroup(client, added.memberSeq, 'clients');
    const after = await listMembers(client, { pageSize: 100 });
    expect(after.items.find((m) => m.memberSeq === added.memberSeq)).toMatchObject({
      status: 'MT002',
      groupSeq: 1014,
      groupLabel: 'Clients',
    });
    const dup = await addMember(client, 'new.hire@demo-streaming.example').catch((e) => e);
    expect(dup).toBeInstanceOf(ServiceError);
  });

  it('masks settings and updates callback URL and token duration', async () => {
    const v = await getSettings(client, 'AB12');
    for (const k of ['siteKey', 'accessKey', 'kmsToken', 'iv'] as const) {
      expect(v[k].startsWith(MASK_DOTS)).toBe(true);
      expect(v[k].length).toBeLessThanOrEqual(MASK_DOTS.length + 4);
    }
    await updateSettings(client, 'AB12', {
      packageCallbackUrl: 'https://pack.example.com/cb',
      tokenDuration: 900,
    });
    const after = await getSettings(client, 'AB12');
    expect(after).toMatchObject({ packageCallbackUrl: 'https://pack.example.com/cb', tokenDuration: 900 });
  });

  it('registers an FPS certificate upload', async () => {
    const r = await registerFpsCert(client, 'DEMO', {
      ask: 'd4b1c2e3f4a5b6c7d8e9f0a1b2c3d4e5',
      keyPw: 'secret-pw',
      fpsCert: { filename: 'fps.der', data: new Uint8Array([0x30, 0x82, 0x01]) },
      privateKey: { filename: 'key.pem', data: new TextEncoder().encode('-----BEGIN PRIVATE KEY-----\n') },
    });
    expect(r.certificate).toEqual({ filename: 'fps.der', bytes: 3 });
  });
});
