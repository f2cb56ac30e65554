/**
 * kill -9 at every store write of the alert and digest paths (detection, outbox, delivery,
 * tombstone): after a restart on the same data, exactly one alert / one digest is posted.
 */
import { describe, expect, it } from 'vitest';
import { digestScheduleId } from '../../src/notices/digest-schedules.js';
import type { Notifier } from '../../src/notices/notifier.js';
import { crashStore } from '../watch/support/crash-store.js';
import { alertSubscription, type NotifyHarness, SITE, startNotifyHarness, WS } from './support/harness.js';

const START = Date.UTC(2026, 10, 22, 8, 59, 0);

type Setup = (h: NotifyHarness, n: Notifier) => Promise<void>;

const alertSetup: Setup = async (h, n) => {
  await n.alerts.put(WS, alertSubscription('C0CRASH', START, { createdBy: 'U1' }));
  h.emu.addLicenses(
    SITE,
    Array.from({ length: 30 }, (_, i) => ({
      cid: `c${i}`,
      status: 'fail' as const,
      regTimeMs: START - i * 1000,
    })),
  );
};

const digestSetup: Setup = async (_h, n) => {
  await n.digests.put(WS, {
    id: digestScheduleId('C0CRASH'),
    workspace: WS,
    channelId: 'C0CRASH',
    time: '09:00',
    zone: 'UTC',
    createdBy: 'U1',
    createdAt: new Date(START).toISOString(),
  });
};

async function run(h: NotifyHarness, n: Notifier, ms: number) {
  for (let t = 0; t < ms; t += 15_000) {
    h.advance(15_000);
    await n.tick();
  }
}

async function sweep(kind: 'alert' | 'digest', setup: Setup) {
  // Dry run: count the raw writes of the path.
  const probe = await crashStore();
  let h = await startNotifyHarness({ store: probe.store, start: START });
  const dry = h.notifier({ holderId: 'probe' });
  await setup(h, dry);
  probe.resetWrites();
  await run(h, dry, 120_000);
  const writes = probe.writes.length;
  expect(h.ports.of(kind)).toHaveLength(1);
  await h.close();
  await probe.close();
  expect(writes).toBeGreaterThan(5);

  for (let k = 0; k < writes; k++) {
    const cs = await crashStore();
    h = await startNotifyHarness({ store: cs.store, start: START });
    try {
      const a = h.notifier({ holderId: `a-${k}` });
      await setup(h, a);
      cs.resetWrites();
      cs.crashBefore((_op, _key, i) => i === k);
      await run(h, a, 120_000).catch(() => undefined);
      cs.revive();
      await a.stop(); // its leases end (a dead process's would time out)
      const b = h.notifier({ holderId: `b-${k}` });
      await run(h, b, 180_000);
      expect(h.ports.of(kind), `${kind}: crash before write ${k}`).toHaveLength(1);
      expect(h.ports.duplicateKeys()).toEqual([]);
    } finally {
      await h.close();
      await cs.close();
    }
  }
}

describe('crash at any store write', () => {
  it('one alert', async () => {
    await sweep('alert', alertSetup);
  }, 60_000);

  it('one digest', async () => {
    await sweep('digest', digestSetup);
  }, 60_000);
});
