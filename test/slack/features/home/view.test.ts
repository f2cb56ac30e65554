/** Home tab and debug renderers: snapshots, limits at any data size, hostile strings escaped. */
import { describe, expect, it } from 'vitest';
import { validateMessageBlocks, validateView } from '../../../../dev/fakeslack/index.js';
import type { Job } from '../../../../src/api/types.js';
import type { DebugInfo } from '../../../../src/ops/debug.js';
import type { HomeData, SiteJobs } from '../../../../src/ops/home.js';
import { debugMessage } from '../../../../src/slack/features/debug/render.js';
import { HOME_ACTIONS, homeView, linesToSections } from '../../../../src/slack/features/home/render.js';
import type { Subscription } from '../../../../src/watch/types.js';

const NOW = Date.UTC(2026, 10, 22, 9, 0, 0);
const t = (ms: number) => ({ raw: new Date(ms).toISOString(), epochMs: ms });

function job(id: number, status: Job['status'], contentId = `movie-${id}`, ago = 60_000): Job {
  return { jobId: id, contentId, status, regTime: t(NOW - ago - 1000), updateTime: t(NOW - ago) };
}

function siteJobs(siteId: string, inflight: number, failures: number, content?: string): SiteJobs {
  return {
    siteId,
    inFlight: Array.from({ length: Math.min(inflight, 10) }, (_, i) =>
      job(1000 + i, i % 2 ? 'DM001' : 'DM000', content),
    ),
    inFlightTotal: inflight,
    failures: Array.from({ length: Math.min(failures, 10) }, (_, i) => job(2000 + i, 'DM600', content)),
    failuresTotal: failures,
  };
}

function sub(i: number, over: Partial<Subscription> = {}): Subscription {
  return {
    id: `s${i}`,
    workspace: 'T0TEST0A',
    channelId: `C0CHAN${i}`,
    siteId: 'DEMO',
    statuses: ['DM500', 'DM600'],
    mode: 'all',
    createdBy: 'U0ADMINA',
    createdAt: new Date(NOW - i * 1000).toISOString(),
    ...over,
  };
}

function data(over: Partial<HomeData> = {}): HomeData {
  return {
    workspace: 'T0TEST0A',
    generatedAt: NOW,
    connection: {
      ok: true,
      value: {
        configured: true,
        source: 'store',
        readOnly: false,
        siteIds: ['DEMO', 'AB12'],
        defaultSiteId: 'DEMO',
        watermarking: { accountId: 'acc', accessKey: '••••abcd', baseUrl: 'https://wm.example.com' },
        service: {
          accountId: 'svc',
          accountSeq: '1',
          secretKey: '••••wxyz',
          baseUrl: 'https://api.example.com',
        },
        verifiedAt: new Date(NOW - 3600_000).toISOString(),
        savedBy: 'U0ADMINA',
      },
    },
    sites: {
      ok: true,
      value: [
        {
          siteId: 'DEMO',
          site: {
            siteId: 'DEMO',
            name: 'Demo Streaming',
            products: [
              {
                serviceCode: 'PD001',
                label: 'DRM',
                status: 'SE000',
                statusLabel: 'In service',
                inService: true,
              },
              {
                serviceCode: 'PD002',
                label: 'FWM',
                status: 'SE001',
                statusLabel: 'Suspended',
                inService: false,
              },
            ],
          },
        },
        { siteId: 'AB12' },
      ],
    },
    jobs: {
      ok: true,
      value: {
        sites: [
          { siteId: 'DEMO', jobs: { ok: true, value: siteJobs('DEMO', 2, 1) } },
          { siteId: 'AB12', jobs: { ok: false, reason: 'the service could not be reached' } },
        ],
        sitesNotChecked: 0,
      },
    },
    watches: {
      ok: true,
      value: [sub(1), sub(2, { paused: { reason: 'the bot was removed', code: 'not_in_channel', at: '' } })],
    },
    plan: {
      ok: true,
      value: {
        siteId: 'DEMO',
        serviceCode: 'PD002',
        requestId: 'REQ-1',
        type: 'SM003',
        typeLabel: 'Trial extension',
        status: 'ST001',
        statusLabel: 'Pending',
        pending: true,
        message: 'Need two more weeks',
        registeredBy: 'demo-service',
        regTime: t(NOW - 7200_000),
      },
    },
    ...over,
  };
}

const blocksText = (v: { blocks: unknown[] }) => JSON.stringify(v.blocks);

describe('homeView', () => {
  it('renders the tab (snapshot)', () => {
    const v = homeView(data(), { isAdmin: true, timeZone: 'Asia/Seoul' });
    expect(validateView(v)).toEqual([]);
    expect(v).toMatchSnapshot();
  });

  it('problems first: polling pause, unreadable site and failures come before jobs in flight', () => {
    const d = data();
    if (d.connection.ok) d.connection.value.pollingPausedReason = 'the service refused the credentials';
    const text = blocksText(homeView(d, { isAdmin: false }));
    const iPause = text.indexOf('Job polling is paused');
    const iDown = text.indexOf('site `AB12` unavailable');
    const iFail = text.indexOf('Failures in the last 24 hours (1)');
    const iFlight = text.indexOf('Jobs in flight (2)');
    expect(iPause).toBeGreaterThan(-1);
    expect(iPause).toBeLessThan(iFail);
    expect(iFail).toBeLessThan(iDown);
    expect(iDown).toBeLessThan(iFlight);
    expect(text).toContain('An admin can run');
  });

  it('a watched site whose notifications an outage delays is named under the watches while it lasts', () => {
    const outage = {
      v: 1 as const,
      siteId: 'DEMO',
      sinceMs: Date.UTC(2026, 10, 27, 22, 0),
      lastFailureMs: Date.UTC(2026, 10, 27, 22, 30),
      reason: 'the watermarking service cannot be reached (no answer, or the connection failed)',
      failures: 9,
      told: ['C0CHAN1'],
    };
    const during = blocksText(homeView(data({ outages: { ok: true, value: [outage] } }), { isAdmin: false }));
    expect(during).toContain('Job notifications for site `DEMO` are delayed since');
    expect(during).toContain('cannot be reached');
    const after = blocksText(homeView(data({ outages: { ok: true, value: [] } }), { isAdmin: false }));
    expect(after).not.toContain('are delayed');
  });

  it('Setup only for admins; buttons carry the site and never a secret', () => {
    const ids = (admin: boolean) =>
      (
        homeView(data(), { isAdmin: admin }).blocks as Array<{
          type: string;
          elements?: Array<{ action_id: string; value?: string }>;
        }>
      )
        .filter((b) => b.type === 'actions')
        .flatMap((b) => b.elements ?? []);
    expect(ids(false).map((e) => e.action_id)).not.toContain(HOME_ACTIONS.setup);
    expect(ids(true).map((e) => e.action_id)).toContain(HOME_ACTIONS.setup);
    const reg = ids(true).find((e) => e.action_id === HOME_ACTIONS.register);
    expect(JSON.parse(reg?.value ?? '{}')).toEqual({ site: 'DEMO' });
    expect(JSON.stringify(ids(true))).not.toContain('••••');
  });

  it('every part unavailable still renders a valid tab naming each part', () => {
    const down = { ok: false as const, reason: 'did not answer within 4 s' };
    const v = homeView(
      {
        workspace: 'T1',
        generatedAt: NOW,
        connection: down,
        sites: down,
        jobs: down,
        watches: down,
        plan: down,
      },
      { isAdmin: false },
    );
    expect(validateView(v)).toEqual([]);
    const text = blocksText(v);
    for (const p of ['Connection status', 'Sites', 'Failures', 'Jobs', 'Watches', 'Plan requests'])
      expect(text).toContain(`${p} unavailable: did not answer within 4 s`);
  });

  it('stays within 100 blocks and valid with 1,000 sites and 5,000 jobs in flight', () => {
    const siteIds = Array.from({ length: 1000 }, (_, i) => `S${String(i).padStart(3, '0')}`);
    const d = data({
      sites: {
        ok: true,
        value: siteIds.map((siteId) => ({
          siteId,
          site: {
            siteId,
            name: `Site ${siteId}`,
            products: [
              {
                serviceCode: 'PD001',
                label: 'DRM',
                status: 'SE000',
                statusLabel: 'In service',
                inService: true,
              },
            ],
          },
        })),
      },
      jobs: {
        ok: true,
        value: {
          sites: siteIds
            .slice(0, 25)
            .map((siteId) => ({ siteId, jobs: { ok: true as const, value: siteJobs(siteId, 200, 40) } })),
          sitesNotChecked: 975,
        },
      },
      watches: { ok: true, value: Array.from({ length: 500 }, (_, i) => sub(i)) },
    });
    if (d.connection.ok) d.connection.value.siteIds = siteIds;
    const v = homeView(d, { isAdmin: true });
    expect(v.blocks.length).toBeLessThanOrEqual(100);
    expect(validateView(v)).toEqual([]);
    const text = blocksText(v);
    expect(text).toContain('Jobs in flight (5000)');
    expect(text).toContain('Failures in the last 24 hours (1000)');
    expect(text).toContain('and 4990 more');
    expect(text).toContain('and 985 more');
    expect(text).toContain('Jobs of 975 more sites were not looked up');
  });

  it('hostile strings stay escaped and within limits', () => {
    const evil = `<!channel> *bold* <@U123> &amp; ${'x'.repeat(10_000)}`;
    const d = data({
      jobs: {
        ok: true,
        value: {
          sites: [{ siteId: 'DEMO', jobs: { ok: true, value: siteJobs('DEMO', 3, 3, evil) } }],
          sitesNotChecked: 0,
        },
      },
      watches: { ok: true, value: [sub(1, { content: evil, paused: { reason: evil, code: 'x', at: '' } })] },
    });
    if (d.sites.ok && d.sites.value[0]?.site) d.sites.value[0].site.name = evil;
    if (d.plan.ok && d.plan.value) d.plan.value.message = evil;
    const v = homeView(d, { isAdmin: true });
    expect(validateView(v)).toEqual([]);
    const text = blocksText(v);
    expect(text).not.toContain('<!channel>');
    expect(text).not.toContain('<@U123>');
    expect(text).toContain('&lt;!channel&gt;');
  });

  it('linesToSections packs lines under 3000 characters', () => {
    const blocks = linesToSections(Array.from({ length: 40 }, (_, i) => `${i}`.padEnd(250, '.')));
    expect(blocks.length).toBeGreaterThan(1);
    for (const b of blocks)
      expect((b as { text: { text: string } }).text.text.length).toBeLessThanOrEqual(3000);
  });
});

describe('debugMessage', () => {
  const info: DebugInfo = {
    workspace: 'T0TEST0A',
    teamId: 'T0TEST0A',
    botId: 'B0TEST0A',
    botUserId: 'U0BOT00A',
    mode: 'http',
    distribution: 'single',
    storeBackend: 'sqlite',
    storeReachable: true,
    credentials: 'store',
    pollIntervalSeconds: 60,
    sites: [
      { siteId: 'DEMO', leaseHolder: 'host-1:123:abcd', lastPollAt: NOW - 30_000, consecutiveFailures: 0 },
      {
        siteId: 'AB12',
        lastError: 'TransportError <!here>',
        consecutiveFailures: 3,
        nextPollAt: NOW + 60_000,
      },
    ],
    outboxPending: 2,
    runtime: { running: true, holderId: 'host-1:123:abcd' },
    versions: { app: '0.1.0', node: 'v20.0.0', bolt: '4.0.0' },
  };
  it('renders (snapshot), valid and escaped', () => {
    const m = debugMessage(info, 'UTC');
    expect(validateMessageBlocks(m.blocks)).toEqual([]);
    expect(JSON.stringify(m)).not.toContain('<!here>');
    expect(m).toMatchSnapshot();
  });
});
