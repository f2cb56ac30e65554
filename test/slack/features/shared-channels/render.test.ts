/** The `/dwm setup shared-channels` card with many allowed channels stays within Slack's limits. */
import { describe, expect, it } from 'vitest';
import { sharedChannelsMessage } from '../../../../src/slack/features/shared-channels/render.js';

describe('shared channels card', () => {
  it('a long list is cut whole lines at a time and says how many more, within a section', () => {
    const sharedChannels = Array.from({ length: 400 }, (_, i) => ({
      channelId: `C${String(i).padStart(9, '0')}`,
      by: `U${String(i).padStart(9, '0')}`,
      at: '2026-11-28T02:00:00.000Z',
    }));
    const m = sharedChannelsMessage({ adminUserIds: [], sharedChannels } as never);
    const texts = (m.blocks ?? []).map((b) => (b as { text?: { text: string } }).text?.text ?? '');
    const list = texts.find((t) => t.includes('allowed by'))!;
    expect(list.length).toBeLessThanOrEqual(3000);
    expect(list).toContain('…and 370 more');
    // Every line shown is whole (a mention is never cut): the 30 lines the "370 more" leaves.
    const lines = list.split('\n').filter((l) => l.startsWith('•'));
    expect(lines).toHaveLength(30);
    for (const line of lines) {
      expect(line).toMatch(/^• <#C\d{9}>: allowed by <@U\d{9}> on 2026-11-28$/);
    }
  });
});
