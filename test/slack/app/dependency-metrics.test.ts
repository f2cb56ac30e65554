/**
 * Metrics behind the alerts on the bot's own dependencies (docs/alerts.rules.yml): the store
 * answering (drmchatops_store_up, pinged at scrape time) and Slack refusing the background
 * posters' calls (drmchatops_slack_call_errors_total{code}).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { slackCallErrors } from '../../../src/metrics.js';
import { createPoster } from '../../../src/slack/poster.js';
import { startTestBot, type TestBot } from '../../harness/index.js';

describe('store_up', () => {
  let bot: TestBot;
  beforeAll(async () => {
    bot = await startTestBot({ emulator: false, store: 'sqlite' });
  });
  afterAll(async () => {
    await bot?.close();
  });

  it('is 1 while the store answers and 0 once it does not', async () => {
    expect((await bot.get('/metrics')).text).toMatch(/^drmchatops_store_up 1$/m);
    await bot.store.close();
    expect((await bot.get('/metrics')).text).toMatch(/^drmchatops_store_up 0$/m);
  });
});

const OPTS = { metadata: { event_type: 'drmchatops_delivery', event_payload: { key: 'k1' } } } as never;

describe('slack_call_errors_total', () => {
  const count = async (code: string) =>
    (await slackCallErrors.get()).values.find((v) => v.labels.code === code)?.value ?? 0;

  it("counts each refused call by Slack's error code (an odd shape as other)", async () => {
    const refuse = (err: unknown) =>
      createPoster(async () => ({ chat: { postMessage: async () => Promise.reject(err) } }) as never);
    const before = {
      nic: await count('not_in_channel'),
      rl: await count('ratelimited'),
      other: await count('other'),
    };
    await expect(
      refuse({ code: 'slack_webapi_platform_error', data: { error: 'not_in_channel' } }).post(
        'C1',
        { text: 'x' },
        OPTS,
      ),
    ).rejects.toBeDefined();
    await expect(
      refuse({ code: 'slack_webapi_rate_limited_error', retryAfter: 3 }).post('C1', { text: 'x' }, OPTS),
    ).rejects.toBeDefined();
    await expect(refuse(new Error('weird')).post('C1', { text: 'x' }, OPTS)).rejects.toBeDefined();
    expect(await count('not_in_channel')).toBe(before.nic + 1);
    expect(await count('ratelimited')).toBe(before.rl + 1);
    expect(await count('other')).toBe(before.other + 1);
  });
});
