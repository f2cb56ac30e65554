import { afterEach, describe, expect, it } from 'vitest';
import { loadSiteRequestStatuses, setSiteRequestStatuses } from '../../src/api/site-request-statuses.js';
import type { RequestOutcomeNotice } from '../../src/notices/types.js';
import {
  attachRequestCard,
  cancelPlanRequestTracked,
  listTrackedRequests,
  requestAdditionalSiteTracked,
  requestChangeTracked,
  trackPlanRequest,
} from '../../src/ops/request-outcomes.js';
import { StoreUnavailableError } from '../../src/store/errors.js';
import type { Store } from '../../src/store/types.js';
import { DeliveryError } from '../../src/watch/types.js';
import { captureLogs } from '../harness/index.js';
import { crashStore } from '../watch/support/crash-store.js';
import { type NotifyHarness, SITE, SVC_ACCOUNT, startNotifyHarness, WS } from './support/harness.js';

let h: NotifyHarness;
afterEach(async () => {
  setSiteRequestStatuses(loadSiteRequestStatuses('{}'));
  await h?.close();
});

const USER = 'U0REQUESTER';
const OTHER = 'U0OTHERUSER';
const CARD = { channel: 'C0PLANCARD', ts: '1763800000.000100' };

function deps() {
  return { store: h.store, now: () => h.clock.now() };
}

async function trialRequest(requestedBy = USER) {
  const client = h.api.service(h.creds.service as NonNullable<typeof h.creds.service>);
  const view = await requestChangeTracked(deps(), WS, client, {
    siteId: SITE,
    service: 'fwm',
    action: 'trial',
    message: 'two more weeks',
    requestedBy,
  });
  expect(await attachRequestCard(deps(), WS, view.trackingId as string, CARD)).toBe(true);
  return view;
}

/** Advance by `ms` in tick-sized steps, running the notifier's tick each step. */
/** The same store, whose document calls fail as in an outage while `down()` says so. */
function storeDownWhen(store: Store, down: () => boolean): Store {
  const call = (target: object, p: string | symbol) => {
    const v: unknown = Reflect.get(target, p, target);
    return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
  };
  return new Proxy(store, {
    get(target, p) {
      if (p !== 'docs') return call(target, p);
      return (...args: Parameters<Store['docs']>) => {
        const repo = target.docs(...args);
        return new Proxy(repo, {
          get(r, q) {
            const f = call(r, q);
            if (typeof f !== 'function') return f;
            return (...a: unknown[]) =>
              down() ? Promise.reject(new StoreUnavailableError(`docs.${String(q)}`, 0)) : f(...a);
          },
        });
      };
    },
  });
}

async function run(n: ReturnType<NotifyHarness['notifier']>, ms: number, step = 15_000) {
  for (let t = 0; t < ms; t += step) {
    h.advance(step);
    await n.tick();
  }
}

describe('plan-request outcomes', () => {
  it('an approval upstream reaches the requester once, within two polling intervals, and the card is updated', async () => {
    h = await startNotifyHarness();
    const n = h.notifier();
    const view = await trialRequest();
    await run(n, 120_000);
    expect(h.ports.of('dm')).toEqual([]);

    h.emu.approveRequest(SITE, view.requestId);
    const approvedAt = h.clock.now();
    // Tick until the DM arrives, then check how long it took.
    while (h.ports.of('dm').length === 0 && h.clock.now() - approvedAt <= 120_000) await run(n, 15_000);
    const dms = h.ports.of('dm');
    expect(dms).toHaveLength(1);
    expect(Number(dms[0]?.ts) * 1000 - approvedAt).toBeLessThanOrEqual(120_000);
    const notice = dms[0]?.body as RequestOutcomeNotice;
    expect(notice).toMatchObject({
      kind: 'plan',
      requestId: view.requestId,
      siteId: SITE,
      serviceCode: 'PD002',
      requestLabel: 'Trial extension',
      outcome: 'approved',
      status: 'ST003',
      requestedBy: USER,
    });
    expect(dms[0]?.userId).toBe(USER);
    expect(h.ports.cardUpdates).toHaveLength(1);
    expect(h.ports.cardUpdates[0]?.card).toEqual(CARD);
    expect(h.ports.cardUpdates[0]?.notice.outcome).toBe('approved');

    // Later polls say nothing more; polling stops (no pending request known).
    h.emu.resetRequestCounts();
    await run(n, 600_000);
    expect(h.ports.of('dm')).toHaveLength(1);
    expect(h.calls('/plan/request/status')).toBe(0);
  });

  it('a request cancelled on the console by someone else is reported as cancelled', async () => {
    h = await startNotifyHarness();
    const n = h.notifier();
    const view = await trialRequest();
    h.emu.cancelRequestElsewhere(SITE, view.requestId);
    await run(n, 120_000);
    const dms = h.ports.of('dm');
    expect(dms).toHaveLength(1);
    expect(dms[0]?.body).toMatchObject({ outcome: 'cancelled', status: 'ST002', statusLabel: 'Cancelled' });
    expect((dms[0]?.body as RequestOutcomeNotice | undefined)?.cancelledBy).toBeUndefined();
  });

  it('without a tracked request the plan endpoints are never polled', async () => {
    h = await startNotifyHarness();
    const n = h.notifier();
    await run(n, 600_000);
    expect(h.calls('/plan/request/status')).toBe(0);
    expect(h.calls('/account/siteId/approve')).toBe(0);
  });

  it('cancelled through the bot by the requester: card updated, no DM; by another user: the requester is told who', async () => {
    h = await startNotifyHarness();
    const n = h.notifier();
    const client = h.api.service(h.creds.service as NonNullable<typeof h.creds.service>);
    const own = await trialRequest();
    await cancelPlanRequestTracked(deps(), WS, client, { siteId: SITE, service: 'fwm', cancelledBy: USER });
    await run(n, 120_000);
    expect(h.ports.of('dm')).toEqual([]);
    expect(h.ports.cardUpdates.map((c) => c.notice.requestId)).toEqual([own.requestId]);

    const second = await trialRequest();
    await cancelPlanRequestTracked(deps(), WS, client, {
      siteId: SITE,
      service: 'fwm',
      requestId: second.requestId,
      cancelledBy: OTHER,
      kick: (ws) => n.kick(ws),
    });
    await run(n, 30_000);
    const dms = h.ports.of('dm');
    expect(dms).toHaveLength(1);
    expect(dms[0]?.body).toMatchObject({
      requestId: second.requestId,
      outcome: 'cancelled',
      cancelledBy: OTHER,
    });
    expect(h.ports.duplicateKeys()).toEqual([]);
  });

  it('a cancel the service made stands when the store fails right after it; the outcome poll still says who cancelled', async () => {
    h = await startNotifyHarness();
    const real = h.api.service(h.creds.service as NonNullable<typeof h.creds.service>);
    const theirs = await trialRequest(OTHER);
    let down = false;
    const opClient = Object.create(real) as typeof real;
    opClient.cancelStatusRequest = async (...a: Parameters<typeof real.cancelStatusRequest>) => {
      const r = await real.cancelStatusRequest(...a);
      down = true; // the store goes down between the cancel and its bookkeeping
      return r;
    };
    const flaky = { store: storeDownWhen(h.store, () => down), now: () => h.clock.now() };
    const view = await cancelPlanRequestTracked(flaky, WS, opClient, {
      siteId: SITE,
      service: 'fwm',
      cancelledBy: USER,
    });
    expect(view.requestId).toBe(theirs.requestId);
    expect(view.untracked).toBeInstanceOf(StoreUnavailableError);
    // The store back: the outcome poll tells the requester once, naming who cancelled.
    await run(h.notifier(), 120_000);
    const dms = h.ports.of('dm');
    expect(dms).toHaveLength(1);
    expect(dms[0]?.body).toMatchObject({
      requestId: theirs.requestId,
      outcome: 'cancelled',
      cancelledBy: USER,
    });
    expect(h.ports.duplicateKeys()).toEqual([]);
  });

  it("the requester's own cancel racing a poll is never reported as cancelled outside the bot", async () => {
    h = await startNotifyHarness();
    const real = h.api.service(h.creds.service as NonNullable<typeof h.creds.service>);
    const own = await trialRequest();
    // The interleaving: the poll lists the tracked requests; then, before its status read, the
    // requester cancels through the bot (marked, cancel sent upstream) and the cancel's own
    // bookkeeping is held until the poll is done.
    let sent!: () => void;
    const cancelSent = new Promise<void>((r) => {
      sent = r;
    });
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    const opClient = Object.create(real) as typeof real;
    opClient.cancelStatusRequest = async (...a: Parameters<typeof real.cancelStatusRequest>) => {
      const r = await real.cancelStatusRequest(...a);
      sent();
      await held;
      return r;
    };
    let cancel: Promise<unknown> | undefined;
    const pollClient = Object.create(real) as typeof real;
    pollClient.getLatestStatusRequest = async (...a: Parameters<typeof real.getLatestStatusRequest>) => {
      cancel ??= cancelPlanRequestTracked(deps(), WS, opClient, {
        siteId: SITE,
        service: 'fwm',
        cancelledBy: USER,
      });
      await cancelSent;
      return real.getLatestStatusRequest(...a);
    };
    const n = h.notifier({ api: { ...h.api, service: () => pollClient } });
    h.advance(15_000);
    await n.tick();
    release();
    await cancel;
    await run(n, 120_000);
    expect(h.ports.of('dm')).toEqual([]);
    expect(h.ports.cardUpdates).toHaveLength(1);
    expect(h.ports.cardUpdates[0]?.notice).toMatchObject({
      requestId: own.requestId,
      outcome: 'cancelled',
      cancelledBy: USER,
    });
  });

  it('a site the service refuses does not hold back the outcome of another; months-old requests stop being polled', async () => {
    h = await startNotifyHarness();
    const n = h.notifier();
    await trackPlanRequest(deps(), WS, {
      siteId: 'ZZ99',
      serviceCode: 'drm',
      request: { requestId: 'RG1', type: 'SM001' },
      requestedBy: USER,
    });
    const view = await trialRequest();
    h.emu.approveRequest(SITE, view.requestId);
    await run(n, 120_000);
    expect(h.ports.of('dm').map((d) => (d.body as RequestOutcomeNotice).requestId)).toEqual([view.requestId]);
    expect((await listTrackedRequests(deps(), WS)).map((t) => t.siteId)).toEqual(['ZZ99']);
    h.advance(91 * 24 * 3600_000);
    await run(n, 60_000);
    expect(await listTrackedRequests(deps(), WS)).toEqual([]);
    h.emu.resetRequestCounts();
    await run(n, 300_000);
    expect(h.calls('/plan/request/status')).toBe(0);
  });

  it('a requester Slack cannot DM any more still gets the card updated; nothing is retried forever', async () => {
    h = await startNotifyHarness();
    const n = h.notifier();
    const view = await trialRequest();
    h.ports.faults = [(call) => (call === 'deliverDm' ? new DeliveryError('user_not_found') : undefined)];
    h.emu.approveRequest(SITE, view.requestId);
    await run(n, 120_000);
    expect(h.ports.cardUpdates.map((c) => c.notice.outcome)).toEqual(['approved']);
    expect(await n.outbox.size(WS)).toBe(0);
    await run(n, 300_000);
    expect(h.ports.calls.filter((c) => c === 'deliverDm')).toHaveLength(1);
  });

  it('refused credentials fail the poll with an event and back off; the outcome arrives once they work', async () => {
    h = await startNotifyHarness();
    const n = h.notifier({ maxBackoffMs: 4 * 60_000 });
    const view = await trialRequest();
    h.emu.approveRequest(SITE, view.requestId);
    h.emu.faults.add({ match: '/plan/request/status', status: 401 });
    await run(n, 600_000);
    const failed = h.events.filter((e) => e.type === 'notify-poll-failed');
    expect(failed.length).toBeGreaterThan(0);
    expect(failed.length).toBeLessThan(10);
    expect(failed[0]).toMatchObject({ feature: 'requests', errorKind: 'auth' });
    expect(h.ports.of('dm')).toEqual([]);
    h.emu.faults.clear();
    await run(n, 300_000);
    expect(h.ports.of('dm')).toHaveLength(1);
  });

  it('an additional-site request approved by the provider is reported with the assigned site id', async () => {
    h = await startNotifyHarness();
    const n = h.notifier();
    const client = h.api.service(h.creds.service as NonNullable<typeof h.creds.service>);
    const r = await requestAdditionalSiteTracked(deps(), WS, client, {
      name: 'Kids Channel',
      requestedBy: USER,
    });
    await run(n, 60_000);
    expect(h.ports.of('dm')).toEqual([]);
    h.emu.decideSiteRequest(SVC_ACCOUNT, r.seq, 'approved', 'KIDS');
    await run(n, 120_000);
    const dms = h.ports.of('dm');
    expect(dms).toHaveLength(1);
    expect(dms[0]?.body).toMatchObject({
      kind: 'site',
      requestId: String(r.seq),
      siteId: 'KIDS',
      siteName: 'Kids Channel',
      outcome: 'approved',
    });
  });

  it('a service with its own status words: a pending word is never told as a change; the decision is told once the words are set', async () => {
    h = await startNotifyHarness();
    h.emu.setBehaviours({ siteRequestStatusWords: { requested: 'WAITING', approved: 'GRANTED' } });
    setSiteRequestStatuses(loadSiteRequestStatuses('{"WAITING":"pending","GRANTED":"approved"}'));
    const n = h.notifier();
    const client = h.api.service(h.creds.service as NonNullable<typeof h.creds.service>);
    const r = await requestAdditionalSiteTracked(deps(), WS, client, {
      name: 'Kids Channel',
      requestedBy: USER,
    });
    await run(n, 3 * 3600_000, 60_000);
    expect(h.ports.of('dm')).toEqual([]);
    h.emu.decideSiteRequest(SVC_ACCOUNT, r.seq, 'approved', 'KIDS');
    await run(n, 120_000);
    expect(h.ports.of('dm').map((d) => d.body)).toMatchObject([
      { outcome: 'approved', status: 'GRANTED', siteId: 'KIDS' },
    ]);
  });

  it('a status word nobody set keeps the request followed and is told as it is only after it has stood', async () => {
    h = await startNotifyHarness();
    h.emu.setBehaviours({ siteRequestStatusWords: { requested: 'ON_HOLD', approved: 'GRANTED' } });
    const { logger, capture } = captureLogs('info');
    const n = h.notifier({ siteRequestUnknownStatusMs: 30 * 60_000, logger });
    const client = h.api.service(h.creds.service as NonNullable<typeof h.creds.service>);
    const r = await requestAdditionalSiteTracked(deps(), WS, client, {
      name: 'Kids Channel',
      requestedBy: USER,
    });
    await run(n, 20 * 60_000);
    expect(h.ports.of('dm')).toEqual([]);
    // The word changes before it settled (the real decision): its own time starts then.
    h.emu.decideSiteRequest(SVC_ACCOUNT, r.seq, 'approved', 'KIDS');
    await run(n, 20 * 60_000);
    expect(h.ports.of('dm')).toEqual([]);
    expect((await listTrackedRequests(deps(), WS))[0]?.unknownStatus?.word).toBe('GRANTED');
    await run(n, 15 * 60_000);
    expect(h.ports.of('dm').map((d) => d.body)).toMatchObject([{ outcome: 'changed', status: 'GRANTED' }]);
    expect(await listTrackedRequests(deps(), WS)).toEqual([]);
    // Logged once per word over the dozens of polls, not once per poll.
    const logged = capture.entries().filter((e) => String(e.msg).includes('not known as pending or decided'));
    expect(logged.map((e) => e.status)).toEqual(['ON_HOLD', 'GRANTED']);
  });

  it('a pending plan request whose status the spec does not list (ST004) is not told as cancelled', async () => {
    h = await startNotifyHarness();
    const n = h.notifier({ siteRequestUnknownStatusMs: 24 * 3600_000 });
    await trialRequest();
    h.emu.setBehaviours({ unknownCodes: true });
    await run(n, 3 * 3600_000, 60_000);
    expect(h.ports.of('dm')).toEqual([]);
    expect(await listTrackedRequests(deps(), WS)).toHaveLength(1);
  });

  it('a service that caps the request list at 3 a page: the outcome of a request on a later page is still found', async () => {
    h = await startNotifyHarness();
    const n = h.notifier();
    const client = h.api.service(h.creds.service as NonNullable<typeof h.creds.service>);
    for (let i = 0; i < 4; i++) await client.requestAdditionalSite(`Before ${i}`);
    const r = await requestAdditionalSiteTracked(deps(), WS, client, {
      name: 'Middle Site',
      requestedBy: USER,
    });
    for (let i = 0; i < 4; i++) await client.requestAdditionalSite(`After ${i}`);
    h.emu.setBehaviours({ pageCap: 3 });
    h.emu.decideSiteRequest(SVC_ACCOUNT, r.seq, 'approved', 'MIDL');
    await run(n, 120_000);
    const dms = h.ports.of('dm');
    expect(dms).toHaveLength(1);
    expect(dms[0]?.body).toMatchObject({ kind: 'site', requestId: String(r.seq), outcome: 'approved' });
  });

  it('a crash right after the DM was posted does not DM again after the restart', async () => {
    h = await startNotifyHarness();
    const first = h.notifier({ holderId: 'replica-1' });
    const view = await trialRequest();
    h.emu.approveRequest(SITE, view.requestId);
    let crashed = false;
    h.ports.faults = [
      (call) => {
        if (call !== 'deliverDm' || crashed) return undefined;
        crashed = true;
        return 'after';
      },
    ];
    await run(first, 60_000);
    expect(crashed).toBe(true);
    await first.stop();
    // A new process on the same store (after the lease ran out).
    h.advance(10 * 60_000);
    const second = h.notifier({ holderId: 'replica-2' });
    await run(second, 120_000);
    expect(h.ports.of('dm')).toHaveLength(1);
    expect(h.ports.calls).toContain('findPosted');
    expect(h.ports.cardUpdates.length).toBeGreaterThanOrEqual(1);
  });

  it('a kill at any store write of the outcome path still gives exactly one DM', async () => {
    // Sweep the crash point over every raw write from detection to delivery.
    const probe = await crashStore();
    h = await startNotifyHarness({ store: probe.store });
    const view = await trialRequest();
    h.emu.approveRequest(SITE, view.requestId);
    probe.resetWrites();
    const dry = h.notifier({ holderId: 'probe' });
    await run(dry, 60_000);
    const writes = probe.writes.length;
    expect(h.ports.of('dm')).toHaveLength(1);
    await h.close();
    await probe.close();

    for (let k = 0; k < writes; k++) {
      const cs = await crashStore();
      h = await startNotifyHarness({ store: cs.store });
      const v = await trialRequest();
      h.emu.approveRequest(SITE, v.requestId);
      cs.resetWrites();
      cs.crashBefore((_op, _key, i) => i === k);
      const a = h.notifier({ holderId: `a-${k}` });
      await run(a, 60_000).catch(() => undefined);
      cs.revive();
      // The dead process's leases run out (the memory store's lease clock is real time).
      await a.stop();
      h.advance(10 * 60_000);
      const b = h.notifier({ holderId: `b-${k}` });
      await run(b, 180_000);
      expect(h.ports.of('dm'), `crash before write ${k}`).toHaveLength(1);
      await h.close();
      await cs.close();
    }
    h = undefined as unknown as NotifyHarness;
  });
});
