/**
 * A number typed in a command is a number as written: hex (0x10), an exponent (1e3) or a
 * fraction (12.0) is refused with what to type, never read as another id or page.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBot, type TestBot } from '../../harness/index.js';
import { lastSeq } from '../../support/slack.js';

let bot: TestBot;
beforeAll(async () => {
  bot = await startTestBot({ credentials: 'env' });
});
afterAll(async () => {
  await bot?.close();
});

const served = () => Object.values(bot.emulator!.requestCounts()).reduce((a, n) => a + n, 0);

describe('whole numbers in commands', () => {
  it.each([
    ['/dwm', 'job 0x10'],
    ['/dwm', 'job 1e3'],
    ['/dwm', 'job 12.0'],
    ['/dwm', 'jobs page:1e1'],
    ['/drm', 'audit 0x20'],
  ] as const)(
    '%s %s: refused, saying a whole number is needed; nothing is asked of the service',
    async (command, text) => {
      const before = served();
      const seq = lastSeq(bot);
      await bot.command(text, { command, user: bot.ws.admin });
      const reply = await bot.fake.waitFor((c) => c.method === 'response_url' && c.seq > seq, 10_000);
      expect(String(reply.args.text)).toMatch(
        /^Check the command .* must be a whole number from 1 to \d+\.$/,
      );
      expect(served()).toBe(before);
    },
  );

  it('/dwm job 12 (and " 12" padded, "+12") still shows job 12', async () => {
    for (const text of ['job 12', 'job +12']) {
      const seq = lastSeq(bot);
      await bot.command(text, { user: bot.ws.admin });
      const reply = await bot.fake.waitFor((c) => c.method === 'response_url' && c.seq > seq, 10_000);
      expect(String(reply.args.text)).not.toMatch(/^Check the command/);
      expect(JSON.stringify(reply.args)).toContain('12');
    }
  });
});
