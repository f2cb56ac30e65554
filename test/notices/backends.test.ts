/**
 * The notify features on persistent backends: two replicas on one Redis (separate connections,
 * one key root), and a restart on the same SQLite file.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { digestScheduleId } from '../../src/notices/digest-schedules.js';
import { requestChangeTracked } from '../../src/ops/request-outcomes.js';
import { createStore } from '../../src/store/index.js';
import type { Store } from '../../src/store/types.js';
import { redisForSuite } from '../support/redis.js';
import { ENCRYPTION_KEY } from '../watch/support/harness.js';
import { alertSubscription, SITE, startNotifyHarness, WS } from './support/harness.js';

const START = Date.UTC(2026, 10, 22, 8, 55, 0);
const DUE = Date.UTC(2026, 10, 22, 9, 0, 0);

describe('two notify replicas on one Redis', () => {
  const redis = redisForSuite(ENCRYPTION_KEY);

  it('post one digest and one alert between them', async () => {
    const ns = redis.namespace();
    const storeA = await redis.open(ns);
    const storeB = await redis.open(ns);
    const h = await startNotifyHarness({ store: storeA, start: START });
    try {
      const a = h.notifier({ holderId: 'replica-a' });
      const b = h.notifier({ holderId: 'replica-b', store: storeB });
      await a.digests.put(WS, {
        id: digestScheduleId('C0DIGEST'),
        workspace: WS,
        channelId: 'C0DIGEST',
        time: '09:00',
        zone: 'UTC',
        createdBy: 'U1',
        createdAt: new Date(START).toISOString(),
      });
      await a.alerts.put(WS, alertSubscription('C0ALERT', START, { createdBy: 'U1' }));
      h.emu.addLicenses(
        SITE,
        Array.from({ length: 30 }, (_, i) => ({
          cid: `c${i}`,
          status: 'fail' as const,
          regTimeMs: START - i * 1000,
        })),
      );
      while (h.clock.now() < DUE + 120_000) {
        h.advance(15_000);
        await Promise.all([a.tick(), b.tick()]);
      }
      expect(h.ports.of('digest')).toHaveLength(1);
      expect(h.ports.of('alert')).toHaveLength(1);
      expect(h.ports.duplicateKeys()).toEqual([]);
    } finally {
      await h.close();
      await storeA.close();
      await storeB.close();
    }
  }, 30_000);
});

describe('sqlite backend', () => {
  it('a tracked request survives a restart on the same file and is reported once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'notify-'));
    const url = `sqlite://${join(dir, 'n.sqlite')}`;
    const first = await createStore({ url, encryptionKey: ENCRYPTION_KEY, namespace: 'notify' });
    const h = await startNotifyHarness({ store: first });
    let second: Store | undefined;
    try {
      const client = h.api.service(h.creds.service as NonNullable<typeof h.creds.service>);
      const view = await requestChangeTracked({ store: first, now: () => h.clock.now() }, WS, client, {
        siteId: SITE,
        service: 'drm',
        action: 'resume',
        requestedBy: 'U0REQ',
      });
      await first.close();
      second = await createStore({ url, encryptionKey: ENCRYPTION_KEY, namespace: 'notify' });
      h.emu.approveRequest(SITE, view.requestId);
      const n = h.notifier({ store: second });
      for (let i = 0; i < 8; i++) {
        h.advance(15_000);
        await n.tick();
      }
      expect(h.ports.of('dm')).toHaveLength(1);
      expect(h.ports.of('dm')[0]?.body).toMatchObject({
        requestId: view.requestId,
        outcome: 'approved',
        requestedBy: 'U0REQ',
      });
      await n.stop();
    } finally {
      await h.close();
      await second?.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
