/**
 * direct messages the watch runtime sends in the background (a subscription paused, polling
 * paused for the admins) must survive a 429 like channel notifications do: wait Retry-After and
 * try again. Before, `dm()` uses the background client (retries 0, rate-limited calls rejected) and
 * the failure is only logged, so the creator never learns the subscription stopped.
 * Real Bolt app, fake Slack and emulator on loopback; virtual clock (no real waiting).
 *
 */
import type { WebClient } from '@slack/web-api';
import { afterEach, describe, expect, it } from 'vitest';
import { FEATURES } from '../../../src/slack/features/index.js';
import { createPosterFactory, type PosterFactory } from '../../../src/slack/poster.js';
import { createWatchRuntime, type WatchRuntime } from '../../../src/slack/watch-runtime.js';
import { FakeClock } from '../../../src/watch/clock.js';
import { startTestBot, type TestBot } from '../../harness/index.js';

let bot: TestBot | undefined;
let runtime: WatchRuntime | undefined;
afterEach(async () => {
  await runtime?.stop();
  await bot?.close();
  bot = undefined;
  runtime = undefined;
});

/** The rate-limit error @slack/web-api throws with rejectRateLimitedCalls (Retry-After: 2 s). */
function rateLimited(): Error {
  return Object.assign(new Error('A rate limit was exceeded'), {
    code: 'slack_webapi_rate_limited_error',
    retryAfter: 2,
  });
}

describe('watch runtime direct messages', () => {
  it('the "subscription paused" DM is retried after a 429, not dropped', async () => {
    const clock = new FakeClock(Date.now());
    const b = await startTestBot({ credentials: 'env', now: () => clock.now(), store: 'memory' });
    bot = b;
    const real = createPosterFactory(b.deps);
    let limited = 0;
    // The first direct message (chat.postMessage to a user id) is answered 429 once.
    const posters: PosterFactory = {
      poster: (ws) => real.poster(ws),
      forget: (ws) => real.forget(ws),
      async client(ws) {
        const c = await real.client(ws);
        return new Proxy(c, {
          get(t, p) {
            if (p !== 'chat') return Reflect.get(t, p);
            return {
              ...t.chat,
              postMessage: async (a: { channel: string }) => {
                if (a.channel.startsWith('U') && limited === 0) {
                  limited++;
                  throw rateLimited();
                }
                return t.chat.postMessage(a as never);
              },
            };
          },
        }) as WebClient;
      },
    };
    runtime = createWatchRuntime(b.deps, b.handle.app, {
      features: FEATURES,
      clock,
      holderId: 'dm-test',
      watcher: { jitter: 0 },
      posters,
    });
    const site = b.emulator!.demo.defaultSiteId;
    const ws = b.ws.teamId;
    const poll = async () => {
      clock.advance(60_000);
      await runtime!.watcher.pollOnce(ws, site);
      await runtime!.idle();
    };

    const seq = b.fake.lastSeq();
    await b.command(`watch site:${site}`);
    await b.fake.waitFor((c) => c.method === 'response_url' && c.seq > seq, 8000);
    await poll();
    b.fake.archiveChannel(ws, b.ws.channel);
    b.emulator!.createJob(site, 'after-archive', [{ recipient: 'alice' }]);
    await poll();
    const [sub] = await runtime.watcher.subscriptions.list(ws);
    expect(sub?.paused?.code).toBe('is_archived');
    expect(limited).toBe(1);
    // Give a retry every chance: well past Retry-After on the virtual clock.
    for (let i = 0; i < 5; i++) {
      clock.advance(5_000);
      await runtime.idle();
    }
    const dms = b.fake.messages(`D${b.ws.member.slice(1)}`);
    expect(dms.map((m) => JSON.stringify(m.blocks)).join('\n')).toContain('are paused');
  });
});
