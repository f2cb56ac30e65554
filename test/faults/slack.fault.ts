/**
 * Slack faults: 429 storms with Retry-After, 5xx on chat.postMessage / chat.update, permanent
 * errors, expired trigger ids. Notifications are delayed, never lost or doubled; subscriptions
 * pause on permanent errors; a user whose modal could not open is told so.
 */
import { describe, expect, it } from 'vitest';
import type { Watcher } from '../../src/watch/index.js';
import { startTestBot } from '../harness/index.js';
import { lastSeq } from '../support/slack.js';
import { said, waitReplies } from './support/bot.js';
import { scenario } from './support/summary.js';
import { unhandledSoFar } from './support/unhandled.js';
import { completeness, SITE, startWatchRig, subscribeAll, type WatchRig } from './support/watch.js';

/** Poll (one interval apart) until the outbox is empty, at most `max` cycles. */
async function pollUntilDrained(rig: WatchRig, w: Watcher, max = 30): Promise<number> {
  for (let i = 1; i <= max; i++) {
    rig.clock.advance(60_000);
    await w.pollOnce(rig.ws.teamId, SITE);
    if ((await w.outbox.size(rig.ws.teamId)) === 0) return i;
  }
  return -1;
}

describe('Slack delivery faults', () => {
  const storms: Array<{ name: string; inject: (rig: WatchRig) => void; injected: string }> = [
    {
      name: '429 storm with Retry-After',
      injected: 'postMessage+update 429 Retry-After 30 s x12',
      inject: (rig) => {
        rig.fake.fail('chat.postMessage', { status: 429, retryAfterSeconds: 30, times: 12 });
        rig.fake.fail('chat.update', { status: 429, retryAfterSeconds: 30, times: 12 });
      },
    },
    {
      name: '5xx on postMessage and update',
      injected: 'postMessage 503 x8, update 500 x6',
      inject: (rig) => {
        rig.fake.fail('chat.postMessage', { status: 503, times: 8 });
        rig.fake.fail('chat.update', { status: 500, times: 6 });
      },
    },
    {
      name: 'transient Slack errors',
      injected: 'postMessage internal_error/fatal_error x10',
      inject: (rig) => rig.fake.fail('chat.postMessage', { error: 'internal_error', times: 10 }),
    },
  ];
  for (const s of storms) {
    it(`${s.name}: notifications delayed, never lost, never doubled`, async () => {
      await scenario({ scenario: `slack: ${s.name}`, injected: s.injected }, async () => {
        const rig = await startWatchRig();
        try {
          const w = rig.watcher();
          await subscribeAll(rig, w);
          const jobs = [1, 2, 3, 4].map((i) =>
            rig.emu.createJob(SITE, `slack-${i}`, [{ recipient: `r${i}` }]),
          );
          s.inject(rig);
          rig.clock.advance(60_000);
          await w.pollOnce(rig.ws.teamId, SITE);
          for (const j of jobs) rig.emu.finishJob(SITE, j);
          const cycles = await pollUntilDrained(rig, w);
          expect(cycles).toBeGreaterThan(0);
          const c = completeness(rig.keys(), rig.ws.teamId, rig.ws.channel, jobs);
          expect(c.missing).toEqual([]);
          expect(c.duplicated).toBe(0);
          const failed = rig.fake.calls().filter((x) => !x.ok && x.method.startsWith('chat.')).length;
          expect(failed).toBeGreaterThan(0);
          // Nothing was paused: these are transient.
          const subs = await w.subscriptions.list(rig.ws.teamId);
          expect(subs.every((x) => !x.paused)).toBe(true);
          expect(unhandledSoFar()).toEqual([]);
          return {
            outcome: `${failed} Slack calls failed; all ${jobs.length} jobs delivered after ${cycles} extra cycles`,
            lost: c.lost,
            duplicated: c.duplicated,
          };
        } finally {
          await rig.close();
        }
      });
    });
  }

  for (const code of ['channel_not_found', 'is_archived', 'not_in_channel', 'invalid_auth']) {
    it(`permanent error ${code}: the subscription pauses with a reason, nothing retried forever`, async () => {
      await scenario(
        { scenario: `slack: permanent ${code}`, injected: `postMessage ${code} (always)` },
        async () => {
          const rig = await startWatchRig();
          try {
            const w = rig.watcher();
            await subscribeAll(rig, w);
            rig.emu.createJob(SITE, 'perm-1', [{ recipient: 'p' }]);
            rig.fake.fail('chat.postMessage', { error: code, times: 1000 });
            rig.clock.advance(60_000);
            await w.pollOnce(rig.ws.teamId, SITE);
            const subs = await w.subscriptions.list(rig.ws.teamId);
            expect(subs).toHaveLength(1);
            expect(subs[0]!.paused?.code).toBe(code);
            expect(subs[0]!.paused?.reason.length).toBeGreaterThan(20);
            const paused = rig.events.filter((e) => e.type === 'subscription-paused');
            expect(paused).toHaveLength(1);
            const postsBefore = rig.fake.calls('chat.postMessage').length;
            for (let i = 0; i < 3; i++) {
              rig.clock.advance(60_000);
              await w.pollOnce(rig.ws.teamId, SITE);
            }
            // Paused: no more attempts.
            expect(rig.fake.calls('chat.postMessage').length).toBe(postsBefore);
            expect(postsBefore).toBeLessThanOrEqual(2);
            return { outcome: `paused (${code}), 1 event, ${postsBefore} attempt(s), then quiet` };
          } finally {
            await rig.close();
          }
        },
      );
    });
  }
});

describe('expired trigger ids', () => {
  it('a modal that cannot open (expired_trigger_id) gets a clear reply, not silence', async () => {
    await scenario(
      { scenario: 'slack: expired trigger id', injected: 'views.open expired_trigger_id' },
      async () => {
        const bot = await startTestBot({ credentials: 'none' });
        try {
          bot.fake.fail('views.open', { error: 'expired_trigger_id', times: 1 });
          const seq = lastSeq(bot);
          const r = await bot.command('setup', { user: bot.ws.admin });
          expect(r.status).toBe(200);
          const calls = await bot.fake
            .waitFor((c) => c.seq > seq && c.method === 'response_url', 5000)
            .then(() => waitReplies(bot, seq))
            .catch(() => []);
          const text = said(
            calls.filter((c) => c.method === 'response_url' || c.method === 'chat.postEphemeral'),
          );
          expect(text).toMatch(/try again|again/i);
          expect(text).not.toMatch(/undefined|\[object Object\]/);
          expect(unhandledSoFar()).toEqual([]);
          return { outcome: 'user told to run it again' };
        } finally {
          await bot.close();
        }
      },
    );
  });
});
