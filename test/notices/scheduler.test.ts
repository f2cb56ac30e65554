/**
 * The notify scheduler with a slow Service API: the digest never waits for request or alert
 * polls (of its own workspace or another one). The slow calls hang on a gate the test opens only
 * after the digest was posted, so the order is asserted, never a duration.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ApiFactory, ServiceClient, WorkspaceCredentials } from '../../src/api/types.js';
import { digestScheduleId } from '../../src/notices/digest-schedules.js';
import type { Notifier } from '../../src/notices/notifier.js';
import { trackPlanRequest } from '../../src/ops/request-outcomes.js';
import {
  alertSubscription,
  type NotifyHarness,
  SITE,
  SITE2,
  startNotifyHarness,
  WS,
} from './support/harness.js';

let h: NotifyHarness;
afterEach(async () => {
  await h?.close();
});

const WS2 = 'T0NOTIFY2';
const CH = 'C0DIGEST1';
/** The digest is due at 10:00 Europe/Berlin = 09:00 UTC. */
const DUE = Date.UTC(2026, 10, 22, 9, 0, 0);
/** The page size of the alert reads here: how the gate tells an alert read from the digest's. */
const ALERT_PAGE = 50;

/** A Service API whose slow calls wait until `open()`: every call of `slowCreds`, and alert reads. */
function gatedApi(real: ApiFactory, slowCreds: WorkspaceCredentials) {
  let open!: () => void;
  const gate = new Promise<void>((r) => {
    open = r;
  });
  const state = { waiting: 0, finished: 0, open: () => open() };
  const api: ApiFactory = {
    watermarking: (c) => real.watermarking(c),
    close: async () => undefined,
    service(c) {
      const client = real.service(c);
      return new Proxy(client, {
        get(target, prop) {
          const v = Reflect.get(target, prop);
          if (typeof v !== 'function') return v;
          return async (...args: unknown[]) => {
            const slow =
              c === slowCreds.service ||
              (prop === 'listLicenses' && (args[1] as { pageUnit?: number })?.pageUnit === ALERT_PAGE);
            if (!slow) return v.apply(target, args);
            state.waiting++;
            await gate;
            try {
              return await v.apply(target, args);
            } finally {
              state.finished++;
            }
          };
        },
      }) as ServiceClient;
    },
  };
  return { api, state };
}

async function subscribeAlerts(n: Notifier, ws: string, channelId: string) {
  await n.alerts.put(ws, alertSubscription(channelId, h.clock.now(), { workspace: ws }));
}

describe('notify scheduler with a slow Service API', () => {
  it('posts the digest while request and alert polls (its own and another workspace’s) still wait', async () => {
    h = await startNotifyHarness({ start: DUE - 30_000 });
    const slowCreds: WorkspaceCredentials = {
      ...h.creds,
      service: { ...(h.creds.service as NonNullable<WorkspaceCredentials['service']>) },
    };
    const { api, state } = gatedApi(h.api, slowCreds);
    const n = h.notifier({
      api,
      credentials: async (ws) => (ws === WS2 ? slowCreds : h.creds),
      alertRead: { pageUnit: ALERT_PAGE, maxPages: 3 },
    });
    // WS: a digest at 10:00 and alerts on a site whose license reads are slow.
    await n.digests.put(WS, {
      id: digestScheduleId(CH),
      workspace: WS,
      channelId: CH,
      time: '10:00',
      zone: 'Europe/Berlin',
      createdBy: 'U0DIGESTER',
      createdAt: new Date(h.clock.now()).toISOString(),
    });
    await subscribeAlerts(n, WS, 'C0ALERTS1');
    // WS2: everything its Service API is asked hangs (a tracked request and alerts).
    await subscribeAlerts(n, WS2, 'C0ALERTS2');
    await trackPlanRequest({ store: h.store, now: () => h.clock.now() }, WS2, {
      siteId: SITE,
      serviceCode: 'PD001',
      request: { requestId: 'RG-SLOW-1', type: 'SM003' },
      requestedBy: 'U0REQUESTER',
    });

    n.start();
    try {
      // Virtual time moves on while the slow calls wait; the digest must come anyway.
      await vi.waitFor(
        () => {
          h.advance(5_000);
          expect(h.ports.of('digest')).toHaveLength(1);
          expect(state.waiting).toBeGreaterThanOrEqual(3);
        },
        { timeout: 15_000, interval: 10 },
      );
      // The three slow polls are under way and none has finished: the digest did not wait.
      expect(state.finished).toBe(0);
      expect(h.ports.of('digest')[0]?.channel).toBe(CH);
    } finally {
      state.open();
    }
    await n.stop();
    expect(state.finished).toBeGreaterThanOrEqual(3);
    expect(h.clock.pendingTimers()).toBe(0);
  });

  it('the digest reads its sites at once: two slow license lists cost one wait, not two in a row', async () => {
    h = await startNotifyHarness({ start: DUE });
    let open!: () => void;
    const gate = new Promise<void>((r) => {
      open = r;
    });
    const inFlight = new Set<string>();
    const svc = h.api.service(h.creds.service as NonNullable<WorkspaceCredentials['service']>);
    const slow = new Proxy(svc, {
      get(target, prop) {
        const v = Reflect.get(target, prop);
        if (typeof v !== 'function') return v;
        if (prop !== 'listLicenses') return v.bind(target);
        return async (siteId: string, ...rest: unknown[]) => {
          inFlight.add(siteId);
          await gate;
          return v.apply(target, [siteId, ...rest]);
        };
      },
    }) as ServiceClient;
    const { composeDigest } = await import('../../src/notices/digest-compose.js');
    const digest = composeDigest({
      channelId: CH,
      zone: 'UTC',
      siteIds: [SITE, SITE2],
      svc: slow,
      now: h.clock.now(),
    });
    try {
      // Both sites' license reads wait at the same time.
      await vi.waitFor(() => expect([...inFlight].sort()).toEqual([SITE, SITE2].sort()), {
        timeout: 10_000,
        interval: 10,
      });
    } finally {
      open();
    }
    const d = await digest;
    expect(d.licenses.ok).toBe(true);
  });
});
