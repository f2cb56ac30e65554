import { afterEach, describe, expect, it, vi } from 'vitest';
import { handlerQueue } from '../../../../src/slack/kit/commands/handler-queue.js';
import { startTestBot, type TestBot } from '../../../harness/index.js';
import { lastSeq } from '../../../support/slack.js';

let bot: TestBot | undefined;
afterEach(async () => {
  await bot?.close();
  bot = undefined;
});

describe('slash commands run after the ack through a bounded queue', () => {
  it('answers "busy, try again" when the queue is full, and still opens a form at once', async () => {
    bot = await startTestBot({ env: { COMMAND_CONCURRENCY: '1', COMMAND_QUEUE_MAX: '1' } });
    const b = bot;
    // Job lists wait on a slow upstream: the first holds the only slot, the second waits.
    b.emulator!.faults.add({ match: '/wm/', latencyMs: 1500 });
    const queue = handlerQueue(b.deps);
    const seq = lastSeq(b);
    expect((await b.command('jobs')).status).toBe(200);
    await vi.waitFor(() => expect(queue.active).toBe(1));
    expect((await b.command('jobs')).status).toBe(200);
    await vi.waitFor(() => expect(queue.pending).toBe(1));
    // The third is acked and told the bot is busy (not run, not dropped silently).
    expect((await b.command('jobs')).status).toBe(200);
    const busy = await b.fake.waitFor(
      (c) => c.seq > seq && c.method === 'response_url' && JSON.stringify(c.args).includes('busy'),
    );
    expect(JSON.stringify(busy.args)).toContain('Try it again in a minute');
    // A command that opens a form does not wait behind them (its trigger id lasts 3 s).
    expect((await b.command('watch')).status).toBe(200);
    await b.fake.waitFor((c) => c.seq > seq && c.method === 'views.open');
    expect(queue.active + queue.pending).toBe(2);
    // Then both queued job lists are answered with their data.
    await vi.waitFor(
      () => {
        const lists = b.fake
          .calls()
          .filter(
            (c) => c.seq > seq && c.method === 'response_url' && !JSON.stringify(c.args).includes('busy'),
          );
        expect(lists).toHaveLength(2);
      },
      { timeout: 15_000, interval: 100 },
    );
  });

  it('closes the queue at the drain deadline: a waiting command never starts after its user was told', async () => {
    bot = await startTestBot({ env: { COMMAND_CONCURRENCY: '1' } });
    const b = bot;
    b.emulator!.faults.add({ match: '/wm/', latencyMs: 1500 });
    const queue = handlerQueue(b.deps);
    expect((await b.command('jobs')).status).toBe(200);
    await vi.waitFor(() => expect(queue.active).toBe(1));
    expect((await b.command('jobs')).status).toBe(200);
    await vi.waitFor(() => expect(queue.pending).toBe(1));
    expect(await b.handle.drain(20)).toEqual({ finished: 0, unfinished: 2 });
    expect(queue.pending).toBe(0);
    await expect(queue.run(async () => undefined)).resolves.toBe('cancelled');
  });
});
