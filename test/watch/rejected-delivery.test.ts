/**
 * A notification Slack refuses for its content (invalid_blocks, msg_too_long) is sent once more as
 * plain text, so the channel still hears of the job (before, it was dropped with a log line).
 * The watcher with the real Slack poster, the emulator and the fake Slack over loopback.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { completeness, SITE, startWatchRig, subscribeAll, type WatchRig } from '../faults/support/watch.js';

let rig: WatchRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

describe('a notification Slack refuses for its content', () => {
  for (const code of ['invalid_blocks', 'msg_too_long']) {
    it(`${code}: posted again as plain text (no blocks), once; nothing lost or doubled`, async () => {
      rig = await startWatchRig();
      const w = rig.watcher();
      await subscribeAll(rig, w);
      const job = rig.emu.createJob(SITE, 'plain-1', [{ recipient: 'p1' }]);
      rig.fake.fail('chat.postMessage', { error: code, times: 1 });
      rig.clock.advance(60_000);
      await w.pollOnce(rig.ws.teamId, SITE);
      rig.emu.finishJob(SITE, job);
      for (let i = 0; i < 5 && (await w.outbox.size(rig.ws.teamId)) > 0; i++) {
        rig.clock.advance(60_000);
        await w.pollOnce(rig.ws.teamId, SITE);
      }
      rig.clock.advance(60_000);
      await w.pollOnce(rig.ws.teamId, SITE);
      const c = completeness(rig.keys(), rig.ws.teamId, rig.ws.channel, [job]);
      expect(c.missing).toEqual([]);
      expect(c.duplicated).toBe(0);
      // The refused post, then the same notification without blocks.
      const posts = rig.fake.calls('chat.postMessage');
      const refused = posts.findIndex((p) => !p.ok);
      expect(refused).toBeGreaterThanOrEqual(0);
      const retry = posts[refused + 1]!;
      expect(retry.ok).toBe(true);
      expect(retry.args.blocks).toBeUndefined();
      expect(String(retry.args.text)).toBe(String(posts[refused]!.args.text));
      // Nothing paused: the channel is fine.
      expect((await w.subscriptions.list(rig.ws.teamId)).every((s) => !s.paused)).toBe(true);
    });
  }

  it('refused again as plain text: dropped (logged), the channel is not blocked', async () => {
    rig = await startWatchRig();
    const w = rig.watcher();
    await subscribeAll(rig, w);
    const jobs = [1, 2].map((i) => rig!.emu.createJob(SITE, `plain-drop-${i}`, [{ recipient: `q${i}` }]));
    rig.fake.fail('chat.postMessage', { error: 'invalid_blocks', times: 2 });
    rig.clock.advance(60_000);
    await w.pollOnce(rig.ws.teamId, SITE);
    const posts = rig.fake.calls('chat.postMessage');
    // The first card: refused with its blocks, then as plain text; given up.
    expect(posts.slice(0, 2).map((p) => [p.ok, p.args.blocks === undefined])).toEqual([
      [false, false],
      [false, true],
    ]);
    // The other job's card went out after it: the channel is not blocked.
    const cards = (j: number) =>
      rig!.keys().filter((k) => k.startsWith(`${rig!.ws.teamId}|${rig!.ws.channel}|${j}|card:`)).length;
    expect(jobs.map(cards).sort()).toEqual([0, 1]);
  });
});
