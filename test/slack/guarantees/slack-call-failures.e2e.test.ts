/**
 * A Slack call of a request that fails on Slack's side (views.open answered 500, internal_error,
 * an expired trigger id, a revoked token) is told as Slack's failure with what to do, not as
 * "something unexpected went wrong on our side" with a reference to report. Through the signed app
 * and the fake Slack.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBot, type TestBot } from '../../harness/index.js';

let bot: TestBot;
beforeAll(async () => {
  bot = await startTestBot({ credentials: 'env' });
});
afterAll(async () => {
  await bot?.close();
});

const CASES = [
  {
    name: 'views.open HTTP 500',
    fail: { status: 500 },
    says: /failed on Slack's side/,
    next: /Try again in a minute/,
  },
  {
    name: 'views.open internal_error',
    fail: { error: 'internal_error' },
    says: /failed on Slack's side/,
    next: /Try again in a minute/,
  },
  {
    name: 'views.open expired_trigger_id',
    fail: { error: 'expired_trigger_id' },
    says: /did not open the form in time/,
    next: /Run the command again/,
  },
  {
    name: 'views.open token_revoked',
    fail: { error: 'token_revoked' },
    says: /Slack token no longer works/,
    next: /install the app again/,
  },
] as const;

describe('a form that Slack fails to open', () => {
  for (const c of CASES) {
    it(`${c.name}: the reply says what happened on Slack's side and what to do`, async () => {
      bot.fake.clearFailures();
      bot.fake.fail('views.open', { ...c.fail, times: 1 } as Parameters<typeof bot.fake.fail>[1]);
      const seq = bot.fake.lastSeq();
      const r = await bot.command('watch', { user: bot.ws.admin });
      expect(r.status).toBe(200);
      const reply = await bot.fake.waitFor((x) => x.seq > seq && x.method === 'response_url', 10_000);
      const text = JSON.stringify(reply.args);
      expect(text).toMatch(c.says);
      expect(text).toMatch(c.next);
      expect(text).not.toMatch(/on our side|[Rr]eference/);
      bot.fake.clearFailures();
    });
  }
});
