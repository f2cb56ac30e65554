import { afterEach, describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/api/errors.js';
import {
  ALERT_DEFAULTS,
  listAlerts,
  NotifyRefusedError,
  needsForm,
  parseAlertArgs,
  stopAlerts,
  subscribeAlerts,
} from '../../src/ops/alerts.js';
import { NotConfiguredError, SiteNotConfiguredError } from '../../src/ops/workspace.js';
import { notifyDeps, WS } from './notify-support.js';

type Deps = Awaited<ReturnType<typeof notifyDeps>>;
let deps: Deps | undefined;
afterEach(async () => {
  await deps?.close();
  deps = undefined;
});

const member = (userId: string) => ({ userId, isAdmin: false, inChannel: true });
const admin = { userId: 'U0ADMIN', isAdmin: true };

describe('/drm alerts arguments', () => {
  it('reads site, ratio (with or without %), min and window (with or without a unit)', () => {
    expect(parseAlertArgs(['site:CD34', 'ratio:35%', 'min:50', 'window:30m'])).toEqual({
      args: { siteId: 'CD34', ratioPct: 35, minRequests: 50, windowMinutes: 30 },
      issues: [],
    });
    expect(parseAlertArgs(['ratio:12.5']).args.ratioPct).toBe(12.5);
    expect(needsForm(parseAlertArgs(['site:AB12']).args)).toBe(true);
    expect(needsForm(parseAlertArgs(['min:5']).args)).toBe(false);
  });

  it('says what to fix for each bad value', () => {
    const { issues } = parseAlertArgs(['ratio:0', 'min:2.5', 'window:1', 'site:??', 'level:high']);
    expect(issues.map((i) => i.field)).toEqual(['ratio', 'min', 'window', 'site', 'level:high']);
    expect(issues[0]?.message).toContain('like ratio:20%');
    expect(issues[1]?.message).toContain('whole number');
    expect(issues[2]?.message).toContain('from 5 to 1440');
    expect(issues[4]?.message).toContain('Unknown option');
  });
});

describe('alert subscriptions', () => {
  it('subscribes with the defaults on the default site; the same again is unchanged', async () => {
    deps = await notifyDeps();
    const r = await subscribeAlerts(deps, WS, { channelId: 'C1', actor: member('U1') });
    expect(r.status).toBe('created');
    expect(r.subscription).toMatchObject({
      siteId: 'AB12',
      ...ALERT_DEFAULTS,
      createdBy: 'U1',
      channelId: 'C1',
    });
    expect(ALERT_DEFAULTS).toEqual({ ratioPct: 20, minRequests: 20, windowMinutes: 15 });
    const again = await subscribeAlerts(deps, WS, { channelId: 'C1', actor: member('U1') });
    expect(again.status).toBe('unchanged');
    const audit = await deps.store.audit.list(WS);
    expect(audit.map((a) => `${a.action}:${a.result}`)).toEqual(['alerts.watch:ok']);
    expect(audit[0]?.detail).toContain('fail ratio 20%');
  });

  it('only an admin changes thresholds someone else set; the owner may', async () => {
    deps = await notifyDeps();
    await subscribeAlerts(deps, WS, { channelId: 'C1', actor: member('U1'), siteId: 'CD34', ratioPct: 30 });
    const refused = subscribeAlerts(deps, WS, {
      channelId: 'C1',
      actor: member('U2'),
      siteId: 'CD34',
      ratioPct: 5,
    });
    await expect(refused).rejects.toBeInstanceOf(NotifyRefusedError);
    await expect(refused).rejects.toMatchObject({ reason: 'notYours', owner: 'U1' });
    const byOwner = await subscribeAlerts(deps, WS, {
      channelId: 'C1',
      actor: member('U1'),
      siteId: 'CD34',
      minRequests: 40,
    });
    expect(byOwner.status).toBe('updated');
    expect(byOwner.subscription).toMatchObject({ ratioPct: 30, minRequests: 40, windowMinutes: 15 });
    const byAdmin = await subscribeAlerts(deps, WS, {
      channelId: 'C1',
      actor: admin,
      siteId: 'CD34',
      ratioPct: 10,
    });
    expect(byAdmin.subscription).toMatchObject({ ratioPct: 10, updatedBy: 'U0ADMIN', createdBy: 'U1' });
    expect((await deps.store.audit.list(WS)).map((a) => a.result)).toContain('refused');
  });

  it('refuses a channel the member is not in, a site not configured, a workspace without Service API credentials', async () => {
    deps = await notifyDeps();
    await expect(
      subscribeAlerts(deps, WS, {
        channelId: 'C1',
        actor: { userId: 'U1', isAdmin: false, inChannel: false },
      }),
    ).rejects.toMatchObject({ reason: 'notInChannel' });
    await expect(
      subscribeAlerts(deps, WS, { channelId: 'C1', actor: member('U1'), siteId: 'ZZ99' }),
    ).rejects.toBeInstanceOf(SiteNotConfiguredError);
    await expect(
      subscribeAlerts(deps, WS, { channelId: 'C1', actor: member('U1'), ratioPct: 500 }),
    ).rejects.toBeInstanceOf(ValidationError);
    await deps.close();
    deps = await notifyDeps({ service: false });
    await expect(subscribeAlerts(deps, WS, { channelId: 'C1', actor: member('U1') })).rejects.toBeInstanceOf(
      NotConfiguredError,
    );
  });

  it("lists the channel's subscriptions; stop removes your own and keeps others' unless an admin asks", async () => {
    deps = await notifyDeps();
    await subscribeAlerts(deps, WS, { channelId: 'C1', actor: member('U1'), siteId: 'AB12' });
    await subscribeAlerts(deps, WS, { channelId: 'C1', actor: member('U2'), siteId: 'CD34' });
    await subscribeAlerts(deps, WS, { channelId: 'C2', actor: member('U1'), siteId: 'AB12' });
    expect((await listAlerts(deps, WS, 'C1')).map((i) => i.subscription.siteId).sort()).toEqual([
      'AB12',
      'CD34',
    ]);
    const stop = await stopAlerts(deps, WS, { channelId: 'C1', actor: member('U1') });
    expect(stop.removed.map((s) => s.siteId)).toEqual(['AB12']);
    expect(stop.refused.map((s) => s.siteId)).toEqual(['CD34']);
    const byAdmin = await stopAlerts(deps, WS, { channelId: 'C1', actor: admin });
    expect(byAdmin.removed.map((s) => s.siteId)).toEqual(['CD34']);
    expect(await listAlerts(deps, WS, 'C1')).toEqual([]);
    expect(await listAlerts(deps, WS, 'C2')).toHaveLength(1);
  });
});
