import { afterEach, describe, expect, it } from 'vitest';
import { RESTARTING_TEXT, RESTARTING_UNFINISHED_TEXT } from '../../../src/slack/drain.js';
import { startTestBot, type TestBot } from '../../harness/index.js';
import { lastSeq } from '../../support/slack.js';

let bot: TestBot | undefined;
afterEach(async () => {
  await bot?.close();
  bot = undefined;
});

const replies = (b: TestBot, after: number) =>
  b.fake
    .calls()
    .filter((c) => c.seq > after && c.method === 'response_url')
    .map((c) => JSON.stringify(c.args));

describe('drain on shutdown (SIGTERM)', () => {
  it('lets a command that is between upstream calls finish and answer, and tells new ones to try again', async () => {
    bot = await startTestBot();
    // Every watermarking call takes a while: the command is in flight when the drain starts.
    bot.emulator!.faults.add({ match: '/wm/', latencyMs: 400 });
    const seq = lastSeq(bot);
    expect((await bot.command('jobs')).status).toBe(200);
    const drained = bot.handle.drain(15_000);
    // A command arriving during the drain is acked and told to try again.
    const seq2 = lastSeq(bot);
    expect((await bot.command('recipients')).status).toBe(200);
    await bot.fake.waitFor(
      (c) => c.seq > seq2 && c.method === 'response_url' && JSON.stringify(c.args).includes('restarting'),
    );
    expect(await drained).toEqual({ finished: 1, unfinished: 0 });
    const answered = replies(bot, seq);
    // The in-flight command answered with its data, not with "restarting".
    expect(answered.some((t) => t.includes('DEMO') && !t.includes('restarting'))).toBe(true);
    expect(answered.filter((t) => t.includes(JSON.stringify(RESTARTING_TEXT).slice(1, 40)))).toHaveLength(1);
  });

  it('answers a command still running at the deadline with "restarting"', async () => {
    bot = await startTestBot();
    bot.emulator!.faults.add({ match: '/wm/', latencyMs: 5000 });
    const seq = lastSeq(bot);
    expect((await bot.command('jobs')).status).toBe(200);
    // The ack came from inside the handler, so the request is counted in flight: drain with a
    // deadline shorter than its upstream call.
    expect(await bot.handle.drain(50)).toEqual({ finished: 0, unfinished: 1 });
    const answered = replies(bot, seq);
    expect(answered.some((t) => t.includes(JSON.stringify(RESTARTING_UNFINISHED_TEXT).slice(1, 40)))).toBe(
      true,
    );
  });
});
