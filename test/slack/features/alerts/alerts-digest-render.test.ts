/**
 * The license-alert and digest renderers (pure): what they say, snapshots of the style, Block Kit
 * limits with large inputs, and hostile service strings (mentions, links, bidi) escaped.
 */
import { describe, expect, it } from 'vitest';
import { validateMessageBlocks, validateView } from '../../../../dev/fakeslack/index.js';
import type { AlertSubscription, LicenseAlert, Ranked, WindowStats } from '../../../../src/notices/types.js';
import { alerts } from '../../../../src/slack/features/alerts/index.js';
import {
  alertsListMessage,
  alertsModal,
  licenseAlertMessage,
  stoppedMessage,
  subscribedMessage,
} from '../../../../src/slack/features/alerts/render.js';
import { digest as digestFeature } from '../../../../src/slack/features/digest/index.js';
import { digestMessage, scheduleMessage } from '../../../../src/slack/features/digest/render.js';
import { FEATURES, registry } from '../../../../src/slack/features/index.js';
import type { Block, Message } from '../../../../src/slack/kit/blocks/blocks.js';
import { parseArgs, tokenize } from '../../../../src/slack/kit/commands/parse.js';
import { notifyRenderersOf } from '../../../../src/slack/kit/features.js';
import { sampleDigest } from '../../../support/digest-fixture.js';

const T = Date.UTC(2026, 10, 22, 9, 0, 0);
const digest = sampleDigest;
const HOSTILE = '<!channel> *bold* <@U123> &amp; `tick` <https://evil.example|click> \u202egnp.exe';
const LONG = 'x'.repeat(10_000);

const sub: AlertSubscription = {
  id: 'alrt_0123456789abcdef',
  workspace: 'T1',
  channelId: 'C0123ABC',
  siteId: 'AB12',
  ratioPct: 20,
  minRequests: 20,
  windowMinutes: 15,
  createdBy: 'U0CREATOR',
  createdAt: new Date(T - 86_400_000).toISOString(),
};

function stats(over: Partial<WindowStats> = {}): WindowStats {
  return {
    siteId: 'AB12',
    fromMs: T - 15 * 60_000,
    toMs: T,
    total: 40,
    failed: 13,
    ratio: 13 / 40,
    topErrors: [
      { key: '1003', count: 9 },
      { key: '2001', count: 4 },
    ],
    topContent: [
      { key: 'movie-trailer-01', count: 10 },
      { key: 'series-s01e02', count: 3 },
    ],
    topDevices: [{ key: 'Pixel 8 (dev-1)', count: 13 }],
    truncated: false,
    ...over,
  };
}

const spike = (over: Partial<Extract<LicenseAlert, { kind: 'spike' }>> = {}): LicenseAlert => ({
  kind: 'spike',
  subscription: sub,
  startedAt: T - 60_000,
  stats: stats(),
  peakRatio: 0.4,
  state: 'ongoing',
  ...over,
});

const json = (m: Message) => JSON.stringify(m.blocks ?? []);
const texts = (blocks: Block[] | undefined): string[] => {
  const out: string[] = [];
  const walk = (x: unknown) => {
    if (Array.isArray(x)) for (const y of x) walk(y);
    else if (x && typeof x === 'object') {
      const o = x as Record<string, unknown>;
      if (typeof o.text === 'string') out.push(o.text);
      for (const v of Object.values(o)) walk(v);
    }
  };
  walk(blocks);
  return out;
};

/**
 * No hostile string survives: no mention or link in mrkdwn (plain_text never forms one), no raw
 * bidi override anywhere.
 */
function expectSafe(m: Message) {
  for (const t of texts(m.blocks)) expect(t).not.toContain('\u202e');
  for (const t of [m.text, ...texts(m.blocks?.filter((b) => b.type !== 'header'))]) {
    expect(t).not.toContain('<!channel>');
    expect(t).not.toContain('<@U123>');
    expect(t).not.toContain('<https://evil.example');
    expect(t).not.toContain('\u202e');
  }
}

const ranked = (n: number, key: (i: number) => string): Ranked[] =>
  Array.from({ length: n }, (_, i) => ({ key: key(i), count: n - i }));

describe('licenseAlert', () => {
  it('names the site, the window, "N of M failed", top error codes, content ids and devices', () => {
    const m = licenseAlertMessage(spike(), 'Europe/Berlin');
    const j = json(m);
    expect(j).toContain('License failures on site `AB12`: 13 of 40 failed (33%) in the last 15 minutes');
    // A code the bot has no words for says so (the Service API documents none).
    expect(j).toContain('unknown code `1003` × 9');
    // One footer line, and a Stop button (its creator or an admin, checked when clicked).
    expect((m.blocks ?? []).filter((b) => b.type === 'context')).toHaveLength(1);
    expect(j).toContain('"action_id":"alerts_stop"');
    expect(j).toContain('"value":"{\\"w\\":\\"T1\\",\\"c\\":\\"C0123ABC\\",\\"s\\":\\"AB12\\"}"');
    expect(j).toContain('`movie-trailer-01` × 10');
    expect(j).toContain('Pixel 8 (dev-1) × 13');
    // times are tokens with a fallback in the reader's zone
    expect(j).toMatch(/<!date\^\d+\^\{date_short_pretty\} \{time\}\|2026-11-22 \d\d:\d\d Europe\/Berlin>/);
    expect(m.text).toContain('13 of 40 license requests failed');
    expect(validateMessageBlocks(m.blocks)).toEqual([]);
    expect(m.blocks).toMatchSnapshot();
  });

  it('the stopped form says who stopped it and that it is no longer updated', () => {
    const m = licenseAlertMessage(spike({ state: 'stopped', stoppedBy: 'U0STOPPER', stoppedAt: T }), 'UTC');
    const t = json(m);
    expect(t).toContain('*Alerts stopped* by <@U0STOPPER>');
    expect(t).toContain('no longer updated');
    expect(t).not.toContain('updated while it lasts');
    expect(t).toContain('13 of 40 failed');
    expect(validateMessageBlocks(m.blocks)).toEqual([]);
  });

  it('never pings the creator (an alert is posted on every spike); names no subscription id', () => {
    const recovery: LicenseAlert = {
      kind: 'recovery',
      subscription: sub,
      startedAt: T - 600_000,
      recoveredAt: T,
      stats: stats({ failed: 1 }),
      peakRatio: 0.4,
    };
    for (const m of [licenseAlertMessage(spike(), 'UTC'), licenseAlertMessage(recovery, 'UTC')]) {
      expect(JSON.stringify(m)).not.toContain('<@U0CREATOR>');
      expect(json(m)).toContain('`/drm alerts`');
    }
    const reply = json(subscribedMessage({ status: 'created', subscription: sub }, 'U0CREATOR'));
    expect(reply).not.toContain(sub.id);
  });

  it('the recovered state of the alert and the recovery reply say it is over, with the peak', () => {
    const recovered = licenseAlertMessage(
      spike({ state: 'recovered', recoveredAt: T + 120_000, stats: stats({ failed: 2, ratio: 0.05 }) }),
      'UTC',
    );
    expect(json(recovered)).toContain('Recovered');
    expect(json(recovered)).toContain('peaked at 40%');
    expect(validateMessageBlocks(recovered.blocks)).toEqual([]);
    const reply = licenseAlertMessage(
      {
        kind: 'recovery',
        subscription: sub,
        startedAt: T - 60_000,
        recoveredAt: T + 120_000,
        stats: stats({ failed: 2, ratio: 0.05 }),
        peakRatio: 0.4,
      },
      'UTC',
    );
    expect(json(reply)).toContain('back under 20%');
    expect(json(reply)).toContain('2 of 40 failed (5%)');
    expect(reply.text).toContain('back under 20%');
    expect(validateMessageBlocks(reply.blocks)).toEqual([]);
    expect(reply.blocks).toMatchSnapshot();
  });

  it('a read cut at the page cap says the counts are a floor', () => {
    const m = licenseAlertMessage(spike({ stats: stats({ truncated: true }) }), 'UTC');
    expect(json(m)).toContain('at least 13 of 40 failed');
    expect(json(m)).toContain('counts are a floor');
  });

  it('hostile and huge service strings are escaped and cut within the limits', () => {
    const s = stats({
      siteId: HOSTILE,
      topErrors: ranked(50, (i) => `${HOSTILE}${i}${LONG}`),
      topContent: ranked(50, (i) => `${HOSTILE}-${i}-${LONG}`),
      topDevices: ranked(50, (i) => `${HOSTILE} (${LONG}${i})`),
      total: 10_000_000,
      failed: 9_999_999,
      ratio: 0.9999999,
    });
    for (const a of [
      spike({ stats: s }),
      spike({ stats: s, state: 'recovered', recoveredAt: T }),
      {
        kind: 'recovery',
        subscription: { ...sub, siteId: HOSTILE, createdBy: HOSTILE },
        startedAt: T,
        recoveredAt: T,
        stats: s,
        peakRatio: 1,
      } as LicenseAlert,
    ]) {
      const m = licenseAlertMessage(a, 'Not/AZone');
      expect(validateMessageBlocks(m.blocks)).toEqual([]);
      expectSafe(m);
      expect(json(m)).toContain('&lt;!channel&gt;');
    }
  });
});

describe('digest', () => {
  it('jobs by status with the failed ones listed, registrations, licenses per site, pending requests', () => {
    const m = digestMessage(digest());
    const j = json(m);
    expect(j).toContain('Daily digest · 2026-11-22');
    expect(j).toContain(':large_green_circle: COMPLETED 7');
    expect(j).toContain(':red_circle: ERROR 2');
    expect(j).toContain('Job `4812` · content `movie-trailer-01` · 3 failed recipients');
    expect(j).toContain('failed recipients unknown');
    expect(j).toContain('*Recipients registered*: 6');
    // 4% failed is under the default 5% line: amber, said in words.
    expect(j).toContain(
      ':large_orange_circle: Site `AB12`, under the 5% line: 120 issued · 5 failed (4% failed)',
    );
    expect(j).toContain(':large_green_circle: Site `CD34`, no failures: 30 issued · 0 failed');
    expect(j).toContain('Trial extension `RG100`');
    expect(j).toContain(':hourglass_flowing_sand: Pending');
    expect(j).toContain('Asia/Seoul');
    expect(m.text).toContain('Daily digest (last 24 h)');
    expect(validateMessageBlocks(m.blocks)).toEqual([]);
    expect(m.blocks).toMatchSnapshot();
  });

  it('the late note and the missed days are said, never silently', () => {
    const m = digestMessage(
      digest({
        lateNote: 'This digest was due at 2026-11-22 09:00 UTC and is posted late.',
        missedDays: ['2026-11-20', '2026-11-21'],
      }),
    );
    const j = json(m);
    expect(j).toContain('*Posted late*: this digest was due <!date^');
    expect(j).toContain('No digest was posted for `2026-11-20`, `2026-11-21`');
    expect(m.text).toContain('posted late');
    expect(m.text).toContain('No digest was posted for 2026-11-20, 2026-11-21');
    // Without the occurrence (never for a scheduled one) the core's own words are shown.
    const { scheduledFor: _s, ...noTime } = digest({ lateNote: 'Was due <!here> at 09:00 UTC.' });
    expect(json(digestMessage(noTime))).toContain('Was due &lt;!here&gt; at 09:00 UTC.');
  });

  it('a section that failed to load says so; the others still show', () => {
    const m = digestMessage(
      digest({
        jobs: { ok: false, error: 'The jobs could not be read (timeout). Run /dwm digest now to try again.' },
        pendingRequests: { ok: false, error: 'No Service API credentials are configured.' },
      }),
    );
    const j = json(m);
    expect(j).toContain('*Jobs*\\n:warning: Could not be loaded: The jobs could not be read (timeout)');
    expect(j).toContain('*Pending plan requests*\\n:warning: Could not be loaded');
    expect(j).toContain('Site `AB12`, under the 5% line: 120 issued');
    expect(validateMessageBlocks(m.blocks)).toEqual([]);
  });

  it('a failed section reads the same whether its next step is a step or, in a digest stored before, words', () => {
    const before = json(
      digestMessage(
        digest({
          jobs: {
            ok: false,
            error: 'The jobs could not be read (timeout). Run /dwm digest now to try again.',
          },
          licenses: {
            ok: false,
            error: 'No Service API credentials are configured: an admin can add them with /dwm setup.',
          },
        }),
      ),
    );
    const now = json(
      digestMessage(
        digest({
          jobs: { ok: false, error: 'The jobs could not be read (timeout).', next: { do: 'digest-now' } },
          licenses: { ok: false, error: 'No Service API credentials are configured', next: { do: 'setup' } },
        }),
      ),
    );
    expect(now).toBe(before);
    expect(now).toContain(
      'Could not be loaded: The jobs could not be read (timeout). Run /dwm digest now to try again.',
    );
    expect(now).toContain(
      'Could not be loaded: No Service API credentials are configured: an admin can add them with /dwm setup.',
    );
  });

  it("licenses are red only past the channel's alert ratio for the site (else the default 5%)", () => {
    const j = json(digestMessage(digest({ alertRatioPct: { AB12: 3 } })));
    expect(j).toContain(':red_circle: Site `AB12`, over the 3% line: 120 issued · 5 failed (4% failed)');
  });

  it('each failed job opens with a Details button (no id to type)', () => {
    const m = digestMessage(digest({ workspace: 'T1' }));
    const details = (m.blocks ?? []).flatMap((b) => {
      const a = (b as { accessory?: { action_id: string; value: string } }).accessory;
      return a ? [a] : [];
    });
    expect(details.map((d) => d.action_id)).toEqual(['wm_job_details', 'wm_job_details']);
    expect(JSON.parse(details[0]!.value)).toEqual({ w: 'T1', s: 'AB12', j: 4812 });
    expect(validateMessageBlocks(m.blocks)).toEqual([]);
  });

  it('/dwm digest now (no schedule) says how it was asked for', () => {
    const { scheduledFor: _s, day: _d, ...rest } = digest();
    const m = digestMessage(rest);
    expect(json(m)).toContain('Digest · last 24 hours');
    expect(json(m)).toContain('/dwm digest now');
  });

  it('large and hostile inputs stay within Block Kit limits and are escaped', () => {
    const sites = Array.from({ length: 300 }, (_, i) => `${HOSTILE}${i}`);
    const m = digestMessage(
      digest({
        sites,
        lateNote: HOSTILE + LONG,
        missedDays: Array.from({ length: 40 }, (_, i) => `${HOSTILE}${i}`),
        jobs: {
          ok: true,
          value: {
            byStatus: { DM600: 5000, [HOSTILE]: 3 },
            perSite: sites.map((s) => ({ siteId: s, byStatus: { DM600: 1 } })),
            failed: Array.from({ length: 500 }, (_, i) => ({
              siteId: HOSTILE,
              jobId: i,
              contentId: `${HOSTILE}${LONG}`,
              failedRecipients: i,
            })),
            failedMore: 4500,
            truncated: true,
          },
        },
        registrations: {
          ok: true,
          value: { perSite: sites.map((s) => ({ siteId: s, count: 1 })), total: 300, truncated: true },
        },
        licenses: {
          ok: true,
          value: { perSite: sites.map((s) => ({ siteId: s, success: 1, fail: 1, truncated: true })) },
        },
        pendingRequests: {
          ok: true,
          value: Array.from({ length: 200 }, () => ({
            siteId: HOSTILE,
            serviceCode: 'PD001' as const,
            serviceLabel: HOSTILE,
            requestId: HOSTILE,
            requestLabel: HOSTILE + LONG,
            status: 'ST001' as const,
            regTimeMs: T,
          })),
        },
      }),
    );
    expect(validateMessageBlocks(m.blocks)).toEqual([]);
    expect(m.blocks!.length).toBeLessThanOrEqual(50);
    expectSafe(m);
    const j = json(m);
    expect(j).toContain('Failed jobs* (5000)');
    expect(j).toMatch(/…and 4990 more: see them with `\/dwm jobs status:error`/);
    expect(j).toMatch(/…and 285 more: see a site with `\/dwm jobs site:&lt;site id&gt;`/);
    const failedErr = digestMessage(digest({ jobs: { ok: false, error: HOSTILE + LONG } }));
    expect(validateMessageBlocks(failedErr.blocks)).toEqual([]);
    expectSafe(failedErr);
  });
});

describe('command replies and the form', () => {
  it('the list puts failing and paused subscriptions first; the form is a valid view', () => {
    const m = alertsListMessage(
      'C0123ABC',
      [
        { subscription: { ...sub, siteId: 'QUIET' } },
        {
          subscription: { ...sub, siteId: 'FAIL' },
          state: {
            spikeOpen: true,
            spikeStartedAt: T,
            lastCheckedAt: T,
            last: { total: 40, failed: 20, ratio: 0.5 },
          },
        },
      ],
      'UTC',
    );
    const j = json(m);
    expect(j.indexOf('FAIL')).toBeLessThan(j.indexOf('QUIET'));
    expect(j).toContain('failing now');
    expect(validateMessageBlocks(m.blocks)).toEqual([]);
    const v = alertsModal({
      workspace: 'T1',
      channelId: 'C0123ABC',
      siteId: 'AB12',
      siteIds: ['AB12', 'CD34'],
      ratioPct: 20,
      minRequests: 20,
      windowMinutes: 15,
    });
    expect(validateView(v)).toEqual([]);
    expect(JSON.parse(v.private_metadata!)).toEqual({ w: 'T1', c: 'C0123ABC' });
  });

  it('subscribed, stopped and schedule replies', () => {
    const s = subscribedMessage(
      { status: 'updated', subscription: sub, previous: { ratioPct: 10, minRequests: 5, windowMinutes: 60 } },
      'U1',
    );
    expect(json(s)).toContain('fail ratio 20% · at least 20 requests · 15-minute window');
    expect(json(s)).toContain('Was: fail ratio 10% · at least 5 requests · 1-hour window');
    const st = stoppedMessage('C0123ABC', { removed: [], refused: [sub] }, 'an admin');
    expect(json(st)).toContain('Only admins can stop alerts someone else set up');
    expect(json(st)).toContain('<@U0CREATOR>');
    const none = scheduleMessage('C0123ABC', undefined);
    expect(json(none)).toContain('has no daily digest');
  });

  it('the feature list provides both renderers to the notify runtime; none is missing', () => {
    expect(alerts.notifyRenderers?.licenseAlert).toBe(licenseAlertMessage);
    expect(digestFeature.notifyRenderers?.digest).toBe(digestMessage);
    // The full feature list renders every notice kind (the runtime starts without a gap).
    const merged = notifyRenderersOf(FEATURES);
    expect(merged.licenseAlert).toBe(licenseAlertMessage);
    expect(merged.digest).toBe(digestMessage);
  });
});

describe('commands the renderers name', () => {
  it('every `/dwm …` or `/drm …` in an alert, a digest or a reply is a command that parses', () => {
    const many = <T>(n: number, f: (i: number) => T) => Array.from({ length: n }, (_, i) => f(i));
    const bigDigest = digest({
      lateNote: 'late',
      missedDays: ['2026-11-20'],
      jobs: {
        ok: true,
        value: {
          byStatus: { DM600: 40 },
          perSite: many(40, (i) => ({ siteId: `S${String(i).padStart(3, '0')}`, byStatus: { DM600: 1 } })),
          failed: many(20, (i) => ({ siteId: 'AB12', jobId: i, contentId: 'c', failedRecipients: 1 })),
          failedMore: 20,
          truncated: false,
        },
      },
      licenses: {
        ok: true,
        value: { perSite: many(40, (i) => ({ siteId: `S${i}`, success: 1, fail: 0, truncated: false })) },
      },
    });
    const { scheduledFor: _s, ...nowDigest } = digest();
    const messages = [
      licenseAlertMessage(spike(), 'UTC'),
      digestMessage(bigDigest),
      digestMessage(nowDigest),
      alertsListMessage('C0123ABC', [], 'UTC'),
      subscribedMessage({ status: 'created', subscription: sub }, 'U1'),
      stoppedMessage('C0123ABC', { removed: [sub], refused: [] }, 'an admin'),
      scheduleMessage('C0123ABC', undefined),
    ];
    const named = new Set<string>();
    for (const m of messages) {
      for (const hit of json(m).matchAll(/`(\/(?:dwm|drm) [^`]*)`/g)) named.add(hit[1]!);
    }
    expect(named.size).toBeGreaterThan(8);
    for (const full of named) {
      const concrete = full.replace('&lt;site id&gt;', 'AB12').replace('HH:MM', '09:00');
      const [command, ...rest] = concrete.split(' ') as ['/dwm' | '/drm', ...string[]];
      const r = registry.resolve(command, tokenize(rest.join(' ')));
      expect(r.kind, full).toBe('entry');
      if (r.kind === 'entry') expect(() => parseArgs(r.rest, r.entry.args), full).not.toThrow();
    }
  });
});
