/**
 * One per-channel pacer per process: the job deliverer, the notices deliverer and the background
 * senders book the channel's next slot from it, so together they keep to one call per gap.
 * Virtual clock: order and times only, no real waiting.
 */
import type { WebClient } from '@slack/web-api';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { appChannelPacer, createBackgroundSender } from '../../src/slack/background-sender.js';
import { FakeClock } from '../../src/watch/clock.js';
import { ChannelPacer } from '../../src/watch/pacer.js';

const logger = createLogger({ level: 'silent' });

describe('ChannelPacer', () => {
  it('books slots one gap apart per channel; other channels and workspaces do not wait', async () => {
    const p = new ChannelPacer();
    expect(await p.reserve('T1', 'C1', 1000, 0)).toBe(0);
    expect(await p.reserve('T1', 'C1', 1000, 0)).toBe(1000);
    expect(await p.reserve('T1', 'C1', 1000, 10)).toBe(1990);
    expect(await p.reserve('T1', 'C2', 1000, 10)).toBe(0);
    expect(await p.reserve('T2', 'C1', 1000, 10)).toBe(0);
    // Once the booked slots are past, the next call goes at once.
    expect(await p.reserve('T1', 'C1', 1000, 5000)).toBe(0);
  });

  it('forgets past bookings when it holds too many channels', async () => {
    const p = new ChannelPacer({ maxKeys: 3 });
    for (const c of ['C1', 'C2', 'C3', 'C4']) await p.reserve('T1', c, 1000, 0);
    expect(p.size()).toBe(4);
    await p.reserve('T1', 'C5', 1000, 2000);
    expect(p.size()).toBe(1);
    expect(await p.reserve('T1', 'C5', 1000, 2000)).toBe(1000);
  });
});

function recording(clock: FakeClock) {
  const posted: Array<{ at: number; channel: string; text: string }> = [];
  const client = {
    chat: {
      postMessage: async (a: { channel: string; text: string }) => {
        posted.push({ at: clock.now(), channel: a.channel, text: a.text });
        return { ok: true, ts: '1.1' };
      },
    },
  } as unknown as WebClient;
  return { client, posted };
}

describe('senders sharing the pacer', () => {
  it('a background post waits for the slot another sender just used in that channel', async () => {
    const clock = new FakeClock();
    const pacer = new ChannelPacer();
    // The job deliverer posted a card in C1 just now.
    expect(await pacer.reserve('T1', 'C1', 1000, clock.now())).toBe(0);
    const s = createBackgroundSender({ logger, clock, pacer });
    const c = recording(clock);
    s.send('T1', 'C1', { text: 'audit line' }, () => c.client);
    s.send('T1', 'C2', { text: 'other channel' }, () => c.client);
    await s.idle();
    expect(c.posted.map((p) => p.text)).toEqual(['other channel']);
    clock.advance(999);
    await s.idle();
    expect(c.posted).toHaveLength(1);
    clock.advance(1);
    await s.idle();
    const t0 = c.posted[0]!.at;
    expect(c.posted.map((p) => `${p.at - t0}:${p.channel}:${p.text}`)).toEqual([
      '0:C2:other channel',
      '1000:C1:audit line',
    ]);
  });

  it('two senders of one process (watch and notify runtimes) interleave one post per second in a shared channel', async () => {
    const clock = new FakeClock();
    const pacer = new ChannelPacer();
    const a = createBackgroundSender({ logger, clock, pacer });
    const b = createBackgroundSender({ logger, clock, pacer });
    const c = recording(clock);
    for (let i = 0; i < 3; i++) {
      a.send('T1', 'C1', { text: `a${i}` }, () => c.client);
      b.send('T1', 'C1', { text: `b${i}` }, () => c.client);
    }
    for (let t = 0; t < 8; t++) {
      await Promise.all([a.idle(), b.idle()]);
      clock.advance(1000);
    }
    await Promise.all([a.idle(), b.idle()]);
    expect(c.posted).toHaveLength(6);
    const times = c.posted.map((p) => p.at);
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(1000);
  });

  it('the app has ONE pacer per clock: the runtimes on real time share it, a test clock gets its own', () => {
    const deps = { config: {} };
    const clock = new FakeClock();
    expect(appChannelPacer(deps)).toBe(appChannelPacer(deps));
    expect(appChannelPacer(deps, clock)).toBe(appChannelPacer(deps, clock));
    expect(appChannelPacer(deps, clock)).not.toBe(appChannelPacer(deps));
    expect(appChannelPacer({ config: {} })).not.toBe(appChannelPacer(deps));
  });
});
