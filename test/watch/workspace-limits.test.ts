/**
 * Per-workspace caps on workflow waits, job watches, license alerts and daily digests: a new one
 * beyond the cap is refused with what to do; changing, resuming or a repeated create never is;
 * another workspace is not concerned. And the waits of one workspace are listed without reading
 * another's.
 */
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { subscribeAlerts } from '../../src/ops/alerts.js';
import { scheduleDigest } from '../../src/ops/digest.js';
import type { OpsDeps } from '../../src/ops/workspace.js';
import { explainError } from '../../src/slack/kit/context/errors.js';
import { createStore, type Store, StoreNewerDocumentError } from '../../src/store/index.js';
import { addWait, listWaits, WAITS_NAMESPACE } from '../../src/watch/job-waits.js';
import { WorkspaceLimitError } from '../../src/watch/limits.js';
import { Subscriptions } from '../../src/watch/subscriptions.js';
import { notifyDeps, WS } from '../ops/notify-support.js';

let store: Store | undefined;
let deps: Awaited<ReturnType<typeof notifyDeps>> | undefined;
afterEach(async () => {
  await store?.close();
  await deps?.close();
  store = deps = undefined;
});
const open = async () => {
  store = await createStore({ url: 'memory://', encryptionKey: randomBytes(32).toString('base64') });
  return store;
};
const wait = (ws: string, id: string) => ({
  executionId: id,
  workspace: ws,
  siteId: 'SIT1',
  kind: 'job' as const,
  target: 'job-1',
  deadline: Date.now() + 3_600_000,
});
const member = (userId: string) => ({ userId, isAdmin: false, inChannel: true });
const withLimits = (d: OpsDeps, limits: Partial<Record<'alerts' | 'digests', number>>): OpsDeps => ({
  ...d,
  config: {
    ...d.config,
    workspaceLimits: { waits: 1000, watches: 500, alerts: 200, digests: 200, ...limits },
  },
});

describe('workflow waits', () => {
  it('a new wait beyond WAITS_MAX_PER_WORKSPACE is refused; a redelivered event and other workspaces are not', async () => {
    const s = await open();
    expect(await addWait(s, wait('T1', 'Fx1'), Date.now, undefined, 2)).toBe(true);
    expect(await addWait(s, wait('T1', 'Fx2'), Date.now, undefined, 2)).toBe(true);
    const refused = await addWait(s, wait('T1', 'Fx3'), Date.now, undefined, 2).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(WorkspaceLimitError);
    expect((refused as Error).message).toBe(
      "This workspace already has 2 workflow steps waiting for a job or a registration, the most it may have at once. Let some finish or reach their timeout, then run the workflow again, or ask the bot's operator to raise WAITS_MAX_PER_WORKSPACE.",
    );
    // The same event delivered again is the same wait, not a new one.
    expect(await addWait(s, wait('T1', 'Fx2'), Date.now, undefined, 2)).toBe(false);
    expect(await addWait(s, wait('T2', 'Fx1'), Date.now, undefined, 2)).toBe(true);
    expect((await listWaits(s, 'T1')).map((w) => w.executionId)).toEqual(['Fx1', 'Fx2']);
  });

  it("one workspace's waits are listed without reading another workspace's", async () => {
    const s = await open();
    for (let i = 0; i < 50; i++) await addWait(s, wait('TBUSY', `Fx${i}`));
    await addWait(s, wait('TQUIET', 'Fx-q'));
    const touched = new Set<string>();
    const spy: Pick<Store, 'docs'> = {
      docs: ((ns: string, schema?: never) => {
        const repo = s.docs(ns, schema);
        if (ns !== WAITS_NAMESPACE) return repo;
        return {
          ...repo,
          get: (ws: string, id: string) => {
            touched.add(ws);
            return repo.get(ws, id);
          },
          list: (ws: string) => {
            touched.add(ws);
            return repo.list(ws);
          },
          entries: (ws: string) => {
            touched.add(ws);
            return repo.entries?.(ws) ?? Promise.resolve([]);
          },
        };
      }) as Store['docs'],
    };
    expect((await listWaits(spy, 'TQUIET')).map((w) => w.executionId)).toEqual(['Fx-q']);
    expect([...touched]).toEqual(['TQUIET']);
  });
});

describe('job watches', () => {
  it('a new watch beyond WATCHES_MAX_PER_WORKSPACE is refused; the same watch again or a change of mode is not', async () => {
    const subs = new Subscriptions(await open());
    const input = (channelId: string, mode: 'all' | 'failures' = 'all') => ({
      channelId,
      siteId: 'SIT1',
      filters: { statuses: [], mode },
      createdBy: 'U1',
      limit: 1,
    });
    expect((await subs.create('T1', input('C1'))).outcome).toBe('created');
    await expect(subs.create('T1', input('C2'))).rejects.toThrow(
      "This workspace already has 1 job watches, the most it may have at once. Remove a job watch that is no longer needed, or ask the bot's operator to raise WATCHES_MAX_PER_WORKSPACE.",
    );
    expect((await subs.create('T1', input('C1'))).outcome).toBe('unchanged');
    expect((await subs.create('T1', input('C1', 'failures'))).outcome).toBe('updated');
    expect((await subs.create('T2', input('C2'))).outcome).toBe('created');
  });
});

describe('license alerts and daily digests', () => {
  it('a new alert subscription beyond ALERTS_MAX_PER_WORKSPACE is refused; changing an existing one is not', async () => {
    deps = await notifyDeps();
    const d = withLimits(deps, { alerts: 1 });
    await subscribeAlerts(d, WS, { channelId: 'C1', actor: member('U1') });
    await expect(subscribeAlerts(d, WS, { channelId: 'C2', actor: member('U1') })).rejects.toThrow(
      /already has 1 license-failure alert subscriptions.*ALERTS_MAX_PER_WORKSPACE/,
    );
    expect(
      (await subscribeAlerts(d, WS, { channelId: 'C1', actor: member('U1'), ratioPct: 40 })).status,
    ).toBe('updated');
  });

  it('a new digest beyond DIGESTS_MAX_PER_WORKSPACE is refused; moving an existing one is not', async () => {
    deps = await notifyDeps();
    const d = withLimits(deps, { digests: 1 });
    await scheduleDigest(d, WS, { channelId: 'C1', actor: member('U1'), time: '09:00', zone: 'UTC' });
    await expect(
      scheduleDigest(d, WS, { channelId: 'C2', actor: member('U1'), time: '09:00', zone: 'UTC' }),
    ).rejects.toThrow(/already has 1 daily digests.*no longer needed.*DIGESTS_MAX_PER_WORKSPACE/);
    expect(
      (await scheduleDigest(d, WS, { channelId: 'C1', actor: member('U1'), time: '10:00', zone: 'UTC' }))
        .status,
    ).toBe('updated');
  });

  it('a save refused during a rolling upgrade reads as what / why / next, not as an unexpected error', () => {
    const ex = explainError(new StoreNewerDocumentError('Settings of T1'), { refId: 'r1' });
    expect(ex.unexpected).toBe(false);
    expect(ex.next).toBe('Try again in a few minutes, once the upgrade is done.');
  });

  it('the watch layer says what to do without Slack command names; the Slack reply names the command', () => {
    for (const kind of ['waits', 'watches', 'alerts', 'digests'] as const) {
      const e = new WorkspaceLimitError(kind, 2);
      expect(e.message).not.toMatch(/\/(dwm|drm)\b/);
      expect(e.next).not.toMatch(/\/(dwm|drm)\b/);
    }
    expect(explainError(new WorkspaceLimitError('watches', 2), { refId: 'r1' }).next).toContain(
      '/dwm unwatch',
    );
    expect(explainError(new WorkspaceLimitError('alerts', 2), { refId: 'r1' }).next).toContain(
      '/drm alerts stop',
    );
  });

  it('the refusal reads as what / why / next in Slack, not as an unexpected error', () => {
    const ex = explainError(new WorkspaceLimitError('digests', 3), { refId: 'r1' });
    expect(ex).toEqual({
      why: 'This workspace already has 3 daily digests, the most it may have at once.',
      next: "Turn one off that is no longer needed with /dwm digest off in its channel, or ask the bot's operator to raise DIGESTS_MAX_PER_WORKSPACE.",
      unexpected: false,
    });
  });
});
