/** The Home tab's notifications block: per viewer, escaped, capped, paused ones said. */
import { describe, expect, it } from 'vitest';
import type { TrackedRequest } from '../../../../src/notices/requests.js';
import type { NotifyHomeSummary } from '../../../../src/ops/notify-home.js';
import { notifyBlocks } from '../../../../src/slack/features/home/render-notify.js';

const req = (i: number): TrackedRequest => ({
  id: `site:${i}`,
  kind: 'site',
  siteId: '',
  siteName: `Kids <!channel> & ${i}`,
  requestId: String(i),
  requestLabel: 'Additional site',
  requestedBy: 'U0ME',
  requestedAt: Date.UTC(2026, 10, 22, 9, 0),
  card: { channel: 'C0CARD', ts: '1.000001' },
});

describe('notifyBlocks', () => {
  it('nothing: a short line', () => {
    const b = JSON.stringify(notifyBlocks({ pendingRequests: [], alerts: [], digests: [] }, 'UTC'));
    expect(b).toContain('Nothing pending');
  });

  it('requests escaped and capped; alerts and digests with their channel, paused ones said', () => {
    const s: NotifyHomeSummary = {
      pendingRequests: Array.from({ length: 8 }, (_, i) => req(i + 1)),
      alerts: [
        {
          id: 'a1',
          workspace: 'T1',
          channelId: 'C0ALERT',
          siteId: 'AB12',
          createdBy: 'U0ME',
          createdAt: '2026-11-22T00:00:00Z',
          ratioPct: 20,
          minRequests: 20,
          windowMinutes: 15,
          paused: {
            reason: 'The app was removed <here>',
            code: 'not_in_channel',
            at: '2026-11-22T00:00:00Z',
          },
        },
      ],
      digests: [
        {
          id: 'd1',
          workspace: 'T1',
          channelId: 'C0DIGEST',
          time: '09:00',
          zone: 'Europe/Berlin',
          createdBy: 'U0ME',
          createdAt: '2026-11-22T00:00:00Z',
          nextAt: Date.UTC(2026, 10, 23, 8, 0),
        },
      ],
    };
    const b = JSON.stringify(notifyBlocks(s, 'Asia/Seoul'));
    expect(b).toContain('Kids &lt;!channel&gt; &amp; 1');
    expect(b).not.toContain('<!channel>');
    expect(b).toContain('…and 3 more.');
    expect(b).not.toContain('request `6`');
    expect(b).toContain('card in <#C0CARD>');
    expect(b).toContain('<#C0ALERT> · site `AB12` · 20% failed');
    expect(b).toContain('paused: the app is no longer a member of the channel');
    expect(b).toContain('<#C0DIGEST> · daily at `09:00` Europe/Berlin · next <!date^');
  });
});
