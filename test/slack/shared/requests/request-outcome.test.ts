/** Request-outcome renderers and the paused-channel DM: escaped, within Block Kit limits, in the reader's zone. */
import { describe, expect, it } from 'vitest';
import { validateMessageBlocks } from '../../../../dev/fakeslack/index.js';
import type { RequestOutcomeNotice } from '../../../../src/notices/types.js';
import { notifyPausedMessage, pausedWhy } from '../../../../src/slack/shared/notices/paused.js';
import { requestOutcomeCard, requestOutcomeDm } from '../../../../src/slack/shared/requests/outcome.js';

const base: RequestOutcomeNotice = {
  kind: 'plan',
  requestId: 'RG<1>',
  siteId: 'AB12',
  serviceCode: 'PD001',
  serviceLabel: 'DRM',
  requestType: 'SM002',
  requestLabel: 'Trial extension',
  outcome: 'approved',
  status: 'ST003',
  statusLabel: 'Approved',
  requestedBy: 'U0ASKER',
  requestedAt: Date.UTC(2026, 10, 22, 23, 30),
  decidedAt: Date.UTC(2026, 10, 23, 1, 0),
};

const all = (n: RequestOutcomeNotice, zone: string) => [
  requestOutcomeDm(n, zone),
  requestOutcomeCard(n, zone),
];

describe('request outcome renderers', () => {
  it('name request, site, service and outcome; times in the reader zone (unknown zone: UTC)', () => {
    for (const m of all(base, 'Asia/Seoul')) {
      const t = JSON.stringify(m.blocks);
      expect(t).toContain('`RG&lt;1&gt;`');
      expect(t).toContain('`AB12`');
      expect(t).toContain('DRM');
      expect(t).toContain('*approved*');
      expect(t).toContain('2026-11-23 08:30 Asia/Seoul');
      expect(validateMessageBlocks(m.blocks)).toEqual([]);
    }
    expect(JSON.stringify(requestOutcomeDm(base, 'Not/AZone').blocks)).toContain('2026-11-22 23:30 UTC');
  });

  it('say the status in words ("Approved"), never its code', () => {
    const refused = {
      ...base,
      kind: 'site',
      outcome: 'cancelled',
      status: 'ST002',
      statusLabel: 'Cancelled',
    } as const;
    for (const n of [base, refused as unknown as RequestOutcomeNotice]) {
      for (const m of all(n, 'UTC')) {
        const t = JSON.stringify(m);
        expect(t).not.toMatch(/ST00\d/);
      }
    }
    // The outcome is said once, in words, in the first line (no field repeating it).
    const dm = JSON.stringify(requestOutcomeDm(base, 'UTC').blocks);
    expect(dm).toContain('was *approved*');
    expect(dm).not.toContain('*Outcome*');
  });

  it('times are date tokens (the card sits in a shared channel: each reader sees their own zone)', () => {
    for (const m of all({ ...base, outcome: 'superseded', status: 'superseded' }, 'Asia/Seoul')) {
      const t = JSON.stringify(m.blocks);
      expect(t).toContain(`<!date^${base.requestedAt / 1000}^`);
      expect(t).toContain(`<!date^${base.decidedAt / 1000}^`);
      // The requester's zone only appears as a token's fallback, never as a plain time.
      expect(t.replace(/<!date\^[^>]*>/g, '')).not.toMatch(/\d{2}:\d{2}/);
    }
  });

  it('cancelled: by whom through the bot, or outside the bot; hostile site names escaped', () => {
    const byBot = requestOutcomeDm(
      { ...base, outcome: 'cancelled', status: 'ST002', cancelledBy: 'U0ADMIN' },
      'UTC',
    );
    expect(JSON.stringify(byBot.blocks)).toContain('by <@U0ADMIN> through the bot');
    const elsewhere = requestOutcomeDm({ ...base, outcome: 'cancelled', status: 'ST002' }, 'UTC');
    expect(JSON.stringify(elsewhere.blocks)).toContain('cancelled outside the bot');
    const hostile = `<!channel> \u202e${'x'.repeat(5000)}`;
    const site: RequestOutcomeNotice = {
      ...base,
      kind: 'site',
      requestId: '7',
      siteId: '',
      siteName: hostile,
      requestLabel: hostile,
      outcome: 'changed',
      status: hostile,
      statusLabel: hostile,
    };
    for (const m of all(site, 'UTC')) {
      const t = JSON.stringify(m);
      expect(t).not.toContain('<!channel>');
      expect(t).not.toContain('\u202e');
      expect(validateMessageBlocks(m.blocks)).toEqual([]);
    }
  });
});

describe('paused-channel DM', () => {
  it('names the channel, what stopped, why and what to do', () => {
    const m = notifyPausedMessage({ feature: 'alerts', channelId: 'C0ALERTS', code: 'not_in_channel' });
    const t = JSON.stringify(m);
    expect(t).toContain('License-failure alerts in <#C0ALERTS> stopped');
    expect(t).toContain('no longer a member');
    expect(t).toContain('/invite @drm-chatops');
    expect(t).toContain('/drm alerts watch');
    expect(validateMessageBlocks(m.blocks)).toEqual([]);
    expect(
      JSON.stringify(notifyPausedMessage({ feature: 'digest', channelId: 'C1', code: 'token_revoked' })),
    ).toContain('reinstall');
    expect(pausedWhy('weird_<code>')).toContain('weird_<code>');
    expect(
      JSON.stringify(notifyPausedMessage({ feature: 'digest', channelId: 'C1X', code: 'weird_<code>' })),
    ).not.toContain('weird_<code>');
  });
});
