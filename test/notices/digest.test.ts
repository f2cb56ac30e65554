import { afterEach, describe, expect, it } from 'vitest';
import { dueDigest, lastOccurrence, nextOccurrence } from '../../src/notices/digest-schedules.js';
import type { Notifier } from '../../src/notices/notifier.js';
import type { Digest, DigestSchedule } from '../../src/notices/types.js';
import { digestMessage } from '../../src/slack/features/digest/render.js';
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

const CH = 'C0DIGEST1';
/** 2026-11-22 08:00 UTC; the digest is due at 10:00 Europe/Berlin = 09:00 UTC (CET). */
const START = Date.UTC(2026, 10, 22, 8, 0, 0);
const DUE = Date.UTC(2026, 10, 22, 9, 0, 0);
const DAY = 24 * 3600_000;

async function schedule(n: Notifier, over: Partial<DigestSchedule> = {}) {
  const { digestScheduleId } = await import('../../src/notices/digest-schedules.js');
  await n.digests.put(WS, {
    id: digestScheduleId(CH),
    workspace: WS,
    channelId: CH,
    time: '10:00',
    zone: 'Europe/Berlin',
    createdBy: 'U0DIGESTER',
    createdAt: new Date(h.clock.now()).toISOString(),
    ...over,
  });
}

/** Tick every `step` until `until` (virtual time). */
async function runUntil(n: Notifier, until: number, step = 15_000) {
  while (h.clock.now() < until) {
    h.advance(Math.min(step, until - h.clock.now()));
    await n.tick();
  }
}

const digests = () => h.ports.of('digest');

describe('daily digest: times', () => {
  it('occurrences follow the zone, across a DST change', () => {
    expect(lastOccurrence('10:00', 'Europe/Berlin', DUE + 1000)).toEqual({ day: '2026-11-22', at: DUE });
    expect(lastOccurrence('10:00', 'Europe/Berlin', DUE - 1000).day).toBe('2026-11-21');
    expect(nextOccurrence('10:00', 'Europe/Berlin', DUE).at).toBe(DUE + DAY);
    // 2026-03-29: Berlin moves to CEST (+2): 10:00 local is 08:00 UTC.
    expect(nextOccurrence('10:00', 'Europe/Berlin', Date.UTC(2026, 2, 28, 12)).at).toBe(
      Date.UTC(2026, 2, 29, 8),
    );
  });

  it("a schedule created after today's time is first due tomorrow; missed days are named", () => {
    const s: DigestSchedule = {
      id: 'x',
      workspace: WS,
      channelId: CH,
      time: '10:00',
      zone: 'Europe/Berlin',
      createdBy: 'U1',
      createdAt: new Date(DUE + 60_000).toISOString(),
    };
    expect(dueDigest(s, DUE + 3600_000)).toBeUndefined();
    expect(dueDigest(s, DUE + DAY + 1000)).toMatchObject({ day: '2026-11-23', late: false, missedDays: [] });
    const down = dueDigest({ ...s, lastDay: '2026-11-23' }, DUE + 3 * DAY + 2 * 3600_000);
    expect(down).toMatchObject({ day: '2026-11-25', late: true, missedDays: ['2026-11-24'] });
    expect(dueDigest({ ...s, lastDay: '2026-11-25' }, DUE + 3 * DAY + 2 * 3600_000)).toBeUndefined();
  });
});

describe('daily digest against the emulator', () => {
  it("is posted within a minute of HH:MM in the zone, once a day, with the day's numbers", async () => {
    h = await startNotifyHarness({ start: START });
    // The day's activity: two finished jobs (one with two failed recipients), a running one,
    // licenses on both sites, a pending plan request.
    const ok = h.emu.createJob(SITE, 'trailer-ok', [{ recipient: 'alice' }, { recipient: 'bob' }]);
    h.emu.finishJob(SITE, ok);
    const bad = h.emu.createJob(SITE, 'trailer-bad', [
      { recipient: 'carol' },
      { recipient: 'dave' },
      { recipient: 'erin' },
    ]);
    const wm = h.api.watermarking(h.creds.watermarking as NonNullable<typeof h.creds.watermarking>);
    const badTasks = (await wm.getJobTasks(SITE, bad)).items.map((x) => x.dwmId);
    h.emu.finishJob(SITE, bad, { failDwmIds: badTasks.slice(0, 2), cliErrorCode: 'E77' });
    h.emu.createJob(SITE2, 'feature-running', [{ recipient: 'frank' }]);
    const t = h.clock.now();
    h.emu.addLicenses(SITE, [
      { cid: 'm1', status: 'success', regTimeMs: t - 3600_000 },
      { cid: 'm1', status: 'fail', regTimeMs: t - 1800_000 },
      { cid: 'm2', status: 'success', regTimeMs: t - 2 * DAY }, // outside the 24 h
    ]);
    h.emu.addLicenses(SITE2, [{ cid: 'd1', status: 'fail', regTimeMs: t - 600_000 }]);
    const svc = h.api.service(h.creds.service as NonNullable<typeof h.creds.service>);
    const pending = await svc.registerStatusRequest(SITE, { serviceCode: 'PD001', requestType: 'SM003' });

    const n = h.notifier();
    await schedule(n);
    await runUntil(n, DUE - 15_000);
    expect(digests()).toEqual([]);
    await runUntil(n, DUE + 60_000);
    expect(digests()).toHaveLength(1);
    const posted = digests()[0];
    expect(Number(posted?.ts) * 1000 - DUE).toBeLessThanOrEqual(60_000);
    expect(posted?.channel).toBe(CH);
    const d = posted?.body as Digest;
    expect(d).toMatchObject({
      day: '2026-11-22',
      scheduledFor: DUE,
      zone: 'Europe/Berlin',
      sites: [SITE, SITE2],
    });
    expect(d.lateNote).toBeUndefined();
    if (!d.jobs.ok || !d.registrations.ok || !d.licenses.ok || !d.pendingRequests.ok)
      throw new Error('a section failed');
    expect(d.jobs.value.byStatus).toMatchObject({ DM000: 1, DM500: 1, DM600: 1 });
    expect(d.jobs.value.failed).toEqual([
      { siteId: SITE, jobId: bad, contentId: 'trailer-bad', failedRecipients: 2 },
    ]);
    expect(d.registrations.value.total).toBe(6);
    expect(d.licenses.value.perSite).toEqual([
      { siteId: SITE, success: 1, fail: 1, truncated: false },
      { siteId: SITE2, success: 0, fail: 1, truncated: false },
    ]);
    expect(d.pendingRequests.value).toEqual([
      expect.objectContaining({
        siteId: SITE,
        serviceCode: 'PD001',
        requestId: pending.requestId,
        requestLabel: 'Trial extension',
      }),
    ]);

    // The rest of the day: nothing more. The next day: one more, on time.
    await runUntil(n, DUE + DAY - 60_000, 600_000);
    expect(digests()).toHaveLength(1);
    await runUntil(n, DUE + DAY + 60_000);
    expect(digests()).toHaveLength(2);
    expect((digests()[1]?.body as Digest | undefined)?.day).toBe('2026-11-23');
    expect(h.ports.duplicateKeys()).toEqual([]);
  });

  it("carries the workspace and the channel's license-alert ratio per site (what makes a site red)", async () => {
    h = await startNotifyHarness({ start: START });
    const n = h.notifier();
    await n.alerts.put(WS, alertSubscription(CH, h.clock.now(), { ratioPct: 12 }));
    await schedule(n);
    await runUntil(n, DUE + 60_000);
    const d = digests()[0]?.body as Digest;
    expect(d.workspace).toBe(WS);
    expect(d.alertRatioPct).toEqual({ [SITE]: 12 });
  });

  it('two replicas sharing the store post it once', async () => {
    h = await startNotifyHarness({ start: START });
    const a = h.notifier({ holderId: 'replica-a' });
    const b = h.notifier({ holderId: 'replica-b' });
    await schedule(a);
    while (h.clock.now() < DUE + 120_000) {
      h.advance(15_000);
      await Promise.all([a.tick(), b.tick()]);
    }
    expect(digests()).toHaveLength(1);
  });

  it('a day missed while the bot was down is posted late once, with a note naming the days; never doubled', async () => {
    h = await startNotifyHarness({ start: START });
    const first = h.notifier();
    await schedule(first);
    await runUntil(first, DUE + 60_000);
    expect(digests()).toHaveLength(1);
    await first.stop();
    // Down from day 1 10:01 until day 3 12:00 (Berlin): days 2 and 3 passed unseen.
    h.advance(2 * DAY + 2 * 3600_000);
    const second = h.notifier();
    await runUntil(second, h.clock.now() + 120_000);
    expect(digests()).toHaveLength(2);
    const late = digests()[1]?.body as Digest;
    expect(late.day).toBe('2026-11-24');
    expect(late.missedDays).toEqual(['2026-11-23']);
    expect(late.lateNote).toMatch(/late/);
    expect(late.lateNote).toContain('2026-11-23');
    // A restart later that day does not post it again.
    await second.stop();
    const third = h.notifier();
    await runUntil(third, h.clock.now() + 600_000);
    expect(digests()).toHaveLength(2);
    // The next day is on time again, without a note.
    await runUntil(third, DUE + 3 * DAY + 60_000, 60_000);
    expect(digests()).toHaveLength(3);
    expect((digests()[2]?.body as Digest | undefined)?.lateNote).toBeUndefined();
  });

  it('back on time after a missed day: the missed day is named, but the digest is not called late', async () => {
    h = await startNotifyHarness({ start: START });
    const first = h.notifier();
    await schedule(first);
    await runUntil(first, DUE + 60_000);
    expect(digests()).toHaveLength(1);
    await first.stop();
    // Down over day 2's time; back on day 3 at 10:00:20 Berlin, just after the digest's time.
    h.advance(DUE + 2 * DAY + 20_000 - h.clock.now());
    const second = h.notifier();
    await second.tick();
    expect(digests()).toHaveLength(2);
    const d = digests()[1]?.body as Digest;
    expect(d.day).toBe('2026-11-24');
    expect(d.missedDays).toEqual(['2026-11-23']);
    expect(d.lateNote).toBeUndefined();
    const { digestMessage } = await import('../../src/slack/features/digest/render.js');
    const text = JSON.stringify(digestMessage(d));
    expect(text).not.toContain('Posted late');
    expect(text).toContain('No digest was posted for `2026-11-23`');
  });

  it('/dwm digest off discards a digest already queued or deferred for the channel: nothing posts after "off"', async () => {
    h = await startNotifyHarness({ start: START });
    const { stopDigest } = await import('../../src/ops/digest.js');
    const { DeliveryError } = await import('../../src/watch/types.js');
    const deps = { store: h.store, now: () => h.clock.now() } as unknown as Parameters<typeof stopDigest>[0];
    const n = h.notifier();
    // Deferred: Slack rate-limits the post, so today's digest waits in the outbox.
    await schedule(n);
    h.ports.faults = [
      (call) =>
        call === 'postDigest' ? new DeliveryError('ratelimited', { retryAfterMs: 120_000 }) : undefined,
    ];
    await runUntil(n, DUE + 30_000);
    expect(await n.outbox.size(WS)).toBe(1);
    await stopDigest(deps, WS, { channelId: CH, actor: { userId: 'U0DIGESTER', isAdmin: false } });
    expect(await n.outbox.size(WS)).toBe(0);
    h.ports.faults = [];
    await runUntil(n, DUE + 600_000);
    expect(digests()).toEqual([]);

    // Queued, and the schedule removed before the delivery ran (the off landing between the
    // discard and a drain that had already read the entry): the delivery checks the schedule.
    const { scheduleDigests } = await import('../../src/notices/digest.js');
    await schedule(n, { createdAt: new Date(h.clock.now()).toISOString() });
    h.advance(DUE + DAY + 1000 - h.clock.now());
    const queued = await scheduleDigests({
      workspace: WS,
      schedules: n.digests,
      outbox: n.outbox,
      now: () => h.clock.now(),
    });
    expect(queued).toHaveLength(1);
    await n.digests.remove(WS, CH);
    await n.drain(WS);
    expect(digests()).toEqual([]);
    expect(await n.outbox.size(WS)).toBe(0);
  });

  it('a crash between posting and recording does not post the digest twice', async () => {
    h = await startNotifyHarness({ start: START });
    const a = h.notifier({ holderId: 'replica-a' });
    await schedule(a);
    let crashed = false;
    h.ports.faults = [
      (call) => {
        if (call !== 'postDigest' || crashed) return undefined;
        crashed = true;
        return 'after';
      },
    ];
    await runUntil(a, DUE + 30_000);
    expect(crashed).toBe(true);
    await a.stop();
    const b = h.notifier({ holderId: 'replica-b' });
    await runUntil(b, DUE + 600_000);
    expect(digests()).toHaveLength(1);
    expect(h.ports.calls).toContain('findPosted');
  });

  it('a section the service cannot serve says why; the rest is still posted', async () => {
    h = await startNotifyHarness({ start: START });
    const n = h.notifier({ credentials: async () => ({ ...h.creds, service: undefined }) });
    await schedule(n);
    await runUntil(n, DUE + 60_000);
    const d = digests()[0]?.body as Digest;
    expect(d.jobs.ok).toBe(true);
    expect(d.licenses).toEqual({
      ok: false,
      error: 'No Service API credentials are configured',
      next: { do: 'setup' },
    });
    // The channel reads the same words as ever (the Slack layer names the command).
    expect(JSON.stringify(digestMessage(d))).toContain(
      'No Service API credentials are configured: an admin can add them with /dwm setup.',
    );
    expect(d.pendingRequests.ok).toBe(false);
  });

  it('a product whose latest request is refused with a code the table does not know is named; the section keeps the rest', async () => {
    h = await startNotifyHarness({ start: START });
    // This service says "no request yet" with a not-found code the error-code table is not told.
    h.emu.setBehaviours({ planNone: 'notFound', planNoneCode: 'NF-404' });
    const svc = h.api.service(h.creds.service as NonNullable<typeof h.creds.service>);
    const pending = await svc.registerStatusRequest(SITE, { serviceCode: 'PD001', requestType: 'SM003' });
    const n = h.notifier();
    await schedule(n);
    await runUntil(n, DUE + 60_000);
    const d = digests()[0]?.body as Digest;
    expect(d.pendingRequests).toMatchObject({
      ok: true,
      value: [{ siteId: SITE, requestId: pending.requestId }],
    });
    expect(d.pendingUnread?.length).toBeGreaterThan(0);
    expect(d.pendingUnread?.every((u) => u.code === 'NF-404')).toBe(true);
    expect(d.pendingUnread?.some((u) => u.siteId === SITE2)).toBe(true);
    const blocks = JSON.stringify(digestMessage(d).blocks);
    expect(blocks).toContain('no earlier request could be read (NF-404: ');
    expect(blocks).toContain(pending.requestId);
  });

  it('runs on its own timer once started, and stops', async () => {
    h = await startNotifyHarness({ start: START });
    const n = h.notifier();
    await schedule(n);
    h.advance(DUE - 60_000 - h.clock.now());
    n.start();
    // Move virtual time in timer-sized steps; each fired timer runs a tick in the background.
    while (h.clock.now() < DUE + 60_000 && digests().length === 0) {
      h.advance(15_000);
      await n.settled();
    }
    expect(digests()).toHaveLength(1);
    expect(Number(digests()[0]?.ts) * 1000 - DUE).toBeLessThanOrEqual(60_000);
    await n.stop();
    expect(h.clock.pendingTimers()).toBe(0);
  });
});
