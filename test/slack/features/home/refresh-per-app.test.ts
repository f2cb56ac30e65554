/**
 * Home refreshes are coalesced per app: concurrent refreshes of one tab in one app run the work
 * at most twice, while two apps in one process (same workspace and user ids) never wait on each
 * other's refresh: each app publishes its own tab.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refreshHome } from '../../../../src/slack/features/home/index.js';
import { startTestBot, type TestBot } from '../../../harness/index.js';

const publishesTo = (bot: TestBot, user: string) =>
  bot.fake.calls('views.publish').filter((c) => c.ok && c.args.user_id === user).length;

describe('Home refresh coalescing is per app', () => {
  let a: TestBot;
  let b: TestBot;
  beforeAll(async () => {
    a = await startTestBot({ emulator: false, credentials: 'none' });
    b = await startTestBot({ emulator: false, credentials: 'none' });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });

  it('two apps refreshing the same workspace and user each publish their own tab', async () => {
    // Both stacks serve testWorkspace(0): the same refresh key in two apps.
    expect(b.ws.teamId).toBe(a.ws.teamId);
    expect(b.ws.member).toBe(a.ws.member);
    const before = [publishesTo(a, a.ws.member), publishesTo(b, b.ws.member)];
    const [na, nb] = await Promise.all([
      refreshHome(a.deps, a.ws.teamId, a.ws.member),
      refreshHome(b.deps, b.ws.teamId, b.ws.member),
    ]);
    expect([na, nb]).toEqual([1, 1]);
    expect(publishesTo(a, a.ws.member) - before[0]!).toBe(1);
    expect(publishesTo(b, b.ws.member) - before[1]!).toBe(1);
  });

  it('within one app, calls during a refresh join it and run it once more (also from derived deps)', async () => {
    const before = publishesTo(a, a.ws.admin);
    const first = refreshHome(a.deps, a.ws.teamId, a.ws.admin);
    // Background work uses `{ ...deps, store }` (the unbounded store): still the same app.
    const second = refreshHome({ ...a.deps, store: a.store }, a.ws.teamId, a.ws.admin);
    const third = refreshHome(a.deps, a.ws.teamId, a.ws.admin);
    expect(second).toBe(first);
    expect(third).toBe(first);
    expect(await first).toBe(1);
    expect(publishesTo(a, a.ws.admin) - before).toBe(2);
  });
});
