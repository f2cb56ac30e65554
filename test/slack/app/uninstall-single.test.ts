/**
 * Uninstall in single-workspace mode (SLACK_BOT_TOKEN): the grace period applies the same way;
 * the configured token working again at a sweep counts as a reinstall (the workspace is restored),
 * a revoked one does not (its data is deleted after the grace period). After the deletion the
 * workspace is not held back: a reinstall then starts it afresh.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { activeCredentials, retentionOf } from '../../../src/ops/retention.js';
import { runRetentionSweep } from '../../../src/slack/lifecycle.js';
import { startTestBot, type TestBot } from '../../harness/index.js';

const DAY = 86_400_000;
let bot: TestBot;
let t = Date.now();
beforeAll(async () => {
  bot = await startTestBot({ credentials: 'store', register: () => undefined, now: () => t });
});
afterAll(async () => {
  await bot?.close();
});
beforeEach(() => {
  t = Date.now();
});

async function until(fn: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (await fn()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('condition not met in time');
}

describe('uninstall with one workspace', () => {
  it('the configured token still working at the sweep counts as a reinstall: nothing is deleted', async () => {
    const ws = bot.ws.teamId;
    await bot.event({ type: 'app_uninstalled' }, { team: bot.ws });
    await until(async () => (await retentionOf(bot.store, ws)) !== undefined);
    expect(await activeCredentials(bot.deps, ws)).toBeUndefined();
    t += 10 * DAY;
    expect((await runRetentionSweep(bot.deps))?.restored).toEqual([ws]);
    expect(await retentionOf(bot.store, ws)).toBeUndefined();
    expect(await activeCredentials(bot.deps, ws)).toBeDefined();
  });

  it('a revoked token is not a reinstall: the data goes after the grace period, and the workspace is not held back after', async () => {
    const ws = bot.ws.teamId;
    bot.fake.revokeToken(bot.ws.botToken);
    await bot.event({ type: 'app_uninstalled' }, { team: bot.ws });
    await until(async () => (await retentionOf(bot.store, ws)) !== undefined);
    t += 1 * DAY;
    expect((await runRetentionSweep(bot.deps))?.restored).toEqual([]);
    t += 3 * DAY;
    expect((await runRetentionSweep(bot.deps))?.deleted).toEqual([ws]);
    expect(await bot.store.credentials.get(ws)).toBeUndefined();
    expect((await retentionOf(bot.store, ws))?.phase).toBe('audit');
    // Set up again (credentials saved): background work runs for it, audit retention or not.
    await bot.store.credentials.put(ws, {
      credentials: { siteIds: ['SIT1'], defaultSiteId: 'SIT1' },
      verifiedAt: new Date(t).toISOString(),
      savedBy: bot.ws.admin,
    });
    expect(await activeCredentials(bot.deps, ws)).toBeDefined();
  });
});
