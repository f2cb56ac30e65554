/**
 * withPlainTextRetry: a message Slack refuses for its content goes out again as its text alone,
 * cut to 3,000 characters without splitting an emoji (half a surrogate pair makes Slack refuse the
 * plain text too).
 */
import { describe, expect, it } from 'vitest';
import { withPlainTextRetry } from '../../src/watch/delivery-errors.js';
import {
  type ChannelMessage,
  type ChannelPoster,
  DeliveryError,
  type PostOptions,
} from '../../src/watch/types.js';

const opts = { metadata: { event_type: 'drm_chatops_delivery', event_payload: { key: 'k' } } } as PostOptions;

function refusingOnce(code: string) {
  const sent: ChannelMessage[] = [];
  const poster: ChannelPoster = {
    async post(_channel, m) {
      sent.push(m);
      if (sent.length === 1) throw new DeliveryError(code);
      return { ts: '1.000001' };
    },
    async update(_channel, _ts, m) {
      sent.push(m);
      if (sent.length === 1) throw new DeliveryError(code);
    },
    async findByMetadata() {
      return undefined;
    },
  };
  return { poster, sent };
}

describe('withPlainTextRetry', () => {
  it('sends a refused message again as its text alone, and says so once', async () => {
    const { poster, sent } = refusingOnce('invalid_blocks');
    const refused: string[] = [];
    const p = withPlainTextRetry(poster, (c) => refused.push(c));
    await p.post('C1', { text: 'Job 7 finished', blocks: [{ type: 'section' }] }, opts);
    expect(sent.map((m) => m.blocks === undefined)).toEqual([false, true]);
    expect(sent[1]?.text).toBe('Job 7 finished');
    expect(refused).toEqual(['invalid_blocks']);
  });

  it('cuts a long text to 3,000 characters without leaving half an emoji', async () => {
    const { poster, sent } = refusingOnce('msg_too_long');
    const p = withPlainTextRetry(poster, () => undefined);
    // 2,998 letters then emoji: a cut at 2,999 UTF-16 units lands inside the second emoji.
    const text = `${'a'.repeat(2998)}${'😀'.repeat(10)}`;
    await p.update('C1', '1.000001', { text });
    const plain = sent[1]?.text ?? '';
    expect(Array.from(plain).length).toBeLessThanOrEqual(3000);
    expect(plain.endsWith('…')).toBe(true);
    expect(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(plain)).toBe(false);
  });

  it('passes other failures through untouched', async () => {
    const { poster, sent } = refusingOnce('channel_not_found');
    const p = withPlainTextRetry(poster, () => undefined);
    await expect(p.post('C1', { text: 'x', blocks: [] }, opts)).rejects.toMatchObject({
      code: 'channel_not_found',
    });
    expect(sent).toHaveLength(1);
  });
});
