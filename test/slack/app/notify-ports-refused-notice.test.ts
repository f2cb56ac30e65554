/**
 * A notice (license alert, digest, request outcome) that Slack refuses for its content
 * (invalid_blocks, msg_too_long) goes out again as plain text through the notices' ports, instead
 * of being dropped; other refusals are passed on unchanged.
 */

import type { WebClient } from '@slack/web-api';
import { describe, expect, it } from 'vitest';
import type { LicenseAlert } from '../../../src/notices/types.js';
import type { Message } from '../../../src/slack/kit/blocks/blocks.js';
import { createNotifyPorts } from '../../../src/slack/notify-ports.js';
import { type ChannelMessage, type ChannelPoster, DeliveryError } from '../../../src/watch/types.js';

function recordingPoster(refuse: string[]) {
  const posts: ChannelMessage[] = [];
  const poster: ChannelPoster = {
    async post(_channel, m) {
      posts.push(m);
      const code = refuse.shift();
      if (code) throw new DeliveryError(code);
      return { ts: `1.${posts.length}` };
    },
    async update() {},
    async findByMetadata() {
      return undefined;
    },
  };
  return { poster, posts };
}

const alert = { subscription: { createdBy: 'U1' } } as unknown as LicenseAlert;
const rendered: Message = {
  text: 'Failures on DEMO: 12 of 40',
  blocks: [{ type: 'section', text: { type: 'mrkdwn', text: 'x' } }],
};

function ports(poster: ChannelPoster, refused: string[]) {
  return createNotifyPorts({
    client: async () => ({}) as WebClient,
    poster,
    renderers: { licenseAlert: () => rendered },
    zoneOf: async () => 'UTC',
    onRefused: (code) => refused.push(code),
  });
}

describe('a notice Slack refuses for its content', () => {
  for (const code of ['invalid_blocks', 'msg_too_long']) {
    it(`${code}: sent again as its text alone, and the caller is told`, async () => {
      const { poster, posts } = recordingPoster([code]);
      const refused: string[] = [];
      const ref = await ports(poster, refused).postAlert('C1', alert, { key: 'k1' });
      expect(ref).toEqual({ channel: 'C1', ts: '1.2' });
      expect(posts).toEqual([rendered, { text: rendered.text }]);
      expect(refused).toEqual([code]);
    });
  }

  it('another refusal (channel_not_found) is not retried: the outbox decides', async () => {
    const { poster, posts } = recordingPoster(['channel_not_found']);
    await expect(ports(poster, []).postAlert('C1', alert, { key: 'k1' })).rejects.toMatchObject({
      code: 'channel_not_found',
    });
    expect(posts).toHaveLength(1);
  });
});
