/**
 * Crash recovery of notifications when Slack limits history reads to one a minute (commercially
 * distributed apps outside its Marketplace, docs/deployment.md). Several job cards are posted but
 * the process dies before recording them (each is left "sending", in doubt); the restarted watcher
 * must look each up (conversations.history, here allowed once per virtual minute, `ratelimited`
 * with Retry-After otherwise) before posting again. What it means, measured on the virtual clock:
 * nothing lost, nothing posted twice (a rate-limited lookup used to reset the entries to
 * "not posted", and they were posted again), and N in-doubt notifications take about 2N minutes.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { type ChannelPoster, DeliveryError } from '../../src/watch/index.js';
import { Outbox } from '../../src/watch/outbox.js';
import { type Harness, SITE, startHarness, WS } from './support/harness.js';

const silent = createLogger({ level: 'silent' });
let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('crash recovery with history reads limited to one a minute', () => {
  it('N cards in doubt after a crash: none lost, none twice, settled in minutes linear in N', async () => {
    h = await startHarness();
    const hh = h;
    const CHANNELS = ['C1', 'C2', 'C3', 'C4', 'C5'];
    const w1 = hh.watcher({ logger: silent });
    for (const channelId of CHANNELS)
      await w1.subscriptions.create(WS, {
        channelId,
        siteId: SITE,
        filters: { statuses: [], mode: 'all' },
        createdBy: 'U1',
      });
    await w1.pollOnce(WS, SITE); // baseline
    const job = hh.emu.createJob(SITE, 'in-doubt', [{ recipient: 'r' }]);
    // Every card is posted, then the process "dies" before recording it.
    hh.poster.faults = [(call) => (call === 'post' ? 'after' : undefined)];
    hh.tick();
    await w1.pollOnce(WS, SITE).catch(() => undefined);
    await w1.stop();
    hh.poster.faults = [];
    const posted = hh.poster.messages.filter((m) => m.key.includes(`|${job}|card:`));
    expect(posted.length).toBe(CHANNELS.length);

    // The restarted process; Slack answers one history read a minute.
    let lastRead = Number.NEGATIVE_INFINITY;
    let reads = 0;
    let refused = 0;
    const limited: ChannelPoster = {
      post: (ch, m, o) => hh.poster.post(ch, m, o),
      update: (ch, ts, m) => hh.poster.update(ch, ts, m),
      findByMetadata: async (...a) => {
        const now = hh.clock.now();
        if (now - lastRead < 60_000) {
          refused++;
          throw new DeliveryError('ratelimited', { retryAfterMs: lastRead + 60_000 - now, httpStatus: 429 });
        }
        lastRead = now;
        reads++;
        return hh.poster.findByMetadata(...a);
      },
    };
    const w2 = hh.watcher({ logger: silent, poster: () => limited, holderId: 'holder-B' });
    const outbox = new Outbox(hh.store);
    const start = hh.clock.now();
    let minutes = 0;
    for (; minutes < 30 && (await outbox.size(WS)) > 0; minutes++) {
      hh.tick(60_000);
      await w2.pollOnce(WS, SITE);
    }
    const took = (hh.clock.now() - start) / 60_000;
    // Nothing lost, nothing twice: each channel has its one card, found again, not re-posted.
    expect(await outbox.size(WS)).toBe(0);
    expect(hh.poster.duplicateKeys()).toEqual([]);
    for (const ch of CHANNELS) expect(hh.poster.cardOf(ch, job), ch).toBeDefined();
    // One read per card in doubt, the others refused and waited for.
    expect(reads).toBe(CHANNELS.length);
    expect(refused).toBeGreaterThan(0);
    // Linear in the cards in doubt: each waits for the next free minute of history reads, and the
    // watcher's own retry pacing on top (measured here: 11 virtual minutes for 5, see
    // docs/deployment.md).
    expect(took).toBeGreaterThanOrEqual(CHANNELS.length - 1);
    expect(took).toBeLessThanOrEqual(3 * CHANNELS.length);
  });
});
