/**
 * The watch runtimes of one process register their hooks per app (its configuration object,
 * kit/runtime/hooks.ts), not in one process-wide set: two apps in one process (tests, the demo)
 * never reach each other's runtime through the setup hook, the workflow steps' wake-up or
 * `/dwm debug`'s watcher status. The features reach the runtime only through these hooks.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { FEATURES } from '../../../src/slack/features/index.js';
import { notifyCredentialsSaved, wakeWatchers, watcherStatus } from '../../../src/slack/kit/runtime/hooks.js';
import { createWatchRuntime, type WatchRuntime } from '../../../src/slack/watch-runtime.js';
import { FakeClock } from '../../../src/watch/clock.js';
import { startTestBot, type TestBot } from '../../harness/index.js';

const bots: TestBot[] = [];
const runtimes: WatchRuntime[] = [];
afterEach(async () => {
  for (const r of runtimes.splice(0)) await r.stop();
  for (const b of bots.splice(0)) await b.close();
});

async function botWithRuntime(holderId: string) {
  const bot = await startTestBot({ credentials: 'none', emulator: false });
  bots.push(bot);
  const runtime = createWatchRuntime(bot.deps, bot.handle.app, {
    features: FEATURES,
    holderId,
    clock: new FakeClock(Date.now()),
  });
  runtimes.push(runtime);
  return { bot, runtime };
}

describe('watch runtimes per app', () => {
  it('two runtimes in one process do not share their hooks', async () => {
    const a = await botWithRuntime('holder-a');
    const b = await botWithRuntime('holder-b');
    expect((await watcherStatus(a.bot.deps))?.holderId).toBe('holder-a');
    expect((await watcherStatus(b.bot.deps))?.holderId).toBe('holder-b');

    // The same workspace id is paused in both apps' stores: a setup saved in app A resumes A only.
    const ws = a.bot.ws.teamId;
    expect(b.bot.ws.teamId).toBe(ws);
    for (const x of [a, b]) {
      const s = await x.bot.store.settings.get(ws);
      await x.bot.store.settings.put(ws, { ...s, pollingPausedReason: 'auth' });
    }
    await notifyCredentialsSaved(a.bot.deps, ws);
    expect((await a.bot.store.settings.get(ws)).pollingPausedReason).toBeUndefined();
    expect((await b.bot.store.settings.get(ws)).pollingPausedReason).toBe('auth');

    // A workflow step's wake-up reaches its own app's watcher only.
    wakeWatchers(b.bot.deps, ws, 'WAKE');
    expect((await b.runtime.watcher.status()).sites.map((s) => s.siteId)).toEqual(['WAKE']);
    expect((await a.runtime.watcher.status()).sites).toEqual([]);

    // A stopped runtime leaves its app's hooks: nothing reaches it any more.
    await a.runtime.stop();
    expect(await watcherStatus(a.bot.deps)).toBeUndefined();
    expect((await watcherStatus(b.bot.deps))?.holderId).toBe('holder-b');
  });

  it('refuses to start without the watcher renderers (no feature provides them)', () => {
    const bot = { deps: { config: {}, logger: { child: () => ({}) } } } as never;
    const noWatch = FEATURES.filter((f) => f.name !== 'watch');
    expect(() =>
      createWatchRuntime((bot as { deps: never }).deps, {} as never, { features: noWatch }),
    ).toThrow(/no feature renders the watcher's jobCard, subscriptionPaused, pollingPaused/);
  });
});
