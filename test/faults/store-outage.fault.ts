/**
 * Store outage seen from Slack: with the bot's Redis killed, slash commands are still acked at
 * once (the replay claim and every store call of a request are bounded in time) and each user is
 * told that storage is unavailable; once Redis is back, the same command works again.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startTestBot, type TestBot } from '../harness/index.js';
import { lastSeq, said, waitReplies } from './support/bot.js';
import { type RestartableRedis, startRestartableRedis } from './support/redis-proc.js';
import { scenario } from './support/summary.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('Redis outage during Slack requests', () => {
  it('acks every command during the outage, answers "storage is unavailable", and works after it', async () => {
    await scenario(
      { scenario: 'store: Redis down while commands arrive', injected: 'SIGKILL redis, 4 commands, restart' },
      async () => {
        const redis: RestartableRedis = await startRestartableRedis();
        cleanups.push(() => redis.stop());
        const bot: TestBot = await startTestBot({ storeUrl: redis.url, distribution: 'oauth' });
        cleanups.push(async () => {
          await redis.start().catch(() => undefined);
          await bot.close();
        });
        // Healthy first: the command answers with data.
        let seq = lastSeq(bot);
        expect((await bot.command('jobs')).status).toBe(200);
        expect(said(await waitReplies(bot, seq, { timeoutMs: 10_000 }))).not.toContain(
          'storage is unavailable',
        );

        await redis.kill9();
        let answered = 0;
        for (const text of ['jobs', 'recipients', 'watches', 'help']) {
          seq = lastSeq(bot);
          const r = await bot.command(text);
          // The ack is the HTTP answer itself: it came back 200 although the store is down.
          expect(r.status).toBe(200);
          const replies = await waitReplies(bot, seq, { timeoutMs: 10_000 });
          const t = said(replies);
          // help needs no store; the others must say why they did not run.
          if (text !== 'help') expect(t).toContain('storage is unavailable');
          answered++;
        }

        await redis.start();
        for (let i = 0; i < 60 && !(await bot.store.ping()); i++)
          await new Promise((r) => setTimeout(r, 100));
        seq = lastSeq(bot);
        expect((await bot.command('jobs')).status).toBe(200);
        const after = said(await waitReplies(bot, seq, { timeoutMs: 10_000 }));
        expect(after).not.toContain('storage is unavailable');
        return {
          outcome: `${answered}/4 commands acked and answered during the outage; works after restart`,
        };
      },
    );
  }, 90_000);
});
