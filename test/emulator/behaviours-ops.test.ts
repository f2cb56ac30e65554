/**
 * Every user operation of src/ops against an emulator that deviates from the specs, each
 * deviation alone and all at once. Reads are compared with the same reads made with no deviation
 * (same emulator state): the data must be the same, except for exactly what the deviation
 * changes (ids shifted near 2^53, codes the specs do not list). Writes must do what they say.
 * Loopback only.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ALL_BEHAVIOURS,
  BIG_ID_OFFSET,
  type EmulatorBehaviours,
  startEmulator,
  UNKNOWN_CODE_MAP,
} from '../../dev/emulator/index.js';
import type { EmulatorHandle } from '../../dev/emulator/types.js';
import { AuthError, ProtocolError } from '../../src/api/errors.js';
import { type Api, createApi } from '../../src/api/index.js';
import type { ServiceClient, WatermarkingClient } from '../../src/api/types.js';
import { gatherHome } from '../../src/ops/home.js';
import { listAllJobs, listJobs, summariseJob } from '../../src/ops/jobs.js';
import { editRecipient, existingLookup, findExisting, resolveRecipient } from '../../src/ops/recipients.js';
import {
  exportAll,
  listCids,
  listDevices,
  listLicenses,
  listPackaging,
  listUsers,
} from '../../src/ops/service/drm-data.js';
import { registerFpsCert } from '../../src/ops/service/fpscert.js';
import {
  addMember,
  changeGroup,
  findMember,
  listMembers,
  resetPassword,
  setMemberActive,
} from '../../src/ops/service/members.js';
import { getPlanState } from '../../src/ops/service/plan.js';
import { getSettings, updateSettings } from '../../src/ops/service/settings.js';
import { listSiteRequests, listSites, requestAdditionalSite } from '../../src/ops/service/sites.js';
import { getStatsComparison } from '../../src/ops/service/stats.js';
import { parseRecipientLines, planRegistration } from '../../src/ops/watermarking/registration/plan.js';
import { reportCounts, runRegistration } from '../../src/ops/watermarking/registration/run.js';
import type { OpsDeps } from '../../src/ops/workspace.js';
import { createStore } from '../../src/store/index.js';
import type { Store } from '../../src/store/types.js';

const T0 = Date.UTC(2026, 10, 22, 12, 0, 0);
const SITE = 'DEMO';
let emu: EmulatorHandle;
let api: Api;
let wm: WatermarkingClient;
let svc: ServiceClient;
let store: Store;
let deps: OpsDeps;

beforeAll(async () => {
  emu = await startEmulator({ now: () => T0 });
  // SERVICE_JWT_TTL_SECONDS=0: no exp, so a server clock running ahead cannot expire the JWT.
  api = createApi({ retries: { max: 0 }, jwtTtlSeconds: 0, clock: () => T0 });
  wm = api.watermarking({ ...emu.demo.watermarking, baseUrl: emu.wmBaseUrl });
  svc = api.service({ ...emu.demo.service, baseUrl: emu.serviceBaseUrl });
  store = await createStore({ url: 'memory://', encryptionKey: randomBytes(32).toString('base64') });
  deps = {
    config: {
      distribution: 'single',
      envCredentials: {
        siteIds: emu.demo.siteIds,
        defaultSiteId: emu.demo.defaultSiteId,
        watermarking: { ...emu.demo.watermarking, baseUrl: emu.wmBaseUrl },
        service: { ...emu.demo.service, baseUrl: emu.serviceBaseUrl },
      },
    },
    store,
    api,
    now: () => T0,
  };
});
afterAll(async () => {
  await api?.close();
  await emu?.close();
  await store?.close();
});

/** Every read a user can make, through the ops layer. */
async function readAll() {
  const jobs = await listJobs(wm, SITE, { pageUnit: 200, timeZone: 'Asia/Seoul' }, { now: T0 });
  const active = await listAllJobs(wm, SITE, { statuses: ['ready', 'preprocessing'] }, { now: T0 });
  if (!jobs.ok) throw new Error('listJobs');
  const details = [];
  for (const j of jobs.page.items.slice(0, 6)) {
    const job = await wm.getJob(SITE, j.jobId, { timeZone: '+09:00' });
    const tasks = await wm.getJobTasks(SITE, j.jobId, { timeZone: '+09:00' });
    details.push(summariseJob(job, tasks.items));
  }
  const recipients = await wm.searchRecipients(SITE, { pageUnit: 1000, timeZone: '+09:00' });
  const first = recipients.items[0];
  if (!first) throw new Error('no recipients');
  const byName = await resolveRecipient(wm, SITE, first.name.toUpperCase());
  const byId = await resolveRecipient(wm, SITE, String(first.dwmId));
  const existing = [
    ...(await findExisting(
      wm,
      SITE,
      recipients.items.slice(0, 5).map((r) => r.name),
    )),
  ];
  const home = await gatherHome(deps, 'T1');
  const sites = await listSites(svc);
  const siteRequests = await listSiteRequests(svc, { pageSize: 100 });
  const members = await listMembers(svc, { pageSize: 100 });
  const member = members.items[0] ? await findMember(svc, members.items[0].memberSeq) : null;
  const plans = [];
  for (const s of ['AB12', 'DEMO', 'FILM'])
    for (const p of ['drm', 'fwm']) plans.push(await getPlanState(svc, s, p));
  return {
    jobs,
    active,
    details,
    recipients,
    byName,
    byId,
    existing,
    home,
    sites,
    siteRequests,
    members,
    member,
    plans,
    licenses: await listLicenses(svc, SITE, { pageSize: 50 }),
    users: await listUsers(svc, SITE, { pageSize: 50 }),
    devices: await listDevices(svc, SITE, { pageSize: 50 }),
    cids: await listCids(svc, SITE, { pageSize: 50 }),
    packaging: await listPackaging(svc, { siteId: SITE }),
    exported: await exportAll('licenses', svc, SITE, {}),
    settings: await getSettings(svc, SITE),
    stats: await getStatsComparison(svc, SITE, '2026-11-01', { now: () => T0 }),
  };
}

const ID_KEYS = new Set(['jobId', 'dwmId', 'seq', 'memberSeq']);
const CODE_MAP: Record<string, string> = Object.assign({}, ...Object.values(UNKNOWN_CODE_MAP));

/** What the baseline must look like under the deviation (ids shifted, codes replaced). */
function expected(v: unknown, b: EmulatorBehaviours, key = ''): unknown {
  if (Array.isArray(v)) return v.map((x) => expected(x, b, key));
  if (v && typeof v === 'object') {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, expected(x, b, k)]));
  }
  if (b.bigIds && ID_KEYS.has(key) && typeof v === 'number') return v + BIG_ID_OFFSET;
  // The server's clock as its Date header says (read by the watcher): moved by the skew.
  if (key === 'serverClockSkewMs' && typeof v === 'number') return v + (b.clockSkewMs ?? 0);
  if (b.unknownCodes && typeof v === 'string' && CODE_MAP[v]) return CODE_MAP[v];
  return v;
}

/**
 * Values derived from a code (labels, flags, per-code counts): under unknownCodes they change
 * with the code, by design ("unknown (CODE)", not pending, not terminal...). Dropped from the
 * comparison for that deviation only; the codes themselves are compared.
 */
const DERIVED = new Set(['statusLabel', 'pending', 'isTerminal', 'actions', 'counts', 'label', 'latest']);
function withoutDerived(v: unknown): unknown {
  // Orders derived from codes (tasks ranked failed, progressing, ready...) change too: compare
  // lists as sets there.
  if (Array.isArray(v))
    return v.map(withoutDerived).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
  if (v && typeof v === 'object') {
    return Object.fromEntries(
      Object.entries(v)
        .filter(([k]) => !DERIVED.has(k))
        .map(([k, x]) => [k, withoutDerived(x)]),
    );
  }
  return v;
}

/** Dates are not serialisable for comparison: make everything plain JSON. */
const plain = (x: unknown) => JSON.parse(JSON.stringify(x, (_k, v) => (v instanceof Map ? [...v] : v)));

const CASES: Array<[string, EmulatorBehaviours]> = [
  ['optional fields left out', { omitEmptyFields: true }],
  ['unknown codes', { unknownCodes: true }],
  ['big ids as strings', { bigIds: true }],
  ['server clock 10 minutes ahead', { clockSkewMs: 10 * 60_000 }],
  ['another duplicate code', { duplicateCode: 'DUP-01' }],
  ['time_zone "Asia/Seoul"', { timeZoneText: 'Asia/Seoul' }],
  ['time_zone "GMT+09:00"', { timeZoneText: 'GMT+09:00' }],
  ['time_zone ""', { timeZoneText: '' }],
  ['all at once', ALL_BEHAVIOURS],
];

describe('every read answers with the right data', () => {
  let baseline: unknown;
  beforeAll(async () => {
    emu.setBehaviours({});
    baseline = plain(await readAll());
    // The baseline holds what each deviation changes (else a comparison could pass vacuously),
    // and no part of it failed.
    const text = JSON.stringify(baseline);
    expect(text).not.toContain('"ok":false');
    expect(text).toContain('"description":""');
    for (const code of ['DM001', 'TK001', 'SE001', 'ST001']) expect(text).toContain(`"${code}"`);
    expect(text).toMatch(/"dwmId":\d+/);
  });

  it.each(CASES)('%s', async (_name, b) => {
    emu.setBehaviours(b);
    try {
      const got = plain(await readAll());
      const want = expected(baseline, b);
      if (b.unknownCodes) expect(withoutDerived(got)).toEqual(withoutDerived(want));
      else expect(got).toEqual(want);
    } finally {
      emu.setBehaviours({});
    }
  });
});

describe('every write does what it says', () => {
  let n = 0;
  it.each(CASES)('%s', async (_name, b) => {
    emu.setBehaviours(b);
    const tag = `bw${++n}x${Date.now().toString(36)}`;
    try {
      // Registration: one name registered meanwhile (another case), the rest registered once.
      const names = [`${tag}-a`, `${tag}-b`, `${tag}-c`];
      const plan = await planRegistration(parseRecipientLines(names.join('\n')), existingLookup(wm, SITE));
      await wm.registerRecipients(SITE, [{ name: names[1]!.toUpperCase() }]);
      const report = await runRegistration(wm, SITE, plan);
      expect(reportCounts(report)).toMatchObject({ registered: 2, registeredMeanwhile: 1, failed: 0 });
      const found = await findExisting(wm, SITE, names, { strategy: 'list' });
      expect([...found.keys()].sort()).toEqual(names.map((x) => x.toLowerCase()).sort());
      const mine = report.registered.find((r) => r.name === names[0]);
      expect(found.get(names[0]!.toLowerCase())?.dwmId).toBe(mine?.dwmId);
      if (b.bigIds) expect(mine?.dwmId).toBeGreaterThan(BIG_ID_OFFSET);

      // Edit: 50 emoji are 50 characters.
      const edited = await editRecipient(wm, SITE, mine!.dwmId, { description: '😀'.repeat(50) });
      expect(edited).toMatchObject({ ok: true, dwmId: mine!.dwmId });
      expect((await wm.getRecipient(SITE, mine!.dwmId)).description).toBe('😀'.repeat(50));
      // Renaming to a name another recipient holds is a duplicate, whatever code says so.
      const clash = await editRecipient(wm, SITE, mine!.dwmId, { name: names[2]!.toUpperCase() });
      expect(clash).toMatchObject({ ok: false, reason: 'duplicate' });

      // Members: add, deactivate, change group, reset the password.
      const added = await addMember(svc, `${tag}@example.com`, 'TS');
      if (b.bigIds) expect(added.memberSeq).toBeGreaterThan(BIG_ID_OFFSET);
      await setMemberActive(svc, added.memberSeq, false);
      await changeGroup(svc, added.memberSeq, 'BIZ');
      await resetPassword(svc, added.memberSeq);
      const m = await findMember(svc, added.memberSeq);
      expect(m).toMatchObject({
        memberSeq: added.memberSeq,
        email: `${tag}@example.com`,
        groupSeq: 1000,
        status: b.unknownCodes ? 'MT003' : 'MT002',
      });

      // Settings, certificate, additional site.
      await updateSettings(svc, SITE, { licenseCallbackUrl: `https://cb.example.com/${tag}` });
      expect((await getSettings(svc, SITE)).licenseCallbackUrl).toContain(tag);
      const cert = await registerFpsCert(svc, SITE, {
        ask: 'ask-value',
        keyPw: 'pw',
        fpsCert: { filename: 'c.der', data: new Uint8Array([1, 2, 3]) },
        privateKey: { filename: 'k.pem', data: new Uint8Array([4, 5]) },
      });
      expect(cert).toMatchObject({ siteId: SITE, certificate: { bytes: 3 } });
      const extra = await requestAdditionalSite(svc, `Site ${tag}`);
      const reqs = await listSiteRequests(svc, { pageSize: 1000 });
      expect(reqs.items.some((r) => r.seq === extra.seq && r.serviceName === `Site ${tag}`)).toBe(true);
    } finally {
      emu.setBehaviours({});
    }
  });
});

describe('ids beyond 2^53', () => {
  it('are refused clearly (naming the field), never rounded; answers without ids still work', async () => {
    emu.setBehaviours({ idsBeyondSafe: true });
    try {
      const jobs = await listJobs(wm, SITE, { pageUnit: 10 }, { now: T0 }).catch((e) => e);
      expect(jobs).toBeInstanceOf(ProtocolError);
      expect(jobs.field).toBe('data[0].job_id');
      expect(jobs.message).toMatch(/beyond 2\^53-1 and cannot be held exactly/);
      const members = await listMembers(svc, { pageSize: 10 }).catch((e) => e);
      expect(members).toBeInstanceOf(ProtocolError);
      expect(members.field).toBe('data[0].member_seq');
      expect((await listSites(svc)).length).toBeGreaterThan(0);
      expect((await listLicenses(svc, SITE, { pageSize: 5 })).items.length).toBe(5);
    } finally {
      emu.setBehaviours({});
    }
  });
});

describe('clock skew with the default JWT lifetime', () => {
  it('fails with a message that names the skew and the setting to change', async () => {
    const strict = createApi({ retries: { max: 0 }, clock: () => T0 });
    emu.setBehaviours({ clockSkewMs: 10 * 60_000 });
    try {
      const err = await listSites(strict.service({ ...emu.demo.service, baseUrl: emu.serviceBaseUrl })).catch(
        (e) => e,
      );
      expect(err).toBeInstanceOf(AuthError);
      expect(err.message).toMatch(/clock \(its Date header\) is 10 minutes ahead of this bot's clock/);
      expect(err.message).toContain('SERVICE_JWT_TTL_SECONDS');
    } finally {
      emu.setBehaviours({});
      await strict.close();
    }
  });
});
