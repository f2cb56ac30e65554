import { afterEach, describe, expect, it } from 'vitest';
import type { NewLicenseRec } from '../../dev/emulator/svc-state.js';
import { alertSubscriptionId } from '../../src/notices/alert-subscriptions.js';
import { notifyPolls } from '../../src/notices/notice-ticks.js';
import type { Notifier } from '../../src/notices/notifier.js';
import { noticesTotal } from '../../src/notices/outbox.js';
import type { AlertSubscription, LicenseAlert } from '../../src/notices/types.js';
import { subscribeAlerts } from '../../src/ops/alerts.js';
import type { OpsDeps } from '../../src/ops/workspace.js';
import { DeliveryError } from '../../src/watch/types.js';
import { alertSubscription, type NotifyHarness, SITE, startNotifyHarness, WS } from './support/harness.js';

let h: NotifyHarness;
afterEach(async () => {
  await h?.close();
});

const CH = 'C0ALERTS1';

async function subscribe(n: Notifier, over: Partial<AlertSubscription> = {}): Promise<AlertSubscription> {
  const sub = alertSubscription(CH, h.clock.now(), over);
  await n.alerts.put(WS, sub);
  return sub;
}

/** `count` records spread over the `spreadMs` before now. */
function records(
  count: number,
  status: 'success' | 'fail',
  o: { errorCode?: string; cid?: string; device?: string; spreadMs?: number; endAgoMs?: number } = {},
): NewLicenseRec[] {
  const now = h.clock.now() - (o.endAgoMs ?? 1000);
  const spread = o.spreadMs ?? 5 * 60_000;
  return Array.from({ length: count }, (_, i) => ({
    cid: o.cid ?? `movie-${i % 3}`,
    status,
    ...(o.errorCode ? { errorCode: o.errorCode } : {}),
    ...(o.device ? { deviceId: o.device, deviceModel: 'Galaxy S24' } : {}),
    regTimeMs: now - Math.floor((spread * i) / Math.max(1, count)),
  }));
}

async function pollNow(n: Notifier) {
  h.advance(60_000);
  return n.tick();
}

const alerts = () => h.ports.of('alert');
const topLevel = () => alerts().filter((p) => !p.threadTs);

/** A new harness whose channel, subscribed, was posted one spike alert (20 failures), and ops deps on its store. */
async function spikeAlerted() {
  h = await startNotifyHarness();
  const deps = { store: h.store, now: () => h.clock.now() } as unknown as OpsDeps;
  const n = h.notifier();
  await subscribe(n);
  h.emu.addLicenses(SITE, records(20, 'fail', { errorCode: 'E4001' }));
  await pollNow(n);
  expect(topLevel()).toHaveLength(1);
  return { deps, n, first: topLevel()[0] };
}

describe('license-failure alerts against the emulator', () => {
  it('/drm alerts stop during a spike: the alert gets ONE final "stopped" update; pending notices are dropped', async () => {
    const { stopAlerts } = await import('../../src/ops/alerts.js');
    const { deps, n, first } = await spikeAlerted();
    // More failures: an update is queued but Slack holds it back (rate limit) when the stop comes.
    h.emu.addLicenses(SITE, records(5, 'fail', { errorCode: 'E4001' }));
    h.ports.faults = [
      (call) =>
        call === 'updateAlert' ? new DeliveryError('ratelimited', { retryAfterMs: 600_000 }) : undefined,
    ];
    await pollNow(n);
    expect(await n.outbox.size(WS)).toBe(1);
    h.ports.faults = [];
    let kicked = 0;
    const r = await stopAlerts(deps, WS, {
      channelId: CH,
      actor: { userId: 'U0STOPPER', isAdmin: true },
      kick: () => kicked++,
    });
    expect(r.removed).toHaveLength(1);
    expect(kicked).toBe(1);
    // Only the final update is left; delivered once.
    expect(await n.outbox.pending(WS)).toEqual([
      expect.objectContaining({ key: expect.stringMatching(/:stopped$/) }),
    ]);
    await n.drain(WS);
    expect(first?.updates).toEqual([
      expect.objectContaining({
        kind: 'spike',
        state: 'stopped',
        stoppedBy: 'U0STOPPER',
        stats: expect.objectContaining({ failed: 25 }),
      }),
    ]);
    // Nothing more: a stop again finds nothing, later polls poll nothing, the alert stays as it is.
    await stopAlerts(deps, WS, { channelId: CH, actor: { userId: 'U0STOPPER', isAdmin: true } });
    h.emu.addLicenses(SITE, records(5, 'fail', { errorCode: 'E4001' }));
    await pollNow(n);
    await pollNow(n);
    expect(first?.updates).toHaveLength(1);
    expect(alerts()).toHaveLength(1);
    expect(await n.outbox.size(WS)).toBe(0);
  });

  it('a muted alert is neither updated nor posted again for an hour, then resumes (its creator or an admin, audited)', async () => {
    const { muteAlert } = await import('../../src/ops/alerts.js');
    const { deps, n, first } = await spikeAlerted();
    // Someone else (not an admin) is refused; nothing is muted.
    const refused = await muteAlert(deps, WS, {
      channelId: CH,
      siteId: SITE,
      actor: { userId: 'U0SOMEONE', isAdmin: false },
    });
    expect(refused.status).toBe('refused');
    const muted = await muteAlert(deps, WS, {
      channelId: CH,
      siteId: SITE,
      actor: { userId: 'U0ALERTER', isAdmin: false },
    });
    expect(muted).toMatchObject({ status: 'muted', until: h.clock.now() + 3600_000 });
    // Still failing, more and more: no update, no new alert while muted (the checks go on).
    for (let i = 0; i < 3; i++) {
      h.emu.addLicenses(SITE, records(5, 'fail', { errorCode: 'E4001' }));
      await pollNow(n);
    }
    // One update says it is muted (until when, by whom); nothing after it.
    expect(first?.updates).toEqual([
      expect.objectContaining({ state: 'ongoing', mutedUntil: muted.until, mutedBy: 'U0ALERTER' }),
    ]);
    expect(alerts()).toHaveLength(1);
    const st = await n.alerts.state.get(WS, alertSubscriptionId(CH, SITE));
    expect(st?.last?.failed).toBe(35);
    // An hour later the alert resumes: the same alert is updated with the current numbers.
    h.advance(3600_000);
    h.emu.addLicenses(SITE, records(25, 'fail', { errorCode: 'E4001', endAgoMs: 2000 }));
    await pollNow(n);
    expect(alerts()).toHaveLength(1);
    expect(first?.updates).toHaveLength(2);
    expect(first?.updates[1]).toMatchObject({ kind: 'spike', state: 'ongoing', stats: { failed: 25 } });
    expect(first?.updates[1]).not.toHaveProperty('mutedUntil');
    const log = await h.store.audit.list(WS);
    expect(log.filter((e) => e.action === 'alerts.mute').map((e) => e.result)).toEqual(
      expect.arrayContaining(['ok', 'refused']),
    );
  });

  it('one alert per spike, updated while it lasts, a recovery reply when the ratio falls, a new alert for the next spike', async () => {
    h = await startNotifyHarness();
    const n = h.notifier();
    await subscribe(n);
    h.emu.addLicenses(SITE, records(27, 'success'));
    h.emu.addLicenses(SITE, records(3, 'fail', { errorCode: 'E1001' }));
    await pollNow(n);
    expect(alerts()).toEqual([]); // 10 %: under the threshold

    h.emu.addLicenses(SITE, records(6, 'fail', { errorCode: 'E4001', cid: 'movie-7', device: 'dev-a' }));
    h.emu.addLicenses(SITE, records(4, 'fail', { errorCode: 'E5002', cid: 'movie-8', device: 'dev-b' }));
    await pollNow(n);
    expect(topLevel()).toHaveLength(1);
    const first = topLevel()[0];
    const a = first?.body as Extract<LicenseAlert, { kind: 'spike' }>;
    expect(a.kind).toBe('spike');
    expect(a.state).toBe('ongoing');
    expect(a.subscription.siteId).toBe(SITE);
    expect(a.stats).toMatchObject({ siteId: SITE, total: 40, failed: 13 });
    expect(a.stats.toMs - a.stats.fromMs).toBe(15 * 60_000);
    expect(a.stats.topErrors[0]).toEqual({ key: 'E4001', count: 6 });
    expect(a.stats.topErrors.map((e) => e.key)).toEqual(['E4001', 'E5002', 'E1001']);
    expect(a.stats.topContent[0]).toEqual({ key: 'movie-7', count: 6 });
    // Device models, never device ids (end viewers' personal data) in a channel's alert.
    expect(a.stats.topDevices[0]).toEqual({ key: 'Galaxy S24', count: 10 });
    expect(JSON.stringify(a.stats.topDevices)).not.toContain('dev-');

    // Still failing: the same alert is updated, nothing new is posted.
    h.emu.addLicenses(SITE, records(5, 'fail', { errorCode: 'E4001' }));
    await pollNow(n);
    await pollNow(n); // no change: no update either
    expect(topLevel()).toHaveLength(1);
    expect(first?.updates).toHaveLength(1);
    expect(first?.updates[0]).toMatchObject({ kind: 'spike', state: 'ongoing', stats: { failed: 18 } });

    // The failures age out of the window; new traffic succeeds: recovery.
    h.advance(20 * 60_000);
    h.emu.addLicenses(SITE, records(30, 'success'));
    await pollNow(n);
    const replies = alerts().filter((p) => p.threadTs === first?.ts);
    expect(replies).toHaveLength(1);
    expect(replies[0]?.body).toMatchObject({ kind: 'recovery', stats: { failed: 0, total: 30 } });
    expect(first?.updates.at(-1)).toMatchObject({ kind: 'spike', state: 'recovered' });
    await pollNow(n);
    expect(alerts()).toHaveLength(2);

    // A new spike later is a new alert.
    h.advance(20 * 60_000);
    h.emu.addLicenses(SITE, records(25, 'fail', { errorCode: 'E4001' }));
    await pollNow(n);
    expect(topLevel()).toHaveLength(2);
    expect(h.ports.duplicateKeys()).toEqual([]);
  });

  it('fewer requests than the minimum never alert, whatever the ratio', async () => {
    h = await startNotifyHarness();
    const n = h.notifier();
    await subscribe(n, { minRequests: 20 });
    h.emu.addLicenses(SITE, records(15, 'fail'));
    await pollNow(n);
    expect(alerts()).toEqual([]);
    h.emu.addLicenses(SITE, records(5, 'fail'));
    await pollNow(n);
    expect(alerts()).toHaveLength(1);
  });

  it('reads only the window: a busy day costs one page per poll', async () => {
    h = await startNotifyHarness();
    const n = h.notifier();
    await subscribe(n);
    // 3,000 records earlier today, 30 in the window.
    h.emu.addLicenses(SITE, records(3000, 'success', { endAgoMs: 30 * 60_000, spreadMs: 5 * 3600_000 }));
    h.emu.addLicenses(SITE, records(30, 'success'));
    h.emu.resetRequestCounts();
    await pollNow(n);
    expect(h.calls('/drm/license')).toBe(1);
    await pollNow(n);
    expect(h.calls('/drm/license')).toBe(2);
  });

  it('two replicas polling the same store post one alert', async () => {
    h = await startNotifyHarness();
    const a = h.notifier({ holderId: 'replica-a' });
    const b = h.notifier({ holderId: 'replica-b' });
    await subscribe(a);
    h.emu.addLicenses(SITE, records(30, 'fail'));
    h.advance(60_000);
    await Promise.all([a.tick(), b.tick()]);
    h.advance(60_000);
    await Promise.all([b.tick(), a.tick()]);
    expect(topLevel()).toHaveLength(1);
    expect(h.ports.duplicateKeys()).toEqual([]);
  });

  it('a channel Slack refuses for good pauses the subscription and tells its creator', async () => {
    h = await startNotifyHarness();
    const n = h.notifier();
    const sub = await subscribe(n);
    h.ports.faults = [(call) => (call === 'postAlert' ? new DeliveryError('is_archived') : undefined)];
    h.emu.addLicenses(SITE, records(30, 'fail'));
    await pollNow(n);
    const paused = await n.alerts.get(WS, sub.id);
    expect(paused?.paused?.code).toBe('is_archived');
    // The reason names how to resume an alert, not a job watch.
    expect(paused?.paused?.reason).toContain('/drm alerts watch again');
    expect(paused?.paused?.reason).not.toContain('/dwm watch');
    expect(h.events).toContainEqual(
      expect.objectContaining({
        type: 'notify-paused',
        feature: 'alerts',
        channelId: CH,
        createdBy: 'U0ALERTER',
      }),
    );
    h.emu.resetRequestCounts();
    await pollNow(n);
    expect(h.calls('/drm/license')).toBe(0);

    // The channel is fixed and the creator subscribes again: the spike still going on is alerted.
    h.ports.faults = [];
    await h.store.credentials.put(WS, {
      credentials: h.creds,
      verifiedAt: '2026-11-22T00:00:00.000Z',
      savedBy: 'U0ADMIN',
    });
    const deps = {
      config: { distribution: 'oauth' } as unknown as OpsDeps['config'],
      store: h.store,
      api: h.api,
      now: () => h.clock.now(),
    };
    const again = await subscribeAlerts(deps, WS, {
      channelId: CH,
      actor: { userId: 'U0ALERTER', isAdmin: false },
    });
    expect(again.status).toBe('updated');
    expect(again.subscription.paused).toBeUndefined();
    await pollNow(n);
    expect(topLevel()).toHaveLength(1);
    expect(topLevel()[0]?.body).toMatchObject({ kind: 'spike', stats: { failed: 30 } });
  });

  it('a rate-limited post is retried after Retry-After and posted once', async () => {
    h = await startNotifyHarness();
    const n = h.notifier();
    await subscribe(n);
    let limited = 0;
    h.ports.faults = [
      (call) => {
        if (call !== 'postAlert' || limited >= 2) return undefined;
        limited++;
        return new DeliveryError('ratelimited', { retryAfterMs: 3000 });
      },
    ];
    h.emu.addLicenses(SITE, records(30, 'fail'));
    await pollNow(n);
    expect(limited).toBe(2);
    expect(alerts()).toHaveLength(1);
  });

  it('counts polls and delivered notices in the metrics', async () => {
    h = await startNotifyHarness();
    const n = h.notifier();
    await subscribe(n);
    const value = async (m: typeof noticesTotal | typeof notifyPolls, labels: Record<string, string>) =>
      (await m.get()).values.find((v) =>
        Object.entries(labels).every(([k, x]) => (v.labels as Record<string, unknown>)[k] === x),
      )?.value ?? 0;
    const polls0 = await value(notifyPolls, { feature: 'alerts', outcome: 'ok' });
    const sent0 = await value(noticesTotal, { kind: 'alert-start', outcome: 'delivered' });
    h.emu.addLicenses(SITE, records(30, 'fail'));
    await pollNow(n);
    await pollNow(n);
    expect(await value(notifyPolls, { feature: 'alerts', outcome: 'ok' })).toBe(polls0 + 2);
    expect(await value(noticesTotal, { kind: 'alert-start', outcome: 'delivered' })).toBe(sent0 + 1);
  });

  it('a channel that stops and subscribes again is alerted again for a spike still going on', async () => {
    h = await startNotifyHarness();
    const n = h.notifier();
    const sub = await subscribe(n);
    h.emu.addLicenses(SITE, records(30, 'fail'));
    await pollNow(n);
    expect(topLevel()).toHaveLength(1);
    await n.alerts.remove(WS, sub.id);
    h.advance(60_000);
    await subscribe(n, { createdAt: new Date(h.clock.now()).toISOString() });
    h.emu.addLicenses(SITE, records(30, 'fail'));
    await pollNow(n);
    expect(topLevel()).toHaveLength(2);
  });

  it('a failing license list backs the site off, then the spike is alerted once the service answers', async () => {
    h = await startNotifyHarness();
    const n = h.notifier({ maxBackoffMs: 4 * 60_000 });
    await subscribe(n);
    h.emu.addLicenses(SITE, records(30, 'fail'));
    h.emu.faults.add({ match: '/drm/license', status: 503 });
    h.emu.resetRequestCounts();
    for (let i = 0; i < 10; i++) await pollNow(n);
    // Backoff: far fewer polls than the 10 intervals (each poll is retried by the API client).
    const failedPolls = h.events.filter((e) => e.type === 'notify-poll-failed');
    expect(failedPolls.length).toBeGreaterThan(0);
    expect(failedPolls.length).toBeLessThan(6);
    expect(failedPolls.at(-1)).toMatchObject({ feature: 'alerts', siteId: SITE, errorKind: 'transport' });
    expect(alerts()).toEqual([]);
    h.emu.faults.clear();
    h.emu.addLicenses(SITE, records(30, 'fail'));
    for (let i = 0; i < 5; i++) await pollNow(n);
    expect(topLevel()).toHaveLength(1);
  });

  it('alerts for several sites in one channel are paced one post per second', async () => {
    h = await startNotifyHarness();
    const n = h.notifier();
    await subscribe(n);
    await subscribe(n, { siteId: 'CD34' });
    h.emu.addLicenses(SITE, records(30, 'fail'));
    h.emu.addLicenses('CD34', records(30, 'fail'));
    const before = h.clock.slept;
    await pollNow(n);
    expect(topLevel()).toHaveLength(2);
    const [a, b] = topLevel();
    expect(Number(b?.ts) - Number(a?.ts)).toBeGreaterThanOrEqual(1);
    expect(h.clock.slept - before).toBeGreaterThanOrEqual(1000);
  });

  it('a site no longer in the workspace configuration is not polled', async () => {
    h = await startNotifyHarness();
    const n = h.notifier({
      credentials: async () => ({ ...h.creds, siteIds: ['CD34'], defaultSiteId: 'CD34' }),
    });
    await subscribe(n);
    h.emu.resetRequestCounts();
    await pollNow(n);
    await pollNow(n);
    expect(h.calls('/drm/license')).toBe(0);
  });
});
