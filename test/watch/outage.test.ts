/**
 * An outage is not silence: a site whose service keeps failing longer than the notice time tells
 * each watching channel once that its notifications are delayed and why, and once when they
 * resume with what was caught up; a short failure says nothing; a refused login does not count
 * (it pauses the workspace). `siteOutages` shows the outage while it lasts. Emulator on loopback.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { siteOutages, type Watcher } from '../../src/watch/index.js';
import { DeliveryError } from '../../src/watch/types.js';
import { type CrashStore, crashStore } from './support/crash-store.js';
import { type Harness, SITE, startHarness, WS } from './support/harness.js';

let h: Harness;
let cs: CrashStore | undefined;
afterEach(async () => {
  await h?.close();
  await cs?.close();
  cs = undefined;
});

const silent = createLogger({ level: 'silent' });

async function sub(w: Watcher, channelId: string) {
  await w.subscriptions.create(WS, {
    channelId,
    siteId: SITE,
    filters: { statuses: [], mode: 'all' },
    createdBy: 'U123',
  });
}

const outageTexts = (ch: string) =>
  h.poster.messages
    .filter((m) => m.channel === ch && /Job notifications for site/.test(m.text))
    .map((m) => m.text);

describe('outage notices', () => {
  it('a channel that refuses the app for good is given up once, not tried on every failing poll', async () => {
    h = await startHarness();
    const w = h.watcher({ outageNoticeMs: 10 * 60_000 });
    await sub(w, 'C1');
    await sub(w, 'CGONE');
    await w.pollOnce(WS, SITE);
    const tries: string[] = [];
    h.poster.faults.push((call, channel) => {
      if (channel !== 'CGONE') return undefined;
      tries.push(call);
      return new DeliveryError('channel_not_found');
    });
    h.emu.faults.add({ match: '/wm/api/job', status: 503 });
    for (let i = 0; i < 5; i++) {
      h.tick(5 * 60_000);
      await w.pollOnce(WS, SITE);
    }
    expect(outageTexts('C1')).toHaveLength(1);
    expect(tries).toEqual(['post']);
  });

  it('a site failing longer than the notice time: delayed once per channel, then resumed once with the catch-up', async () => {
    h = await startHarness();
    const w = h.watcher({ outageNoticeMs: 10 * 60_000 });
    await sub(w, 'C1');
    await sub(w, 'C2');
    await w.pollOnce(WS, SITE);
    h.emu.faults.add({ match: '/wm/api/job', status: 503 });
    // Five minutes of failures: not yet an outage worth telling.
    h.tick(60_000);
    await w.pollOnce(WS, SITE);
    h.tick(5 * 60_000);
    await w.pollOnce(WS, SITE);
    expect(outageTexts('C1')).toEqual([]);
    expect((await siteOutages(h.store, WS)).map((o) => o.siteId)).toEqual([SITE]);
    // Past ten minutes: each channel is told once, however many polls fail after.
    for (let i = 0; i < 3; i++) {
      h.tick(5 * 60_000);
      await w.pollOnce(WS, SITE);
    }
    for (const ch of ['C1', 'C2']) {
      const t = outageTexts(ch);
      expect(t).toHaveLength(1);
      expect(t[0]).toContain('delayed');
      expect(t[0]).toContain('server error (HTTP 503)');
    }
    // A job finishes during the outage; the service comes back.
    const job = h.emu.createJob(SITE, 'during-outage', [{ recipient: 'alice' }]);
    h.emu.finishJob(SITE, job);
    h.emu.faults.clear();
    h.tick(10 * 60_000);
    await w.pollOnce(WS, SITE);
    await w.pollOnce(WS, SITE);
    for (const ch of ['C1', 'C2']) {
      const t = outageTexts(ch);
      expect(t).toHaveLength(2);
      expect(t[1]).toContain('resumed');
      expect(t[1]).toContain('Caught up: 1 job change, 1 finished');
      expect(h.poster.visible(ch).some((m) => m.text.includes(`Job \`${job}\``))).toBe(true);
    }
    expect(await siteOutages(h.store, WS)).toEqual([]);
    expect(h.poster.duplicateKeys()).toEqual([]);
  });

  it('a failure shorter than the notice time, or a refused login, tells no channel', async () => {
    h = await startHarness();
    const w = h.watcher({ outageNoticeMs: 10 * 60_000 });
    await sub(w, 'C1');
    await w.pollOnce(WS, SITE);
    h.emu.faults.add({ match: '/wm/api/job', status: 500 });
    h.tick(60_000);
    await w.pollOnce(WS, SITE);
    h.emu.faults.clear();
    h.tick(60_000);
    await w.pollOnce(WS, SITE);
    expect(await siteOutages(h.store, WS)).toEqual([]);
    h.emu.faults.add({ match: '/wm/api', status: 401 });
    for (let i = 0; i < 4; i++) {
      h.tick(10 * 60_000);
      await w.pollOnce(WS, SITE);
    }
    expect(outageTexts('C1')).toEqual([]);
  });

  /**
   * kill -9 right after a notice is posted, before the store records it (the next write to the
   * outage record), then a restart on the same data: `then` is the service's state afterwards.
   */
  async function crashAfterPost(kind: 'delayed' | 'resumed', then: 'failing' | 'back') {
    cs = await crashStore();
    h = await startHarness({ store: cs.store });
    const w1 = h.watcher({ outageNoticeMs: 10 * 60_000, logger: silent });
    await sub(w1, 'C1');
    await w1.pollOnce(WS, SITE);
    h.emu.faults.add({ match: '/wm/api/job', status: 503 });
    h.tick(60_000);
    await w1.pollOnce(WS, SITE);
    h.tick(11 * 60_000);
    if (kind === 'resumed') {
      await w1.pollOnce(WS, SITE);
      expect(outageTexts('C1')).toHaveLength(1);
      h.emu.faults.clear();
      h.tick(60_000);
    }
    const before = outageTexts('C1').length;
    const c = cs;
    c.crashBefore((_op, key) => key.includes('watch-outage') && outageTexts('C1').length > before);
    try {
      await w1.pollOnce(WS, SITE);
    } catch {
      /* the process died */
    }
    expect(c.dead()).toBe(true);
    expect(outageTexts('C1')).toHaveLength(before + 1);
    await w1.stop();
    c.revive();
    if (then === 'back') h.emu.faults.clear();
    else h.emu.faults.add({ match: '/wm/api/job', status: 503 });
    const w2 = h.watcher({ outageNoticeMs: 10 * 60_000, logger: silent });
    for (let i = 0; i < 3; i++) {
      h.tick(5 * 60_000);
      await w2.pollOnce(WS, SITE);
    }
  }

  it('a crash between posting "delayed" and recording it: not posted again while the outage lasts', async () => {
    await crashAfterPost('delayed', 'failing');
    const t = outageTexts('C1');
    expect(t).toHaveLength(1);
    expect(t[0]).toContain('delayed');
    expect(h.poster.duplicateKeys()).toEqual([]);
  });

  it('a crash between posting "delayed" and recording it, then the service back: "resumed" is still told, once', async () => {
    await crashAfterPost('delayed', 'back');
    const t = outageTexts('C1');
    expect(t).toHaveLength(2);
    expect(t[0]).toContain('delayed');
    expect(t[1]).toContain('resumed');
    expect(await siteOutages(h.store, WS)).toEqual([]);
    expect(h.poster.duplicateKeys()).toEqual([]);
  });

  it('a crash between posting "resumed" and recording it: not posted again', async () => {
    await crashAfterPost('resumed', 'back');
    const t = outageTexts('C1');
    expect(t).toHaveLength(2);
    expect(t[1]).toContain('resumed');
    expect(h.poster.duplicateKeys()).toEqual([]);
  });
});
