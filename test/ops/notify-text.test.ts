import { afterEach, describe, expect, it } from 'vitest';
import { ALERT_DEFAULTS } from '../../src/notices/alert-subscriptions.js';
import type {
  AlertSubscription,
  Digest,
  RequestOutcomeNotice,
  WindowStats,
} from '../../src/notices/types.js';
import { subscribeAlerts } from '../../src/ops/alerts.js';
import { scheduleDigest } from '../../src/ops/digest.js';
import { notifyHomeSummary } from '../../src/ops/notify-home.js';
import { alertText, digestText, requestOutcomeText } from '../../src/ops/notify-text.js';
import { trackPlanRequest } from '../../src/ops/request-outcomes.js';
import { notifyDeps, WS } from './notify-support.js';

const notice: RequestOutcomeNotice = {
  kind: 'plan',
  requestId: 'RG9',
  siteId: 'AB12',
  serviceCode: 'PD001',
  serviceLabel: 'DRM',
  requestType: 'SM003',
  requestLabel: 'Trial extension',
  outcome: 'approved',
  status: 'ST003',
  statusLabel: 'Approved',
  requestedBy: 'U1',
  requestedAt: 0,
  decidedAt: 1,
};
const sub: AlertSubscription = {
  id: 'a',
  workspace: WS,
  channelId: 'C1',
  siteId: 'AB12',
  ...ALERT_DEFAULTS,
  createdBy: 'U1',
  createdAt: '2026-11-22T00:00:00.000Z',
};
const stats: WindowStats = {
  siteId: 'AB12',
  fromMs: 0,
  toMs: 900_000,
  total: 40,
  failed: 13,
  ratio: 13 / 40,
  topErrors: [
    { key: 'E4001', count: 9 },
    { key: 'E5002', count: 4 },
  ],
  topContent: [{ key: 'movie-7', count: 6 }],
  topDevices: [{ key: 'Galaxy S24 (dev-a)', count: 6 }],
  truncated: false,
};

describe('notify texts', () => {
  it('say the request, the site, the product and the outcome', () => {
    expect(requestOutcomeText(notice)).toBe(
      'Your trial extension request RG9 for site AB12 (DRM) was approved.',
    );
    expect(
      requestOutcomeText({ ...notice, outcome: 'cancelled', status: 'ST002', cancelledBy: 'U2' }),
    ).toContain('was cancelled by another member');
    expect(
      requestOutcomeText({ ...notice, kind: 'site', requestId: '72', siteName: 'Kids', siteId: 'KIDS' }),
    ).toBe('Your additional site request 72 (Kids) was approved: the new site id is KIDS.');
  });

  it('an alert names the site, "N of M failed", the window, top errors, content and devices', () => {
    const t = alertText({
      kind: 'spike',
      subscription: sub,
      startedAt: 0,
      stats,
      peakRatio: stats.ratio,
      state: 'ongoing',
    });
    expect(t).toBe(
      'License failures on site AB12: 13 of 40 license requests failed (33%) in the last 15 minutes (threshold 20%). Top errors: E4001 (9), E5002 (4). Most affected content: movie-7 (6). Most affected devices: Galaxy S24 (dev-a) (6).',
    );
    const r = alertText({
      kind: 'recovery',
      subscription: sub,
      startedAt: 0,
      recoveredAt: 1,
      stats: { ...stats, failed: 1, ratio: 1 / 40 },
      peakRatio: 0.5,
    });
    expect(r).toContain('back under 20%: 1 of 40');
    expect(r).toContain('peaked at 50%');
  });

  it('a digest line counts each section and carries the late note', () => {
    const d: Digest = {
      channelId: 'C1',
      fromMs: 0,
      toMs: 1,
      zone: 'UTC',
      day: '2026-11-22',
      lateNote: 'Posted late.',
      sites: ['AB12'],
      jobs: {
        ok: true,
        value: {
          byStatus: { DM000: 1, DM500: 2, DM600: 1 },
          perSite: [],
          failed: [],
          failedMore: 0,
          truncated: false,
        },
      },
      registrations: { ok: true, value: { perSite: [], total: 6, truncated: false } },
      licenses: { ok: true, value: { perSite: [{ siteId: 'AB12', success: 5, fail: 2, truncated: false }] } },
      pendingRequests: { ok: false, error: 'x' },
    };
    expect(digestText(d)).toBe(
      'Daily digest (last 24 h): 4 jobs, 1 failed; 6 recipients registered; licenses 5 issued / 2 failed. Posted late.',
    );
  });

  it('a digest after missed days names them in its text, also when it carries no late note', () => {
    const base: Digest = {
      channelId: 'C1',
      fromMs: 0,
      toMs: 1,
      zone: 'UTC',
      day: '2026-11-22',
      sites: ['AB12'],
      jobs: { ok: false, error: 'x' },
      registrations: { ok: false, error: 'x' },
      licenses: { ok: false, error: 'x' },
      pendingRequests: { ok: false, error: 'x' },
    };
    // On time (no late note) after two days the bot was down: the days are named.
    expect(digestText({ ...base, missedDays: ['2026-11-20', '2026-11-21'] })).toBe(
      'Daily digest (last 24 h): jobs unavailable. No digest was posted for 2026-11-20, 2026-11-21 (the bot was not running then); this one covers the last 24 hours only.',
    );
    // Posted late with a note that names them already: named once.
    const note =
      'This digest was due at 2026-11-22 09:00 UTC and is posted late: the bot was not running at that time. The digests of 2026-11-21 were not posted: the bot was not running then.';
    const late = digestText({ ...base, lateNote: note, missedDays: ['2026-11-21'] });
    expect(late).toBe(`Daily digest (last 24 h): jobs unavailable. ${note}`);
    expect(late.split('2026-11-21')).toHaveLength(2);
    // A late note that does not name them: named after it.
    expect(digestText({ ...base, lateNote: 'Posted late.', missedDays: ['2026-11-21'] })).toContain(
      'Posted late. No digest was posted for 2026-11-21',
    );
    // A long outage: 14 named, the rest counted.
    const many = Array.from({ length: 16 }, (_, i) => `2026-10-${String(i + 1).padStart(2, '0')}`);
    expect(digestText({ ...base, missedDays: many })).toContain('2026-10-14 and 2 more (the bot');
    expect(digestText(base)).not.toContain('No digest was posted');
  });
});

describe('App Home summary', () => {
  let deps: Awaited<ReturnType<typeof notifyDeps>> | undefined;
  afterEach(async () => {
    await deps?.close();
  });

  it("lists the user's pending requests, alerts and digests only", async () => {
    deps = await notifyDeps();
    const me = { userId: 'U0ME', isAdmin: false, inChannel: true };
    await trackPlanRequest(deps, WS, {
      siteId: 'AB12',
      serviceCode: 'drm',
      request: { requestId: 'RG1', type: 'SM001' },
      requestedBy: 'U0ME',
    });
    await trackPlanRequest(deps, WS, {
      siteId: 'CD34',
      serviceCode: 'drm',
      request: { requestId: 'RG2', type: 'SM001' },
      requestedBy: 'U0YOU',
    });
    await subscribeAlerts(deps, WS, { channelId: 'C1', actor: me });
    await scheduleDigest(deps, WS, { channelId: 'C1', actor: me, time: '09:00', zone: 'UTC' });
    await scheduleDigest(deps, WS, {
      channelId: 'C2',
      actor: { ...me, userId: 'U0YOU' },
      time: '09:00',
      zone: 'UTC',
    });
    const s = await notifyHomeSummary(deps, WS, 'U0ME');
    expect(s.pendingRequests.map((t) => t.requestId)).toEqual(['RG1']);
    expect(s.alerts.map((a) => a.channelId)).toEqual(['C1']);
    expect(s.digests.map((d) => [d.channelId, d.nextAt])).toEqual([['C1', Date.UTC(2026, 10, 22, 9, 0)]]);
  });
});
