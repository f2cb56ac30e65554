/**
 * A channel that does not let the app post (read-only, posting restricted, a workspace rule) is a
 * permanent failure like an archived channel: the subscription pauses once with a reason in words
 * and the creator is told, instead of every notification being refused and dropped unseen, poll
 * after poll. The watcher with the real Slack poster and the fake Slack over loopback.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { pausedReason } from '../../src/slack/kit/blocks/paused-reason.js';
import { SITE, startWatchRig, subscribeAll, type WatchRig } from '../faults/support/watch.js';

let rig: WatchRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

describe('a channel that refuses the app', () => {
  for (const code of [
    'restricted_action',
    'restricted_action_read_only_channel',
    'team_access_not_granted',
  ]) {
    it(`${code}: the subscription pauses once with a reason, then nothing more is tried`, async () => {
      rig = await startWatchRig();
      const w = rig.watcher();
      await subscribeAll(rig, w);
      rig.emu.createJob(SITE, `refuse-${code}`, [{ recipient: 'r' }]);
      rig.fake.fail('chat.postMessage', { error: code, times: 1000 });
      rig.clock.advance(60_000);
      await w.pollOnce(rig.ws.teamId, SITE);
      const subs = await w.subscriptions.list(rig.ws.teamId);
      expect(subs[0]!.paused?.code).toBe(code);
      expect(subs[0]!.paused?.reason).toBe(pausedReason(code, { do: 'watch-again' }));
      expect(rig.events.filter((e) => e.type === 'subscription-paused')).toHaveLength(1);
      const attempts = rig.fake.calls('chat.postMessage').length;
      rig.emu.createJob(SITE, `refuse-${code}-2`, [{ recipient: 'r2' }]);
      for (let i = 0; i < 3; i++) {
        rig.clock.advance(60_000);
        await w.pollOnce(rig.ws.teamId, SITE);
      }
      expect(rig.fake.calls('chat.postMessage').length).toBe(attempts);
      expect(rig.events.filter((e) => e.type === 'subscription-paused')).toHaveLength(1);
    });
  }

  it('the reasons say what to do in words', () => {
    expect(pausedReason('restricted_action')).toMatch(/does not let the app post.*channel manager/);
    expect(pausedReason('no_permission')).toMatch(/Slack admin to allow the app/);
  });
});
