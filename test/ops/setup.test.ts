import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../dev/emulator/index.js';
import type { EmulatorHandle } from '../../dev/emulator/types.js';
import { createApi } from '../../src/api/index.js';
import type { ApiFactory } from '../../src/api/types.js';
import {
  checkSetupForm,
  maskSecret,
  type SetupForm,
  saveSetup,
  setupStatus,
  verifySetup,
} from '../../src/ops/setup.js';
import type { OpsDeps } from '../../src/ops/workspace.js';
import { createStore } from '../../src/store/index.js';
import type { Store } from '../../src/store/types.js';

const KEY = randomBytes(32).toString('base64');
let emu: EmulatorHandle;
let api: ApiFactory;
let store: Store;
let raw: Map<string, unknown>;
let deps: OpsDeps;

beforeAll(async () => {
  emu = await startEmulator();
  api = createApi({ retries: { max: 0 } });
  raw = new Map();
  store = await createStore({ url: 'memory://', encryptionKey: KEY, memoryMap: raw });
  deps = { config: { distribution: 'oauth' }, store, api, now: () => Date.UTC(2026, 0, 2, 3, 4, 5) };
});
afterAll(async () => {
  await api.close();
  await store.close();
  await emu.close();
});

function form(over: Partial<SetupForm> = {}): Partial<SetupForm> {
  return {
    siteIds: 'DEMO, AB12',
    defaultSite: 'ab12',
    wmAccountId: emu.demo.watermarking.accountId,
    wmAccessKey: emu.demo.watermarking.accessKey,
    wmBaseUrl: emu.wmBaseUrl,
    svcAccountId: emu.demo.service.accountId,
    svcAccountSeq: emu.demo.service.accountSeq,
    svcSecretKey: emu.demo.service.secretKey,
    svcBaseUrl: emu.serviceBaseUrl,
    ...over,
  };
}

describe('checkSetupForm', () => {
  it('accepts a full form, normalising sites and default', () => {
    const r = checkSetupForm(form(), undefined, {});
    expect(r.ok && r.credentials.siteIds).toEqual(['DEMO', 'AB12']);
    expect(r.ok && r.credentials.defaultSiteId).toBe('AB12');
  });
  it('reports each bad field', () => {
    const r = checkSetupForm(
      form({ siteIds: 'TOOLONG1', svcAccountSeq: 'abc', wmBaseUrl: 'ftp://x', wmAccessKey: '' }),
      undefined,
      {},
    );
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(Object.keys(r.errors).sort()).toEqual(['siteIds', 'svcAccountSeq', 'wmAccessKey', 'wmBaseUrl']);
    expect(r.errors.siteIds).toMatch(/exactly 4 letters or digits/);
  });
  it('default site must be listed; nothing at all is refused', () => {
    const r = checkSetupForm(form({ defaultSite: 'ZZ99' }), undefined, {});
    expect(!r.ok && r.errors.defaultSite).toMatch(/not in the site list/);
    const none = checkSetupForm({ siteIds: 'AB12' }, undefined, {});
    expect(!none.ok && none.errors.wmAccountId).toMatch(/or both/);
  });
  it('blank secrets keep the saved ones; blank URLs use the defaults', () => {
    const existing = checkSetupForm(form(), undefined, {});
    if (!existing.ok) throw new Error('setup');
    const r = checkSetupForm(
      form({ wmAccessKey: '', svcSecretKey: '', wmBaseUrl: '', svcBaseUrl: '' }),
      existing.credentials,
      {
        wmBaseUrl: 'http://127.0.0.1:1/wm',
        svcBaseUrl: 'http://127.0.0.1:1/svc',
      },
    );
    expect(r.ok && r.credentials.watermarking?.accessKey).toBe(emu.demo.watermarking.accessKey);
    expect(r.ok && r.credentials.service?.baseUrl).toBe('http://127.0.0.1:1/svc');
  });
});

describe('verify, save, status (emulator)', () => {
  it('verifies good credentials, saves them encrypted, status masks secrets', async () => {
    const c = checkSetupForm(form(), undefined, {});
    if (!c.ok) throw new Error('form');
    const v = await verifySetup(deps, c.credentials);
    expect(v).toEqual({ ok: true, verifiedAt: '2026-01-02T03:04:05.000Z' });
    if (!v.ok) return;
    await store.settings.put('T1', { adminUserIds: [], pollingPausedReason: 'auth failed' });
    await saveSetup(deps, 'T1', c.credentials, v.verifiedAt, 'U1');
    const dump = JSON.stringify([...raw.entries()]);
    expect(dump).not.toContain(emu.demo.watermarking.accessKey);
    expect(dump).not.toContain(emu.demo.service.secretKey);
    const s = await setupStatus(deps, 'T1');
    expect(s.watermarking?.accessKey).toBe(maskSecret(emu.demo.watermarking.accessKey));
    expect(s.watermarking?.accessKey).toMatch(/^\u2022{4}.{4}$/);
    expect(s.service?.secretKey.endsWith(emu.demo.service.secretKey.slice(-4))).toBe(true);
    expect(JSON.stringify(s)).not.toContain(emu.demo.service.secretKey);
    expect(s.pollingPausedReason).toBeUndefined();
    expect(s).toMatchObject({ configured: true, source: 'store', savedBy: 'U1', verifiedAt: v.verifiedAt });
  });
  it('a wrong access key fails on the key field; a foreign site on the site field; nothing saved', async () => {
    const c = checkSetupForm(
      form({ wmAccessKey: 'wrong-key-123456', siteIds: 'DEMO, ZZ99', defaultSite: '' }),
      undefined,
      {},
    );
    if (!c.ok) throw new Error('form');
    const v = await verifySetup(deps, c.credentials);
    expect(v.ok).toBe(false);
    if (v.ok) return;
    expect(v.failures.map((f) => f.field)).toContain('wmAccessKey');
    expect(JSON.stringify(v.failures)).not.toContain('wrong-key-123456');
    const bad = checkSetupForm(form({ siteIds: 'DEMO, ZZ99', defaultSite: '' }), undefined, {});
    if (!bad.ok) throw new Error('form');
    const v2 = await verifySetup(deps, bad.credentials);
    // Both APIs say so: the token call for ZZ99, and the Service API's site list.
    expect(!v2.ok && v2.failures.map((f) => [f.part, f.field, f.siteId]).sort()).toEqual([
      ['service', 'siteIds', undefined],
      ['watermarking', 'siteIds', 'ZZ99'],
    ]);
    expect(await setupStatus(deps, 'T2')).toEqual({ configured: false, readOnly: false, siteIds: [] });
  });
  it('with Service API credentials only, a site the account does not list fails on the site field', async () => {
    const c = checkSetupForm(
      form({ siteIds: 'DEMO, ZZ98, ZZ99', defaultSite: '', wmAccountId: '', wmAccessKey: '' }),
      undefined,
      {},
    );
    if (!c.ok) throw new Error('form');
    const v = await verifySetup(deps, c.credentials);
    expect(v.ok).toBe(false);
    if (v.ok) return;
    expect(v.failures).toHaveLength(1);
    expect(v.failures[0]).toMatchObject({ part: 'service', field: 'siteIds' });
    expect(v.failures[0]!.message).toContain('does not have sites ZZ98, ZZ99');
    expect(v.failures[0]!.message).toContain('Its sites: DEMO, AB12, FILM');
    // The listed sites alone verify.
    const ok = checkSetupForm(
      form({ siteIds: 'FILM', defaultSite: '', wmAccountId: '', wmAccessKey: '' }),
      undefined,
      {},
    );
    if (!ok.ok) throw new Error('form');
    expect((await verifySetup(deps, ok.credentials)).ok).toBe(true);
  });

  it('an unreachable service fails on the URL field', async () => {
    const c = checkSetupForm(
      form({ svcBaseUrl: 'http://127.0.0.1:9/svc', wmAccountId: '', wmAccessKey: '' }),
      undefined,
      {},
    );
    if (!c.ok) throw new Error('form');
    const v = await verifySetup(deps, c.credentials);
    expect(!v.ok && v.failures.map((f) => f.field)).toEqual(['svcBaseUrl']);
  });
});
