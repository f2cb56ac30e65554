import { afterEach, describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/api/errors.js';
import { NoticeOutbox } from '../../src/notices/outbox.js';
import { NotifyRefusedError } from '../../src/ops/alerts.js';
import { digestNow, scheduleDigest, showDigest, stopDigest } from '../../src/ops/digest.js';
import { parseDigestArgs } from '../../src/slack/features/digest/args.js';
import { notifyDeps, WS } from './notify-support.js';

type Deps = Awaited<ReturnType<typeof notifyDeps>>;
let deps: Deps | undefined;
afterEach(async () => {
  await deps?.close();
  deps = undefined;
});

const member = (userId: string) => ({ userId, isAdmin: false, inChannel: true });

describe('/dwm digest arguments', () => {
  it('reads daily HH:MM [zone], now, off and the bare command', () => {
    expect(parseDigestArgs('daily 9:05 Europe/Berlin')).toEqual({
      action: 'daily',
      time: '09:05',
      zone: 'Europe/Berlin',
    });
    expect(parseDigestArgs('daily 17:30')).toEqual({ action: 'daily', time: '17:30' });
    expect(parseDigestArgs('')).toEqual({ action: 'show' });
    expect(parseDigestArgs('now')).toEqual({ action: 'now' });
    expect(parseDigestArgs('OFF')).toEqual({ action: 'off' });
  });

  it('says what to type for a bad time, zone or action', () => {
    expect(() => parseDigestArgs('daily 25:00')).toThrow(/24-hour HH:MM/);
    expect(() => parseDigestArgs('daily')).toThrow(/time of day/);
    expect(() => parseDigestArgs('daily 09:00 Mars/Olympus')).toThrow(/IANA name/);
    expect(() => parseDigestArgs('weekly 09:00')).toThrow(ValidationError);
  });
});

describe('digest schedules', () => {
  it("defaults the zone to the user's Slack zone and tells the next post", async () => {
    deps = await notifyDeps(); // now: 2026-11-22 08:00 UTC
    const r = await scheduleDigest(deps, WS, {
      channelId: 'C1',
      actor: member('U1'),
      time: '10:00',
      userZone: 'Europe/Berlin',
    });
    expect(r.status).toBe('created');
    expect(r.schedule).toMatchObject({ time: '10:00', zone: 'Europe/Berlin', createdBy: 'U1' });
    expect(r.next).toEqual({ day: '2026-11-22', at: Date.UTC(2026, 10, 22, 9, 0) });
    expect((await showDigest(deps, WS, 'C1'))?.schedule.zone).toBe('Europe/Berlin');
    expect(await showDigest(deps, WS, 'C2')).toBeUndefined();
    const utc = await scheduleDigest(deps, WS, { channelId: 'C2', actor: member('U1'), time: '07:00' });
    expect(utc.schedule.zone).toBe('UTC');
    expect(utc.next.day).toBe('2026-11-23');
  });

  it('only the owner or an admin moves or stops a schedule; each change is audited', async () => {
    deps = await notifyDeps();
    await scheduleDigest(deps, WS, { channelId: 'C1', actor: member('U1'), time: '09:00', zone: 'UTC' });
    await expect(
      scheduleDigest(deps, WS, { channelId: 'C1', actor: member('U2'), time: '10:00', zone: 'UTC' }),
    ).rejects.toMatchObject({ reason: 'notYours', owner: 'U1' });
    await expect(stopDigest(deps, WS, { channelId: 'C1', actor: member('U2') })).rejects.toBeInstanceOf(
      NotifyRefusedError,
    );
    const moved = await scheduleDigest(deps, WS, {
      channelId: 'C1',
      actor: { userId: 'U9', isAdmin: true },
      time: '10:00',
      zone: 'UTC',
    });
    expect(moved).toMatchObject({ status: 'updated', previous: { time: '09:00', zone: 'UTC' } });
    expect((await stopDigest(deps, WS, { channelId: 'C1', actor: member('U1') }))?.time).toBe('10:00');
    expect(await stopDigest(deps, WS, { channelId: 'C1', actor: member('U1') })).toBeUndefined();
    const actions = (await deps.store.audit.list(WS)).map((a) => `${a.action}:${a.result}`);
    expect(actions).toEqual([
      'digest.off:ok',
      'digest.schedule:ok',
      'digest.off:refused',
      'digest.schedule:refused',
      'digest.schedule:ok',
    ]);
  });

  it('refuses a member outside the channel', async () => {
    deps = await notifyDeps();
    await expect(
      scheduleDigest(deps, WS, {
        channelId: 'C1',
        actor: { userId: 'U1', isAdmin: false, inChannel: false },
        time: '09:00',
      }),
    ).rejects.toMatchObject({ reason: 'notInChannel' });
  });

  it('digest now queues one digest per channel at a time and asks for a delivery', async () => {
    deps = await notifyDeps();
    const kicked: string[] = [];
    const r = await digestNow(deps, WS, {
      channelId: 'C1',
      actor: member('U1'),
      zone: 'Asia/Seoul',
      kick: (ws) => kicked.push(ws),
    });
    expect(kicked).toEqual([WS]);
    const entry = await new NoticeOutbox(deps.store).get(WS, r.key);
    expect(entry).toMatchObject({
      kind: 'digest',
      lane: 'C1',
      payload: { channelId: 'C1', zone: 'Asia/Seoul', requestedBy: 'U1' },
    });
    await expect(digestNow(deps, WS, { channelId: 'C1', actor: member('U2') })).rejects.toMatchObject({
      reason: 'alreadyRunning',
    });
    await expect(digestNow(deps, WS, { channelId: 'C2', actor: member('U2') })).resolves.toHaveProperty(
      'key',
    );
  });
});
