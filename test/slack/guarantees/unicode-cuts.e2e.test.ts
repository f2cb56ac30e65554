/**
 * Text cut to a length (a typed value quoted in a "not valid" answer, a value first shown in a
 * form) never leaves half of a surrogate pair: Slack refuses a payload with an unpaired surrogate,
 * so the user would get no answer at all. Through the signed app and the fake Slack, which
 * refuses such payloads as Slack does.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeView } from '../../../dev/fakeslack/index.js';
import { startTestBot, type TestBot } from '../../harness/index.js';
import { lastSeq } from '../wm/helpers.js';

let bot: TestBot;
beforeAll(async () => {
  bot = await startTestBot({ credentials: 'env' });
});
afterAll(async () => {
  await bot?.close();
});

/** Every string in a payload is well-formed UTF-16 (no lone surrogate). */
function loneSurrogates(v: unknown, path = ''): string[] {
  if (typeof v === 'string') return /[\ud800-\udfff]/u.test(v) ? [path || '(root)'] : [];
  if (Array.isArray(v)) return v.flatMap((x, i) => loneSurrogates(x, `${path}/${i}`));
  if (v && typeof v === 'object')
    return Object.entries(v).flatMap(([k, x]) => loneSurrogates(x, `${path}/${k}`));
  return [];
}

// 'x' then emoji: a cut at an even number of UTF-16 units lands inside a pair.
const EMOJI_TAIL = `x${'🔥'.repeat(40)}`;

describe('a typed value quoted in a refusal', () => {
  it('/dwm watch content:<emoji…>: the "not a content filter" answer reaches the user', async () => {
    const seq = lastSeq(bot);
    await bot.command(`watch content:${EMOJI_TAIL}`, { user: bot.ws.admin });
    const reply = await bot.fake.waitFor((c) => c.method === 'response_url' && c.seq > seq, 10_000);
    expect(loneSurrogates(reply.args)).toEqual([]);
    expect(reply.ok).toBe(true);
    expect(JSON.stringify(reply.args)).toContain('is not a content filter');
  });

  it('the watch form: the inline error on the content field is well-formed', async () => {
    const seq = lastSeq(bot);
    await bot.command('watch', { user: bot.ws.admin });
    await bot.fake.waitFor((c) => c.method === 'views.open' && c.seq > seq && c.ok, 10_000);
    const view = bot.fake.lastView(bot.ws.admin, 'modal') as FakeView;
    const r = await bot.viewSubmission({
      user: bot.ws.admin,
      view,
      values: { watch_content: { value: { type: 'plain_text_input', value: EMOJI_TAIL } } },
    });
    expect(r.json).toMatchObject({ response_action: 'errors' });
    expect(loneSurrogates(r.json)).toEqual([]);
  });
});
