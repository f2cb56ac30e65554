/**
 * Deterministic demo data (seeded PRNG; times relative to the emulator's clock): three sites,
 * distributor-like recipients, jobs in every status with tasks, sub-members, plan requests, DRM
 * license and packaging records, settings and monthly statistics.
 */
import type { DRM_TYPES, JobStatusCode, MemberGroupSeq, TaskStatusCode } from '../../src/api/codes.js';
import { Prng } from './prng.js';
import type { EmulatorState, RecipientRec, SiteState } from './state.js';
import type { LicenseRec, MemberRec, StatusRequestRec } from './svc-state.js';
import type { DemoCredentials } from './types.js';

const DAY = 86_400_000;
const HOUR = 3_600_000;

export const DEMO_CREDENTIALS: DemoCredentials = {
  siteIds: ['DEMO', 'AB12', 'FILM'],
  defaultSiteId: 'DEMO',
  watermarking: { accountId: 'demo-distributor', accessKey: 'AK7f3a9c2e5b1d4f8a6c0e2b4d6f8a1c3e' },
  service: {
    accountId: 'demo-service',
    accountSeq: '10024',
    secretKey: 'sk_demo_4b9e2f7a1c6d3e8f0a5b2c7d9e1f4a6b',
  },
};

const SITES: { siteId: string; name: string; products: [string, string][] }[] = [
  {
    siteId: 'DEMO',
    name: 'Demo Streaming',
    products: [
      ['PD001', 'SE000'],
      ['PD002', 'SE000'],
    ],
  },
  {
    siteId: 'AB12',
    name: 'Acme Broadcast',
    products: [
      ['PD001', 'SE000'],
      ['PD002', 'SE001'],
    ],
  },
  {
    siteId: 'FILM',
    name: 'Film Archive',
    products: [
      ['PD001', 'SE001'],
      ['PD002', 'SE000'],
    ],
  },
];

export const DEMO_RECIPIENT_NAMES = [
  'Netflix-EMEA',
  'hbo.max_us',
  'Disney.Plus-APAC',
  'Amazon_Prime.JP',
  'Hulu-US',
  'Canal.Plus_FR',
  'Sky-UK',
  'Sky.DE',
  'Movistar_ES',
  'RAI.Play-IT',
  'Viaplay-Nordics',
  'Showmax_ZA',
  'Globoplay.BR',
  'Claro-Video_LATAM',
  'iQIYI-Intl',
  'WeTV.TH',
  'Viu_HK',
  'Hotstar-IN',
  'Zee5.IN',
  'Stan-AU',
  'Binge_AU',
  'Crave-CA',
  'Peacock.US',
  'Paramount-Plus_US',
  'AppleTV.Global',
  'Rakuten_TV-EU',
  'Videoland.NL',
  'Joyn-DE',
  'TF1.Plus-FR',
  'NPO_Start',
  'SVT.Play-SE',
  'Yle_Areena',
  'Wavve.KR',
  'Tving-KR',
  'U-NEXT_JP',
  'Hulu.JP',
  'Starzplay-MENA',
  'OSN.Plus_AE',
  'Shahid-MENA',
  'MUBI.Global',
];

const CONTENT_STEMS = [
  'MOVIE-2024',
  'SERIES_S01E',
  'DOC.NATURE',
  'KIDS-TOON',
  'SPORT.FINAL',
  'TRAILER-HD',
  'CONCERT_LIVE',
  'ANIME-EP',
];

const CLI_ERRORS = ['E-417', 'E-503', 'E-102', 'E-417', 'E-221'];

const PLATFORMS: { platform: string; drm: string[]; models: string[] }[] = [
  { platform: 'Android', drm: ['Widevine', 'NCG'], models: ['SM-G991N', 'Pixel 7', 'SM-S918B', 'M2101K6G'] },
  { platform: 'iOS', drm: ['FairPlay', 'NCG'], models: ['iPhone15,2', 'iPhone14,5', 'iPad13,4'] },
  { platform: 'Windows', drm: ['PlayReady', 'Widevine'], models: ['Chrome 120', 'Edge 121', 'Firefox 122'] },
  { platform: 'macOS', drm: ['FairPlay', 'Widevine'], models: ['Safari 17', 'Chrome 120'] },
  { platform: 'Tizen', drm: ['PlayReady'], models: ['QN90B', 'UN55TU7000'] },
  { platform: 'webOS', drm: ['PlayReady', 'Widevine'], models: ['OLED55C1', 'OLED65G2'] },
  { platform: 'AndroidTV', drm: ['Widevine'], models: ['SHIELD Android TV', 'Chromecast HD'] },
];

const LICENSE_ERRORS = ['4001', '4002', '4007', '5001', '6003'];

function seedRecipients(
  state: EmulatorState,
  site: SiteState,
  names: string[],
  rand: Prng,
  now: number,
): void {
  names.forEach((name, i) => {
    const reg = now - (names.length - i) * DAY * 2 - rand.int(0, 20) * HOUR;
    const r = state.addRecipient(
      site,
      name,
      rand.chance(0.7) ? `${name.split(/[-_.]/)[0]} distribution` : '',
      reg,
    );
    r.updateTimeMs = reg + (rand.chance(0.3) ? rand.int(1, 48) * HOUR : 0);
  });
}

function seedJobs(state: EmulatorState, site: SiteState, perStatus: number, rand: Prng, now: number): void {
  const recipients = [...site.recipients.values()];
  if (recipients.length === 0) return;
  const statuses: JobStatusCode[] = ['DM000', 'DM001', 'DM500', 'DM600'];
  let n = 0;
  for (const status of statuses) {
    for (let i = 0; i < perStatus; i++) {
      n++;
      const stem = rand.pick(CONTENT_STEMS);
      const contentId = `${site.siteId}_${stem}${String(n).padStart(3, '0')}`;
      const ageHours = status === 'DM000' || status === 'DM001' ? rand.int(0, 6) : rand.int(6, 24 * 30);
      const regTimeMs = now - ageHours * HOUR - rand.int(0, 3599) * 1000;
      const count = rand.int(1, Math.min(6, recipients.length));
      const chosen = new Set<RecipientRec>();
      while (chosen.size < count) chosen.add(rand.pick(recipients));
      const job = state.createJob(
        site.siteId,
        contentId,
        [...chosen].map((r) => ({ recipient: r.dwmId })),
        { regTimeMs },
      );
      // Walk the tasks to a state consistent with the job status.
      const dwmIds = job.tasks.map((t) => t.dwmId);
      dwmIds.forEach((dwmId, k) => {
        let ts: TaskStatusCode = 'TK000';
        let cli = '0';
        if (status === 'DM001') ts = rand.pick<TaskStatusCode>(['TK000', 'TK001', 'TK001', 'TK002']);
        else if (status === 'DM500') ts = 'TK002';
        else if (status === 'DM600') {
          const fail = k === 0 || rand.chance(0.3);
          ts = fail ? 'TK005' : 'TK002';
          cli = fail ? rand.pick(CLI_ERRORS) : '0';
        }
        if (ts !== 'TK000') state.setTaskStatus(site.siteId, job.jobId, dwmId, ts, cli);
      });
      if (status !== 'DM000') state.setJobStatus(site.siteId, job.jobId, status);
      // Realistic update times: a while after registration, never in the future.
      const upd = Math.min(now, regTimeMs + rand.int(1, 120) * 60_000);
      job.updateTimeMs = status === 'DM000' ? regTimeMs : upd;
      for (const t of job.tasks) t.updateTimeMs = t.status === 'TK000' ? regTimeMs : upd;
    }
  }
}

function seedLicenses(site: SiteState, count: number, rand: Prng, now: number): void {
  const users = Array.from({ length: 60 }, (_, i) => `user${String(1000 + i * 7)}`);
  const devices = Array.from({ length: 90 }, (_, i) => {
    const p = PLATFORMS[i % PLATFORMS.length] as (typeof PLATFORMS)[number];
    return { id: `dev-${rand.hex(6)}`, platform: p, model: rand.pick(p.models) };
  });
  const cids = Array.from(
    { length: 45 },
    (_, i) => `${rand.pick(CONTENT_STEMS)}${String(i + 1).padStart(3, '0')}`,
  );
  // Each user watches on 1 to 3 of the devices.
  const userDevices = new Map(
    users.map((u) => [u, Array.from({ length: rand.int(1, 3) }, () => rand.pick(devices))] as const),
  );
  const out: LicenseRec[] = [];
  for (let i = 0; i < count; i++) {
    const userId = rand.pick(users);
    const dev = rand.pick(userDevices.get(userId) ?? devices);
    const success = rand.chance(0.88);
    out.push({
      cid: rand.pick(cids),
      status: success ? 'success' : 'fail',
      errorCode: success ? '0000' : rand.pick(LICENSE_ERRORS),
      drmType: rand.pick(dev.platform.drm) as (typeof DRM_TYPES)[number],
      userId,
      deviceId: dev.id,
      deviceModel: dev.model,
      licenseType: rand.chance(0.75) ? 'token' : 'gateway',
      platformName: dev.platform.platform,
      regTimeMs: now - rand.int(0, 90 * 24 * 3600 - 1) * 1000,
    });
  }
  out.sort((a, b) => a.regTimeMs - b.regTimeMs);
  site.svc.licenses = out;
}

function seedPackaging(site: SiteState, count: number, rand: Prng, now: number): void {
  const tracks = ['HD', 'HD', 'HD', 'SD', 'UHD', 'AUDIO'];
  // Distinct creation times (one per slot) keep the keyset order total.
  const slots = new Set<number>();
  while (slots.size < count) slots.add(rand.int(1, 90 * 24 * 60));
  site.svc.packaging = [...slots]
    .sort((a, b) => b - a)
    .map((minutesAgo, i) => {
      const createdMs = Math.floor((now - minutesAgo * 60_000) / 1000) * 1000;
      const repack = rand.chance(0.25);
      return {
        siteId: site.siteId,
        cid: `${site.siteId.toLowerCase()}-${rand.pick(CONTENT_STEMS).toLowerCase()}-${String(i + 1).padStart(4, '0')}`,
        track: rand.pick(tracks),
        createdMs,
        updateMs: repack ? Math.min(now, createdMs + rand.int(1, 20) * DAY) : createdMs,
      };
    });
}

function seedMonthly(site: SiteState, scale: number, rand: Prng, now: number): void {
  const d = new Date(now);
  for (let back = 0; back < 12; back++) {
    const m = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - back, 1));
    const key = m.toISOString().slice(0, 7);
    const users = Math.round(scale * (0.7 + rand.next() * 0.6));
    site.svc.monthly.set(key, {
      licenseCnt: users * rand.int(3, 9),
      userAccCnt: users,
      deviceAccCnt: Math.round(users * (1.2 + rand.next() * 0.8)),
    });
  }
}

function seedSettings(site: SiteState, rand: Prng): void {
  site.svc.settings = {
    siteKey: rand.base64(32),
    accessKey: rand.base64(32),
    licenseCallbackUrl: site.siteId === 'DEMO' ? 'https://license.demo-streaming.example/callback' : '',
    packageCallbackUrl: '',
    kmsToken: rand.hex(24),
    tokenDuration: site.siteId === 'DEMO' ? 3600 : 600,
    iv: rand.base64(16),
  };
}

function seedStatusRequests(state: EmulatorState, accountId: string, now: number): void {
  const reqs: [string, 'PD001' | 'PD002', string, string, 'ST001' | 'ST002' | 'ST003', number][] = [
    ['DEMO', 'PD001', 'SM003', 'Trial extension for Q3 launch', 'ST003', 80],
    ['DEMO', 'PD001', 'SM002', 'Pause during migration', 'ST002', 40],
    ['DEMO', 'PD002', 'SM003', 'Need two more weeks of trial', 'ST003', 25],
    ['AB12', 'PD002', 'SM002', 'Suspend watermarking for the summer', 'ST003', 60],
    ['AB12', 'PD002', 'SM001', 'Resume watermarking for the new season', 'ST001', 2],
    ['FILM', 'PD001', 'SM001', 'Resume DRM for the restored catalogue', 'ST002', 12],
  ];
  for (const [siteId, serviceCode, type, msg, status, daysAgo] of reqs) {
    const site = state.requireSite(siteId);
    const regDtMs = now - daysAgo * DAY;
    const rec: StatusRequestRec = {
      siteId,
      serviceCode,
      reqGroupId: state.nextRequestGroupId(),
      regType: type,
      regMessage: msg,
      regStatus: status,
      regId: accountId,
      regDtMs,
      updateDtMs: status === 'ST001' ? regDtMs : regDtMs + 2 * DAY,
    };
    site.svc.statusRequests.push(rec);
  }
}

/** Seeds the state; returns the demo credentials it accepts. */
export function seed(state: EmulatorState): DemoCredentials {
  const rand = new Prng(0x5eed_c0de);
  const now = state.now();
  for (const s of SITES) {
    const site = state.ensureSite(s.siteId, s.name);
    site.products = s.products.map(([serviceCode, statusCode]) => ({
      serviceCode: serviceCode as 'PD001' | 'PD002',
      statusCode: statusCode as 'SE000' | 'SE001',
    }));
  }
  const demo = DEMO_CREDENTIALS;
  state.addWmAccount({ ...demo.watermarking, siteIds: demo.siteIds });
  state.addSvcAccount({
    ...demo.service,
    sites: SITES.map((s) => ({ siteId: s.siteId, name: s.name })),
  });

  const [demoSite, ab12, film] = ['DEMO', 'AB12', 'FILM'].map((id) => state.requireSite(id)) as [
    SiteState,
    SiteState,
    SiteState,
  ];
  seedRecipients(state, demoSite, DEMO_RECIPIENT_NAMES, rand, now);
  seedRecipients(state, ab12, DEMO_RECIPIENT_NAMES.slice(0, 12), rand, now);
  seedRecipients(state, film, DEMO_RECIPIENT_NAMES.slice(20, 28), rand, now);
  seedJobs(state, demoSite, 15, rand, now);
  seedJobs(state, ab12, 4, rand, now);
  seedJobs(state, film, 2, rand, now);

  // Service API data
  const acc = state.svcAccounts.get(demo.service.accountId);
  if (acc) {
    const groups: [string, MemberGroupSeq, 'MT001' | 'MT002', number][] = [
      ['ops.lead@demo-streaming.example', 1000, 'MT001', 300],
      ['billing@demo-streaming.example', 1000, 'MT001', 210],
      ['dev.team@demo-streaming.example', 1001, 'MT001', 150],
      ['qa.contractor@demo-streaming.example', 1001, 'MT002', 90],
      ['partner.viewer@demo-streaming.example', 1014, 'MT001', 30],
    ];
    acc.members = groups.map(
      ([email, groupSeq, status, daysAgo]): MemberRec => ({
        memberSeq: state.nextMemberSeq(),
        email,
        groupSeq,
        status,
        regDateMs: now - daysAgo * DAY,
        passwordResets: 0,
      }),
    );
    const siteReqs: [string, string, string, number][] = [
      ['AB12', 'Acme Broadcast', 'approved', 200],
      ['FILM', 'Film Archive', 'approved', 120],
      ['', 'Demo Kids Channel', 'requested', 3],
    ];
    acc.siteRequests = siteReqs.map(([siteId, serviceName, status, daysAgo]) => ({
      seq: state.nextSiteRequestSeq(),
      accountId: acc.accountId,
      siteId,
      serviceName,
      status,
      regTimeMs: now - daysAgo * DAY,
      updateTimeMs: now - daysAgo * DAY + (status === 'requested' ? 0 : DAY),
    }));
  }
  seedStatusRequests(state, demo.service.accountId, now);
  seedLicenses(demoSite, 500, rand, now);
  seedLicenses(ab12, 120, rand, now);
  seedPackaging(demoSite, 150, rand, now);
  seedPackaging(ab12, 30, rand, now);
  for (const site of [demoSite, ab12, film]) {
    seedSettings(site, rand);
    seedMonthly(site, site === demoSite ? 1800 : 400, rand, now);
  }
  return demo;
}
