/**
 * The paced background queue (direct messages, audit mirror lines). Virtual clock:
 * order and counts only, no real waiting.
 */
import type { WebClient } from '@slack/web-api';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/log.js';
import { LruMap } from '../../../src/lru.js';
import { appSender, createBackgroundSender, stopAppSender } from '../../../src/slack/background-sender.js';
import { createContext } from '../../../src/slack/kit/context/context.js';
import { FakeClock } from '../../../src/watch/clock.js';
import { memoryDeps } from '../../support/slack-app.js';

const logger = createLogger({ level: 'silent' });

function rateLimited(seconds: number): Error {
  return Object.assign(new Error('rate limited'), {
    code: 'slack_webapi_rate_limited_error',
    retryAfter: seconds,
  });
}
function platform(error: string): Error {
  return Object.assign(new Error(error), { code: 'slack_webapi_platform_error', data: { error } });
}

/** A client whose postMessage records (channel, text) and answers from `script` (default ok). */
function scripted(script: Array<Error | undefined> = []) {
  const posted: Array<{ channel: string; text: string }> = [];
  let calls = 0;
  const client = {
    chat: {
      postMessage: async (a: { channel: string; text: string }) => {
        const r = script[calls++];
        if (r) throw r;
        posted.push({ channel: a.channel, text: a.text });
        return { ok: true, ts: '1.1' };
      },
    },
  } as unknown as WebClient;
  return { client, posted, calls: () => calls };
}

describe('createBackgroundSender', () => {
  it('posts at once, then at most one message per second per channel; channels do not wait on each other', async () => {
    const clock = new FakeClock();
    const s = createBackgroundSender({ logger, clock });
    const c = scripted();
    s.send('T1', 'C1', { text: 'a' }, () => c.client);
    s.send('T1', 'C1', { text: 'b' }, () => c.client);
    s.send('T1', 'C2', { text: 'x' }, () => c.client);
    await s.idle();
    expect(c.posted.map((p) => p.text)).toEqual(['a', 'x']);
    clock.advance(999);
    await s.idle();
    expect(c.posted).toHaveLength(2);
    clock.advance(1);
    await s.idle();
    expect(c.posted.map((p) => `${p.channel}:${p.text}`)).toEqual(['C1:a', 'C2:x', 'C1:b']);
    expect(s.pending()).toBe(0);
  });

  it('a message sent after the channel queue ran empty still waits for the gap', async () => {
    const clock = new FakeClock();
    const s = createBackgroundSender({ logger, clock });
    const c = scripted();
    s.send('T1', 'C1', { text: 'a' }, () => c.client);
    await s.idle();
    clock.advance(100);
    s.send('T1', 'C1', { text: 'b' }, () => c.client);
    await s.idle();
    expect(c.posted.map((p) => p.text)).toEqual(['a']);
    clock.advance(899);
    await s.idle();
    expect(c.posted).toHaveLength(1);
    clock.advance(1);
    await s.idle();
    expect(c.posted.map((p) => p.text)).toEqual(['a', 'b']);
  });

  it('a 429 waits Retry-After and tries again (the message is not dropped)', async () => {
    const clock = new FakeClock();
    const s = createBackgroundSender({ logger, clock });
    const c = scripted([rateLimited(3)]);
    s.send('T1', 'U1', { text: 'paused' }, () => c.client);
    await s.idle();
    expect(c.posted).toHaveLength(0);
    clock.advance(2_999);
    await s.idle();
    expect(c.calls()).toBe(1);
    clock.advance(1);
    await s.idle();
    expect(c.posted.map((p) => p.text)).toEqual(['paused']);
  });

  it('a permanent error drops the message after one try; a transient one after maxAttempts', async () => {
    const clock = new FakeClock();
    const s = createBackgroundSender({ logger, clock, maxAttempts: 3 });
    const perm = scripted([platform('channel_not_found')]);
    s.send('T1', 'C1', { text: 'gone' }, () => perm.client);
    await s.idle();
    expect(perm.calls()).toBe(1);
    expect(s.pending()).toBe(0);

    const flaky = scripted([
      platform('internal_error'),
      platform('internal_error'),
      platform('internal_error'),
    ]);
    s.send('T1', 'C2', { text: 'flaky' }, () => flaky.client);
    for (let i = 0; i < 10; i++) {
      clock.advance(5_000);
      await s.idle();
    }
    expect(flaky.calls()).toBe(3);
    expect(flaky.posted).toHaveLength(0);
    expect(s.pending()).toBe(0);
  });

  it('stop() clears its timers and sends nothing afterwards', async () => {
    const clock = new FakeClock();
    const s = createBackgroundSender({ logger, clock });
    const c = scripted([rateLimited(10)]);
    s.send('T1', 'C1', { text: 'a' }, () => c.client);
    s.send('T1', 'C1', { text: 'b' }, () => c.client);
    await s.idle();
    expect(clock.pendingTimers()).toBe(1);
    await s.stop();
    expect(clock.pendingTimers()).toBe(0);
    s.send('T1', 'C1', { text: 'late' }, () => c.client);
    clock.advance(60_000);
    await s.idle();
    expect(c.posted).toHaveLength(0);
  });

  it('a full channel queue drops the newest message instead of growing without bound', async () => {
    const clock = new FakeClock();
    const s = createBackgroundSender({ logger, clock, maxQueued: 2 });
    const c = scripted();
    for (const t of ['1', '2', '3']) s.send('T1', 'C1', { text: t }, () => c.client);
    await s.idle();
    for (let i = 0; i < 3; i++) {
      clock.advance(1_000);
      await s.idle();
    }
    expect(c.posted.map((p) => p.text)).toEqual(['1', '2']);
  });
});

describe('the app sender', () => {
  it('is one per app: deps derived from it share it, and stopping through either stops it', async () => {
    const deps = await memoryDeps();
    const other = await memoryDeps();
    // main.ts gives background work `{ ...deps, store }`: the same app, so the same sender.
    const background = { ...deps, store: other.store };
    const sender = appSender(deps);
    expect(appSender(background)).toBe(sender);
    expect(appSender(other)).not.toBe(sender);
    await stopAppSender(deps);
    // Stopped for every deps of the app; the next use starts a fresh one.
    expect(appSender(background)).not.toBe(sender);
    await stopAppSender(background);
    await stopAppSender(other);
    await deps.store.close();
    await other.store.close();
  });
});

describe('audit mirror', () => {
  it('ctx.audit records the entry without waiting for the audit channel post', async () => {
    const deps = await memoryDeps({ auditChannelId: 'C0AUDIT' });
    let release: () => void = () => undefined;
    const posted: string[] = [];
    const client = {
      // The mirror reads the channel's sharing first (a channel of this workspace only).
      conversations: { info: async () => ({ ok: true, channel: { id: 'C0AUDIT', is_member: true } }) },
      chat: {
        postMessage: (a: { channel: string }) =>
          new Promise((resolve) => {
            posted.push(a.channel);
            release = () => resolve({ ok: true });
          }),
      },
    } as unknown as WebClient;
    const ctx = createContext({ deps, client, teamId: 'T1', userId: 'U1' } as never);
    // Resolves although chat.postMessage has not answered.
    await ctx.audit({ action: 'test.one', detail: 'first', result: 'ok' });
    await ctx.audit({ action: 'test.two', detail: 'second', result: 'ok' });
    expect((await deps.store.audit.list('T1')).map((e) => e.action).sort()).toEqual(['test.one', 'test.two']);
    // One post in flight; the second waits its turn (paced, in order).
    for (let i = 0; i < 400 && posted.length === 0; i++) await new Promise((r) => setTimeout(r, 5));
    expect(posted).toEqual(['C0AUDIT']);
    release();
    await appSender(deps).idle();
    expect(appSender(deps).pending()).toBe(1);
    await stopAppSender(deps);
    await deps.store.close();
  });
});

describe('LruMap', () => {
  it('keeps at most max entries, evicting the least recently used', () => {
    const m = new LruMap<string, number>(2);
    m.set('a', 1).set('b', 2);
    expect(m.get('a')).toBe(1);
    m.set('c', 3);
    expect(m.get('b')).toBeUndefined();
    expect(m.get('a')).toBe(1);
    expect(m.size).toBe(2);
  });
});
