/**
 * Store outage seen from Slack: with the bot's Redis killed, slash commands are still acked at
 * once (the replay claim and every store call of a request are bounded in time) and each user is
 * told that storage is unavailable; once Redis is back, the same command works again.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { FakeView } from '../../dev/fakeslack/index.js';
import { STORE_DOWN_INLINE } from '../../src/slack/kit/interactions/form-errors.js';
import { startTestBot, type TestBot } from '../harness/index.js';
import { lastSeq } from '../support/slack.js';
import { said, waitReplies } from './support/bot.js';
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

  it('a form submitted during the outage stays open with what was typed and says why; submitted again after it, it saves', async () => {
    await scenario(
      {
        scenario: 'store: Redis down while a form is submitted',
        injected: 'SIGKILL redis, watch form submitted (OAuth and single workspace), restart',
      },
      async () => {
        const redis: RestartableRedis = await startRestartableRedis();
        cleanups.push(() => redis.stop());
        // OAuth: the installation is read from the store (Bolt's authorize fails); single
        // workspace: the token is in the config and the kit's own checks meet the outage.
        const bots: TestBot[] = [];
        for (const distribution of ['oauth', 'single'] as const) {
          const bot = await startTestBot({ storeUrl: redis.url, distribution });
          cleanups.push(() => bot.close());
          bots.push(bot);
        }
        cleanups.push(async () => {
          await redis.start().catch(() => undefined);
        });
        const values = {
          watch_site: { value: { type: 'static_select', selected_option: { value: 'DEMO' } } },
          watch_content: { value: { type: 'plain_text_input', value: 'typed-by-hand-*' } },
        };
        const forms: FakeView[] = [];
        for (const bot of bots) {
          const seq = lastSeq(bot);
          await bot.command('watch', { user: bot.ws.admin });
          await bot.fake.waitFor((c) => c.seq > seq && c.method === 'views.open' && c.ok, 10_000);
          forms.push(bot.fake.lastView(bot.ws.admin, 'modal') as FakeView);
        }

        await redis.kill9();
        for (const [i, bot] of bots.entries()) {
          const seq = lastSeq(bot);
          const r = await bot.viewSubmission({ user: bot.ws.admin, view: forms[i]!, values });
          expect(r.status).toBe(200);
          // The form stays open (its values with it), the reason under its first field; before,
          // the ack closed it and nothing was said (OAuth) or the values were gone (single).
          expect(r.json).toEqual({ response_action: 'errors', errors: { watch_site: STORE_DOWN_INLINE } });
          expect(bot.fake.calls().filter((c) => c.seq > seq && c.method === 'views.update')).toEqual([]);
        }

        await redis.start();
        for (const bot of bots) {
          for (let i = 0; i < 60 && !(await bot.store.ping()); i++)
            await new Promise((r) => setTimeout(r, 100));
        }
        for (const [i, bot] of bots.entries()) {
          const seq = lastSeq(bot);
          const r = await bot.viewSubmission({ user: bot.ws.admin, view: forms[i]!, values });
          expect(r.status).toBe(200);
          const done = await bot.fake.waitFor(
            (c) =>
              c.seq > seq && c.method === 'views.update' && c.ok && said([c]).includes('is now watching'),
            15_000,
          );
          expect(said([done])).toContain('typed-by-hand-');
        }
        return {
          outcome: 'form kept open with its values during the outage (OAuth and single); saved after it',
        };
      },
    );
  }, 120_000);

  it('a workflow step that arrives during the outage is ended with the reason, not left waiting', async () => {
    await scenario(
      {
        scenario: 'store: Redis down while a workflow step runs',
        injected: 'SIGKILL redis, function_executed (OAuth)',
      },
      async () => {
        const redis: RestartableRedis = await startRestartableRedis();
        cleanups.push(() => redis.stop());
        const bot: TestBot = await startTestBot({ storeUrl: redis.url, distribution: 'oauth' });
        cleanups.push(async () => {
          await redis.start().catch(() => undefined);
          await bot.close();
        });
        await redis.kill9();
        const r = await bot.functionExecuted({
          callbackId: 'register_recipients',
          inputs: { site: 'DEMO', recipients: 'outage-step-1', requested_by: bot.ws.member },
        });
        expect(r.status).toBe(200);
        const done = await bot.fake.waitFor(
          (c) =>
            (c.method === 'functions.completeError' || c.method === 'functions.completeSuccess') &&
            c.args.function_execution_id === r.executionId,
          10_000,
        );
        expect(done.method).toBe('functions.completeError');
        expect(String(done.args.error)).toContain("the bot's storage is unavailable right now");
        return { outcome: 'step ended with completeError and the reason' };
      },
    );
  }, 90_000);
});
