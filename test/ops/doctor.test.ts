/**
 * The service check against the emulator under each reading of the points the specs leave open:
 * it finds the reading and proposes the right settings, and it only ever reads. Loopback only.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type EmulatorBehaviours, startEmulator } from '../../dev/emulator/index.js';
import type { EmulatorHandle } from '../../dev/emulator/types.js';
import { type Api, createApi } from '../../src/api/index.js';
import type { WorkspaceCredentials } from '../../src/api/types.js';
import { doctorCli, doctorText } from '../../src/doctor.js';
import {
  DOCTOR_CHECKS,
  type DoctorCheck,
  type DoctorReport,
  type DoctorSettings,
  doctorSettingsOf,
  runDoctor,
} from '../../src/ops/doctor.js';
import { createStore } from '../../src/store/index.js';

const T0 = Date.UTC(2026, 10, 22, 12, 0, 0);
const KEY = randomBytes(32).toString('base64');
let emu: EmulatorHandle;
let api: Api;
let methods: string[];

beforeEach(async () => {
  emu = await startEmulator({ now: () => T0 });
  api = createApi({ retries: { max: 0 }, clock: () => T0 });
  methods = [];
  const request = api.http.request.bind(api.http);
  api.http.request = (req) => {
    methods.push(req.method);
    return request(req);
  };
});
afterEach(async () => {
  await api.close();
  await emu.close();
});

function creds(over: Partial<WorkspaceCredentials> = {}): WorkspaceCredentials {
  return {
    siteIds: ['DEMO', 'AB12'],
    defaultSiteId: 'DEMO',
    watermarking: { ...emu.demo.watermarking, baseUrl: emu.wmBaseUrl },
    service: { ...emu.demo.service, baseUrl: emu.serviceBaseUrl },
    ...over,
  };
}

function settings(
  env: { SERVICE_ERROR_CODES?: string; SERVICE_SITE_REQUEST_STATUSES?: string; ttl?: number } = {},
): DoctorSettings {
  return doctorSettingsOf({
    ...(env.SERVICE_ERROR_CODES ? { serviceErrorCodes: env.SERVICE_ERROR_CODES } : {}),
    ...(env.SERVICE_SITE_REQUEST_STATUSES ? { siteRequestStatuses: env.SERVICE_SITE_REQUEST_STATUSES } : {}),
    serviceJwtTtlSeconds: env.ttl ?? 300,
    serviceApi: {
      bodyEncoding: 'json',
      apiCodeIn: 'query',
      jwtAccountSeqType: 'string',
      jwtSecretEncoding: 'utf8',
      licenseTimeZone: '+00:00',
      timeZone: 'UTC',
    },
  });
}

async function check(b: EmulatorBehaviours, s = settings(), c = creds()): Promise<DoctorReport> {
  emu.setBehaviours(b);
  return runDoctor({ api, credentials: c, settings: s, now: () => T0 });
}

const finding = (r: DoctorReport, id: string) => r.findings.find((f) => f.id === id)!;

describe('the service check', () => {
  it('on a service that answers as the bot expects: nothing to set, exit 0, and only GET calls', async () => {
    const r = await check({});
    expect(r.findings.filter((f) => f.status === 'setting' || f.status === 'failed')).toEqual([]);
    expect(r.needsAction).toBe(false);
    expect(r.envLines).toEqual([]);
    expect(finding(r, 'svc.planNone')).toMatchObject({
      status: 'ok',
      reading: expect.stringContaining('data null'),
    });
    expect(finding(r, 'wm.timeZone').status).toBe('ok');
    expect(finding(r, 'wm.totalCount').status).toBe('ok');
    expect(finding(r, 'svc.placement').status).toBe('not-observed');
    // Read-only: never a POST or PUT, at the HTTP layer and at the service.
    expect(methods.length).toBeGreaterThan(5);
    expect(new Set(methods)).toEqual(new Set(['GET']));
    expect(Object.keys(emu.requestCounts()).every((k) => k.startsWith('GET '))).toBe(true);
    expect(doctorText(r)).toContain('No setting needed');
  });

  it('endpoint 8 "none" as a refusal with an unknown code: proposes SERVICE_ERROR_CODES, merged with the current value; with it, ok', async () => {
    const current = '{"recipientInUse":"X-77"}';
    const r = await check(
      { planNone: 'notFound', planNoneCode: 'NF-404' },
      settings({ SERVICE_ERROR_CODES: current }),
    );
    expect(finding(r, 'svc.planNone')).toMatchObject({ status: 'setting' });
    // Learnt on the Service API only: the per-API key, the watermarking API's codes untouched.
    expect(r.envLines).toEqual([
      'SERVICE_ERROR_CODES={"recipientInUse":"X-77","svc.requestNotFound":"NF-404"}',
    ]);
    expect(r.needsAction).toBe(true);
    const fixed = await check(
      { planNone: 'notFound', planNoneCode: 'NF-404' },
      settings({ SERVICE_ERROR_CODES: r.envLines[0]!.slice('SERVICE_ERROR_CODES='.length) }),
    );
    expect(finding(fixed, 'svc.planNone').status).toBe('ok');
    expect(fixed.needsAction).toBe(false);
  });

  it('endpoint 8 "none" as an empty list or the agreed not-found code: read as none, nothing to set', async () => {
    for (const b of [{ planNone: 'empty' }, { planNone: 'notFound' }] as const) {
      const r = await check(b);
      expect(finding(r, 'svc.planNone').status, JSON.stringify(b)).toBe('ok');
      expect(r.envLines).toEqual([]);
    }
  });

  it('missing job and recipient answered with other codes: both learnt from ids that cannot exist', async () => {
    const r = await check({ errorCodes: { jobNotFound: 'J404', recipientNotFound: 'R404' } });
    expect(finding(r, 'wm.jobNotFound').status).toBe('setting');
    expect(finding(r, 'wm.recipientNotFound').status).toBe('setting');
    expect(r.envLines).toEqual([
      'SERVICE_ERROR_CODES={"wm.jobNotFound":"J404","wm.recipientNotFound":"R404"}',
    ]);
    // With the proposed line in force, the same service needs nothing more.
    const fixed = await check(
      { errorCodes: { jobNotFound: 'J404', recipientNotFound: 'R404' } },
      settings({ SERVICE_ERROR_CODES: r.envLines[0]!.slice('SERVICE_ERROR_CODES='.length) }),
    );
    expect(finding(fixed, 'wm.jobNotFound').status).toBe('ok');
    expect(finding(fixed, 'wm.recipientNotFound').status).toBe('ok');
  });

  it('additional-site status words the bot does not know: named, with a line to complete; known words need nothing', async () => {
    const words = { siteRequestStatusWords: { requested: 'WAIT', approved: 'OK' } };
    const r = await check(words);
    expect(finding(r, 'svc.siteRequestStatuses')).toMatchObject({ status: 'setting' });
    expect(r.envLines).toEqual([
      'SERVICE_SITE_REQUEST_STATUSES={"WAIT":"pending|approved|cancelled","OK":"pending|approved|cancelled"}',
    ]);
    const fixed = await check(
      words,
      settings({ SERVICE_SITE_REQUEST_STATUSES: '{"WAIT":"pending","OK":"approved"}' }),
    );
    expect(finding(fixed, 'svc.siteRequestStatuses')).toMatchObject({
      status: 'ok',
      reading: 'seen: WAIT (pending), OK (approved)',
    });
  });

  it('a service clock ahead by more than the JWT lifetime: the login fails with the clock named, and the lifetime to set', async () => {
    const r = await check({ clockSkewMs: 20 * 60_000 });
    expect(finding(r, 'svc.login').status).toBe('failed');
    expect(finding(r, 'svc.login').reading).toContain('20 minutes ahead');
    expect(finding(r, 'clock')).toMatchObject({ status: 'setting' });
    expect(r.envLines).toEqual(['SERVICE_JWT_TTL_SECONDS=1500']);
    // A clock behind by a few seconds (within WATCH_CLOCK_ALLOWANCE_SECONDS) is reported, nothing to set.
    const slightly = await check({ clockSkewMs: -3_000 });
    expect(finding(slightly, 'clock').status).not.toBe('setting');
    expect(slightly.envLines).toEqual([]);
  });

  it('a service clock behind by more than WATCH_CLOCK_ALLOWANCE_SECONDS (clockBehind): proposes the line raising it; with it, nothing to set', async () => {
    const behind = await check({ clockSkewMs: -3 * 60_000 });
    expect(finding(behind, 'clock')).toMatchObject({
      status: 'setting',
      reading: expect.stringContaining('3 minutes behind'),
    });
    expect(behind.envLines).toEqual(['WATCH_CLOCK_ALLOWANCE_SECONDS=185']);
    expect(behind.needsAction).toBe(true);
    const raised = await check(
      { clockSkewMs: -3 * 60_000 },
      { ...settings(), watchClockAllowanceSeconds: 185 },
    );
    expect(finding(raised, 'clock').status).toBe('info');
    expect(raised.envLines).toEqual([]);
  });

  it('time_zone named, total_count left out, pages capped: each reported, none needs a setting', async () => {
    const r = await check({ timeZoneText: 'Asia/Seoul', omitTotalCount: true, pageCap: 10 });
    expect(finding(r, 'wm.timeZone')).toMatchObject({
      status: 'info',
      reading: expect.stringContaining('"Asia/Seoul"'),
    });
    expect(finding(r, 'wm.totalCount')).toMatchObject({
      status: 'info',
      reading: expect.stringContaining('no total_count'),
    });
    expect(finding(r, 'pageCap')).toMatchObject({
      status: 'info',
      reading: expect.stringContaining('capped at 10'),
    });
    expect(r.needsAction).toBe(false);
  });

  it('plan request statuses the spec does not list are named', async () => {
    const r = await check({ unknownCodes: true });
    expect(finding(r, 'svc.planStatuses')).toMatchObject({
      status: 'info',
      reading: expect.stringContaining('not in the spec: ST004'),
    });
  });

  it('a new open point is one more entry in the list; a check that throws is a failed finding, not the end', async () => {
    const extra: DoctorCheck = {
      id: 'extra',
      point: 'An extra point',
      run: async () => ({
        status: 'setting',
        reading: 'seen',
        env: [{ name: 'SERVICE_ERROR_CODES', entries: { internal: 'X9' } }],
      }),
    };
    const broken: DoctorCheck = {
      id: 'broken',
      point: 'A broken check',
      run: async () => {
        throw new Error('boom');
      },
    };
    emu.setBehaviours({ planNone: 'notFound', planNoneCode: 'NF-404' });
    const r = await runDoctor({
      api,
      credentials: creds(),
      settings: settings(),
      now: () => T0,
      checks: [...DOCTOR_CHECKS, extra, broken],
    });
    expect(r.findings.map((f) => f.id).slice(-2)).toEqual(['extra', 'broken']);
    expect(finding(r, 'broken')).toMatchObject({ status: 'failed', reading: 'the check failed: boom' });
    expect(r.envLines).toEqual(['SERVICE_ERROR_CODES={"svc.requestNotFound":"NF-404","internal":"X9"}']);
  });

  it("refused credentials: failed with the service's explanation, the other checks still run", async () => {
    const bad = creds({
      service: { ...emu.demo.service, secretKey: 'wrong', baseUrl: emu.serviceBaseUrl },
      watermarking: { ...emu.demo.watermarking, accessKey: 'wrong', baseUrl: emu.wmBaseUrl },
    });
    const r = await check({}, settings(), bad);
    expect(finding(r, 'svc.login')).toMatchObject({
      status: 'failed',
      reading: expect.stringContaining('HTTP 401'),
    });
    expect(finding(r, 'wm.login').status).toBe('failed');
    expect(r.findings).toHaveLength(12);
    expect(r.needsAction).toBe(true);
    expect(doctorText(r)).not.toContain('wrong');
  });
});

describe('npm run doctor (the CLI core)', () => {
  // The CLI reads the bot's real clock: an emulator on the same clock (a service clock days
  // behind would rightly need WATCH_CLOCK_ALLOWANCE_SECONDS raised).
  beforeEach(async () => {
    await emu.close();
    emu = await startEmulator({});
  });
  const env = () => ({
    SLACK_BOT_TOKEN: 'xoxb-1-abc',
    SLACK_SIGNING_SECRET: 'sig-secret-value',
    ENCRYPTION_KEY: KEY,
    DWM_SITE_IDS: 'DEMO',
    DWM_ACCOUNT_ID: emu.demo.watermarking.accountId,
    DWM_ACCESS_KEY: emu.demo.watermarking.accessKey,
    DWM_BASE_URL: emu.wmBaseUrl,
    SERVICE_API_ACCOUNT_ID: emu.demo.service.accountId,
    SERVICE_API_ACCOUNT_SEQ: emu.demo.service.accountSeq,
    SERVICE_API_SECRET_KEY: emu.demo.service.secretKey,
    SERVICE_API_BASE_URL: emu.serviceBaseUrl,
    UPSTREAM_ALLOWED_ORIGINS: new URL(emu.wmBaseUrl).origin,
    SERVICE_JWT_TTL_SECONDS: '0',
  });

  it('exits 0 with nothing to set, 1 with the .env lines when a setting is needed, 2 without credentials', async () => {
    const ok = await doctorCli([], env());
    expect(ok.text).toContain('Service check (read-only');
    expect(ok.code).toBe(0);
    emu.setBehaviours({ siteRequestStatusWords: { requested: 'WAIT' } });
    const needs = await doctorCli([], env());
    expect(needs.code).toBe(1);
    expect(needs.text).toContain('SERVICE_SITE_REQUEST_STATUSES={"WAIT":"pending|approved|cancelled"}');
    const none = await doctorCli([], {
      ...env(),
      DWM_ACCOUNT_ID: '',
      DWM_ACCESS_KEY: '',
      SERVICE_API_ACCOUNT_ID: '',
      SERVICE_API_SECRET_KEY: '',
      SERVICE_API_ACCOUNT_SEQ: '',
    });
    expect(none.code).toBe(2);
  });

  it('--workspace without an id, or an unknown argument, is refused (exit 2) rather than checking the environment', async () => {
    for (const argv of [['--workspace'], ['--workspace', '--x'], ['--workpsace=T0SAVED01']]) {
      const r = await doctorCli(argv, env());
      expect(r.code).toBe(2);
      expect(r.text).toContain('Usage: npm run doctor');
      expect(r.text).not.toContain('Service check (read-only');
    }
  });

  it('--workspace checks the credentials saved for a workspace (read from the store)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'doctor-'));
    try {
      const base = env();
      const storeUrl = `sqlite://${join(dir, 'store.sqlite')}`;
      const store = await createStore({ url: storeUrl, encryptionKey: base.ENCRYPTION_KEY });
      await store.credentials.put('T0SAVED01', {
        credentials: creds({ siteIds: ['AB12'], defaultSiteId: 'AB12' }),
        verifiedAt: new Date(T0).toISOString(),
        savedBy: 'U0ADMIN01',
      });
      await store.close();
      const noEnvCreds = {
        ...base,
        STORE_URL: storeUrl,
        DWM_SITE_IDS: '',
        DWM_ACCOUNT_ID: '',
        DWM_ACCESS_KEY: '',
        SERVICE_API_ACCOUNT_ID: '',
        SERVICE_API_ACCOUNT_SEQ: '',
        SERVICE_API_SECRET_KEY: '',
      };
      const r = await doctorCli(['--workspace', 'T0SAVED01'], noEnvCreds);
      expect(r.text).toContain('a token was issued and accepted for AB12');
      expect(r.code).toBe(0);
      expect((await doctorCli(['--workspace', 'T0OTHER01'], noEnvCreds)).code).toBe(2);
      expect((await doctorCli(['--workspace=T0SAVED01'], noEnvCreds)).text).toContain(
        'a token was issued and accepted for AB12',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
