/**
 * The retry timer of deferred registrations is cleared by the lifecycle's stop.
 * A final report whose in-place update fails reaches the user's DM anyway.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../../../src/log.js';
import { parseRecipientLines, planRegistration } from '../../../../src/ops/watermarking/registration/plan.js';
import { markPending, reportRepo, saveRun } from '../../../../src/ops/watermarking/registration/records.js';
import { newReport } from '../../../../src/ops/watermarking/registration/run.js';
import { appSender } from '../../../../src/slack/background-sender.js';
import { resumePendingRegistrations } from '../../../../src/slack/features/register/index.js';
import { createLifecycle } from '../../../../src/slack/lifecycle.js';
import { startTestBot, type TestBot } from '../../../harness/index.js';
import { memoryDeps } from '../../../support/slack-app.js';

async function seedRun(
  deps: Parameters<typeof saveRun>[0],
  ws: string,
  reportId: string,
  atIso: string,
  run: { userId: string; channel?: string; ts?: string },
  names = 3,
) {
  const plan = await planRegistration(
    parseRecipientLines(Array.from({ length: names }, (_, i) => `${reportId}-${i}`).join('\n')),
    async () => new Map(),
  );
  await reportRepo(deps).put(ws, reportId, newReport(plan, 'DEMO', reportId, atIso));
  await saveRun(deps, ws, { reportId, siteId: 'DEMO', startedAt: atIso, ...run } as never);
  await markPending(deps, ws, reportId);
}

describe('deferred registration retry', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('registers a stop hook that clears its timer', async () => {
    const deps = await memoryDeps();
    // A run saved just now (by another replica, maybe): deferred, retried later.
    await seedRun(deps, 'T1', 'fresh-run', new Date(deps.now()).toISOString(), { userId: 'U1' });
    const lifecycle = createLifecycle();
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const r = await resumePendingRegistrations(deps, { lifecycle, staleAfterMs: 60_000 });
    expect(r.deferred).toEqual(['fresh-run']);
    const timers = vi.getTimerCount();
    expect(timers).toBeGreaterThan(0);
    await lifecycle.stopAll(createLogger({ level: 'silent' }), 1_000);
    // The retry timer is gone (the lifecycle's own timeout timers are cleared too).
    expect(vi.getTimerCount()).toBe(timers - 1);
    vi.useRealTimers();
    await deps.store.close();
  });
});

describe('final registration report', () => {
  let bot: TestBot | undefined;
  afterEach(async () => {
    await bot?.close();
    bot = undefined;
  });

  it('goes to the DM as a new message when its progress message cannot be updated', async () => {
    bot = await startTestBot({ credentials: 'env' });
    const admin = bot.ws.admin;
    const old = new Date(Date.now() - 10 * 60_000).toISOString();
    // The progress message is gone (deleted): chat.update answers message_not_found.
    await seedRun(bot.deps, bot.ws.teamId, 'lost-progress', old, {
      userId: admin,
      channel: `D${admin.slice(1)}`,
      ts: '1700000000.000100',
    });
    const seq = bot.fake.lastSeq();
    const r = await resumePendingRegistrations(bot.deps);
    expect(r.resumed).toEqual(['lost-progress']);
    expect(bot.fake.calls('chat.update').filter((c) => c.seq > seq && !c.ok).length).toBeGreaterThan(0);
    await appSender(bot.deps).idle();
    const post = await bot.fake.waitFor(
      (c) =>
        c.seq > seq &&
        c.method === 'chat.postMessage' &&
        c.ok &&
        JSON.stringify(c.args).includes('Registered 3 recipients'),
      8000,
    );
    expect(post.args.channel).toBe(admin);
  });
});
