import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../dev/emulator/index.js';
import type { EmulatorHandle } from '../../dev/emulator/types.js';
import { createApi, OriginPolicy, OriginRefusedError } from '../../src/api/index.js';
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
  it('blank secrets keep the saved ones while the origin stays; blank URLs use the defaults', () => {
    const existing = checkSetupForm(form(), undefined, {});
    if (!existing.ok) throw new Error('setup');
    // Same origin as the saved URLs (the default differs only in its path).
    const origin = new URL(emu.wmBaseUrl).origin;
    const r = checkSetupForm(
      form({ wmAccessKey: '', svcSecretKey: '', wmBaseUrl: '', svcBaseUrl: '' }),
      existing.credentials,
      { wmBaseUrl: `${origin}/wm`, svcBaseUrl: `${origin}/svc/` },
    );
    expect(r.ok && r.credentials.watermarking?.accessKey).toBe(emu.demo.watermarking.accessKey);
    expect(r.ok && r.credentials.service?.secretKey).toBe(emu.demo.service.secretKey);
    expect(r.ok && r.credentials.service?.baseUrl).toBe(`${origin}/svc`);
  });

  it('a base URL moved to another origin with blank secrets does not reuse the saved keys', () => {
    const existing = checkSetupForm(form(), undefined, {});
    if (!existing.ok) throw new Error('setup');
    const oldHost = new URL(emu.wmBaseUrl).host;
    const moved = checkSetupForm(
      form({
        wmAccessKey: '',
        svcSecretKey: '',
        wmBaseUrl: 'https://wm.attacker.example/wm',
        svcBaseUrl: 'http://127.0.0.1:1/svc',
      }),
      existing.credentials,
      {},
    );
    expect(moved.ok).toBe(false);
    if (moved.ok) return;
    expect(moved.errors.wmAccessKey).toBe(
      `The Watermarking API URL moves from ${oldHost} to wm.attacker.example: enter the access key again. A saved key is only sent to the host it was saved for.`,
    );
    expect(moved.errors.svcSecretKey).toMatch(/moves from .* to 127\.0\.0\.1:1: enter the secret key again/);
    // A blank URL field that falls back to a default on another origin is a move too.
    const viaDefault = checkSetupForm(form({ wmAccessKey: '', wmBaseUrl: '' }), existing.credentials, {
      wmBaseUrl: 'https://other.example',
    });
    expect(!viaDefault.ok && viaDefault.errors.wmAccessKey).toMatch(/enter the access key again/);
    // Typing the key again is accepted.
    const retyped = checkSetupForm(
      form({ svcSecretKey: '', svcBaseUrl: emu.serviceBaseUrl, wmBaseUrl: 'https://wm.new.example' }),
      existing.credentials,
      {},
    );
    expect(retyped.ok && retyped.credentials.watermarking?.baseUrl).toBe('https://wm.new.example');
  });

  it('checks base URLs against the upstream allow-list inline when given one', () => {
    const policy = new OriginPolicy({ configured: [emu.wmBaseUrl], allowed: ['https://svc.example.com'] });
    const r = checkSetupForm(
      form({ wmBaseUrl: 'http://127.0.0.9:4010/wm', svcBaseUrl: 'http://169.254.169.254/latest' }),
      undefined,
      { upstream: policy },
    );
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors.wmBaseUrl).toBe(
      'Not allowed: use https://, or add http://127.0.0.9:4010 to UPSTREAM_ALLOWED_ORIGINS, then restart. Plain http to http://127.0.0.9:4010 (a loopback address (this machine)) is refused unless the operator lists it.',
    );
    expect(r.errors.svcBaseUrl).toMatch(/cloud metadata address; the bot never connects there/);
    const okForm = checkSetupForm(form({ svcBaseUrl: 'https://svc.example.com/v2' }), undefined, {
      upstream: policy,
    });
    expect(okForm.ok).toBe(true);
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

  it('a service that echoes the typed key back in its refusal never gets it into the failure text', async () => {
    const typed = 'typed-access-key-7f3a9c2e5b';
    const echo = createServer((req, res) => {
      req.resume();
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error_code: 'AUTH', error_message: `access key ${typed} is not valid` }));
    });
    await new Promise<void>((r) => echo.listen(0, '127.0.0.1', r));
    const port = (echo.address() as AddressInfo).port;
    try {
      const c = checkSetupForm(
        form({
          siteIds: 'DEMO',
          defaultSite: '',
          wmAccessKey: typed,
          wmBaseUrl: `http://127.0.0.1:${port}/wm`,
          svcAccountId: '',
          svcAccountSeq: '',
          svcSecretKey: '',
          svcBaseUrl: '',
        }),
        undefined,
        {},
      );
      if (!c.ok) throw new Error(`form: ${JSON.stringify(c.errors)}`);
      const v = await verifySetup(deps, c.credentials);
      expect(v.ok).toBe(false);
      if (v.ok) return;
      expect(v.failures.map((f) => f.field)).toContain('wmAccessKey');
      expect(JSON.stringify(v.failures)).not.toContain(typed);
    } finally {
      await new Promise<void>((r) => echo.close(() => r()));
    }
  });

  it('a refused login says what the service said and that its clock is off, under the key field', async () => {
    emu.setBehaviours({ clockSkewMs: -30 * 60_000 });
    try {
      const c = checkSetupForm(
        form({
          siteIds: 'DEMO',
          defaultSite: '',
          wmAccountId: '',
          wmAccessKey: '',
          svcSecretKey: 'wrong-key',
        }),
        undefined,
        {},
      );
      if (!c.ok) throw new Error('form');
      const v = await verifySetup({ ...deps, now: Date.now }, c.credentials);
      expect(v.ok).toBe(false);
      if (v.ok) return;
      expect(v.failures[0]).toMatchObject({ part: 'service', field: 'svcSecretKey' });
      expect(v.failures[0]!.message).toContain('refused the account id or key');
      expect(v.failures[0]!.message).toContain(
        'saying "The JWT is not valid (signature, claims or expiry)."',
      );
      expect(v.failures[0]!.message).toContain('30 minutes behind');
      expect(v.failures[0]!.message).toContain('SERVICE_JWT_SUB');
      expect(v.failures[0]!.message).not.toContain('wrong-key');
    } finally {
      emu.setBehaviours({});
    }
  });

  it('a 403 on the site list means the JWT was accepted: saved, with a note that the site list is not permitted', async () => {
    emu.addServiceAccount({
      accountId: 'no-sites-api',
      accountSeq: '77',
      secretKey: 'no-sites-secret',
      sites: [{ siteId: 'NS01', name: 'No Sites' }],
      forbidden: true,
    });
    const c = checkSetupForm(
      form({
        siteIds: 'NS01',
        defaultSite: '',
        wmAccountId: '',
        wmAccessKey: '',
        svcAccountId: 'no-sites-api',
        svcAccountSeq: '77',
        svcSecretKey: 'no-sites-secret',
      }),
      undefined,
      {},
    );
    if (!c.ok) throw new Error('form');
    const v = await verifySetup(deps, c.credentials);
    expect(v.ok).toBe(true);
    if (!v.ok) return;
    expect(v.notes).toHaveLength(1);
    expect(v.notes![0]).toContain(
      'accepted the account id and key, but the site list is not permitted for this account',
    );
    expect(v.notes![0]).toContain('No permission for the called API.');
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

  it('saving credentials that moved to another host records the old and new hosts (no secrets)', async () => {
    const first = checkSetupForm(form(), undefined, {});
    if (!first.ok) throw new Error('form');
    await saveSetup(deps, 'T9', first.credentials, 'x', 'U1');
    expect((await store.audit.list('T9')).filter((e) => e.action === 'setup.hosts')).toEqual([]);
    // A second emulator: a different origin (port), keys typed again.
    const other = await startEmulator();
    try {
      const moved = checkSetupForm(form({ wmBaseUrl: other.wmBaseUrl }), first.credentials, {});
      if (!moved.ok) throw new Error('form');
      await saveSetup(deps, 'T9', moved.credentials, 'y', 'U2');
    } finally {
      await other.close();
    }
    const entries = (await store.audit.list('T9')).filter((e) => e.action === 'setup.hosts');
    expect(entries).toHaveLength(1);
    const oldHost = new URL(emu.wmBaseUrl).host;
    const newHost = new URL(other.wmBaseUrl).host;
    expect(entries[0]).toMatchObject({ userId: 'U2', result: 'ok' });
    expect(entries[0]!.detail).toBe(
      `credentials now go to another host. Watermarking API host: ${oldHost} -> ${newHost}`,
    );
    expect(entries[0]!.detail).not.toContain(emu.demo.watermarking.accessKey);
  });

  it('an origin not on the allow-list is refused before any connection, with a clear message', async () => {
    // A listener on 127.0.0.9 (loopback, not allowed): it must never see a connection.
    let connections = 0;
    const trap = createServer(() => undefined);
    trap.on('connection', (sock) => {
      connections++;
      sock.destroy();
    });
    await new Promise<void>((r) => trap.listen(0, '127.0.0.9', r));
    const port = (trap.address() as AddressInfo).port;
    const guarded = createApi({
      retries: { max: 0 },
      upstream: { configuredBaseUrls: [emu.wmBaseUrl, emu.serviceBaseUrl], allowedOrigins: [] },
    });
    try {
      const c = checkSetupForm(
        form({ wmBaseUrl: `http://127.0.0.9:${port}/wm`, svcBaseUrl: `http://127.0.0.9:${port}/svc` }),
        undefined,
        {},
      );
      if (!c.ok) throw new Error('form');
      const v = await verifySetup({ ...deps, api: guarded }, c.credentials);
      expect(v.ok).toBe(false);
      if (v.ok) return;
      expect(v.failures.map((f) => f.field).sort()).toEqual(['svcBaseUrl', 'wmBaseUrl']);
      expect(v.failures.find((f) => f.part === 'service')?.message).toBe(
        `Not allowed: use https://, or add http://127.0.0.9:${port} to UPSTREAM_ALLOWED_ORIGINS, then restart. Plain http to http://127.0.0.9:${port} (a loopback address (this machine)) is refused unless the operator lists it (the Service API URL).`,
      );
      expect(connections).toBe(0);
      expect(guarded.http.openOrigins()).toEqual([]);
      // The HTTP layer refuses too, on its own (one place, before any connection).
      const direct = await guarded
        .watermarking({ ...emu.demo.watermarking, baseUrl: `http://127.0.0.9:${port}/wm` })
        .verify('DEMO')
        .catch((e) => e);
      expect(direct).toBeInstanceOf(OriginRefusedError);
      expect(connections).toBe(0);
      // The configured base URLs are allowed by default.
      const okForm = checkSetupForm(form(), undefined, {});
      if (!okForm.ok) throw new Error('form');
      expect((await verifySetup({ ...deps, api: guarded }, okForm.credentials)).ok).toBe(true);
    } finally {
      await guarded.close();
      await new Promise<void>((r) => trap.close(() => r()));
    }
  });

  it('a probe of something that is not the service never echoes its HTTP status', async () => {
    const web = createServer((_req, res) => {
      res.writeHead(418, { 'content-type': 'text/plain' });
      res.end('I am a teapot');
    });
    await new Promise<void>((r) => web.listen(0, '127.0.0.1', r));
    const port = (web.address() as AddressInfo).port;
    try {
      const c = checkSetupForm(
        form({ svcBaseUrl: `http://127.0.0.1:${port}/svc`, wmAccountId: '', wmAccessKey: '' }),
        undefined,
        {},
      );
      if (!c.ok) throw new Error('form');
      const v = await verifySetup(deps, c.credentials);
      expect(v.ok).toBe(false);
      if (v.ok) return;
      expect(v.failures).toEqual([
        {
          part: 'service',
          field: 'svcBaseUrl',
          message:
            'The Service API URL given is not a service endpoint. Check the URL (scheme, host, port and path).',
        },
      ]);
      expect(JSON.stringify(v)).not.toMatch(/418|teapot/);
    } finally {
      await new Promise<void>((r) => web.close(() => r()));
    }
  });
});

describe('setup without a configured URL', () => {
  it('a URL the form could not show is refused with the operator fix first (DWM_BASE_URL, restart)', () => {
    const r = checkSetupForm(
      { siteIds: 'AB12', wmAccountId: 'acc', wmAccessKey: 'key-123456789' },
      undefined,
      {},
    );
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors.wmBaseUrl).toBe(
      'Not set: whoever runs the bot sets DWM_BASE_URL (the Watermarking API URL your service provider gives), then restarts it.',
    );
    // A URL field shown and left blank asks for the URL.
    const typed = checkSetupForm(
      { siteIds: 'AB12', wmAccountId: 'acc', wmAccessKey: 'key-123456789', wmBaseUrl: '' },
      undefined,
      {},
    );
    expect(!typed.ok && typed.errors.wmBaseUrl).toMatch(/^Give the Watermarking API URL/);
  });
});
