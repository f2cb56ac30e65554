/**
 * Data written by each earlier release (test/store/fixtures/<version>/) is read by this one once
 * the start-up migrations ran, on every backend: nothing lost, the old layout gone.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AlertSubscriptions } from '../../src/notices/alert-subscriptions.js';
import { DigestSchedules } from '../../src/notices/digest-schedules.js';
import { RequestTracker } from '../../src/notices/requests.js';
import { runMigrations } from '../../src/store/index.js';
import { appliedMigrations } from '../../src/store/migrations.js';
import {
  type JobWait,
  listWaits,
  listWaitsFromGlobalIndex,
  WAITS_INDEX_NAMESPACE,
  waitsRepo,
  waitWorkspaces,
} from '../../src/watch/job-waits.js';
import { WATCH_MIGRATIONS } from '../../src/watch/migrations.js';
import { Subscriptions } from '../../src/watch/subscriptions.js';
import { FIXTURE_KEY, fixtureVersions, loadFixture } from './fixtures/load.js';
import { BACKENDS, type Locations, startLocations } from './support/locations.js';

let locs: Locations;
beforeAll(async () => {
  locs = await startLocations();
});
afterAll(async () => {
  await locs?.stop();
});

const A = 'T0FIXA';
const B = 'T0FIXB';

describe.each(fixtureVersions())('the stored layout of release %s', (version) => {
  it.each(BACKENDS)('is read after the start-up migrations (%s)', async (kind) => {
    const loc = locs.fresh(kind);
    const { backend, keys } = await locs.raw(loc);
    expect(await loadFixture(backend, version, keys.root)).toBeGreaterThan(10);
    const store = await locs.open(loc, { encryptionKey: FIXTURE_KEY });

    const report = await runMigrations(store, WATCH_MIGRATIONS, { holder: 'test-replica' });
    expect(report.applied).toEqual(WATCH_MIGRATIONS.map((m) => m.id));
    expect(await appliedMigrations(store)).toEqual(WATCH_MIGRATIONS.map((m) => m.id).sort());

    // Workflow waits: every wait of every workspace, listed per workspace; the global index gone.
    expect((await listWaits(store, A)).map((w) => w.executionId)).toEqual([
      'FxT0FIXA0',
      'FxT0FIXA1',
      'FxT0FIXA2',
    ]);
    expect((await listWaits(store, B)).map((w) => w.executionId)).toEqual(['FxT0FIXB0', 'FxT0FIXB1']);
    expect((await waitWorkspaces(store)).sort()).toEqual([A, B]);
    expect(await store.docs(WAITS_INDEX_NAMESPACE).list('_global')).toEqual([]);

    // Everything else of the release reads as it was written.
    expect(await store.installations.get(A)).toMatchObject({ team: { id: A } });
    expect((await store.credentials.get(A))?.credentials.defaultSiteId).toBe('SIT1');
    expect(await store.settings.get(A)).toEqual({ adminUserIds: ['U0ADMIN'], auditChannelId: 'C0AUDIT' });
    expect((await store.audit.list(A)).map((e) => e.action)).toEqual(['setup.save']);
    const subs = new Subscriptions(store);
    expect((await subs.list(A)).map((s) => s.channelId)).toEqual(['C0WATCH']);
    expect((await subs.workspaces()).sort()).toEqual([A, B]);
    expect((await new DigestSchedules(store).list(A)).map((d) => d.time)).toEqual(['09:00']);
    expect((await new AlertSubscriptions(store).list(A)).map((a) => a.channelId)).toEqual(['C0ALR']);
    expect((await new RequestTracker(store).list(A)).map((r) => r.requestId)).toEqual(['R1']);

    // Once only: a second start (or another replica) finds them applied and changes nothing.
    const again = await runMigrations(store, WATCH_MIGRATIONS, { holder: 'another-replica' });
    expect(again.applied).toEqual([]);
    expect((await listWaits(store)).length).toBe(5);
  });
});

describe.each(BACKENDS)('a rolling upgrade from release 0.1.0 (%s)', (kind) => {
  it('a wait a 0.1.0 replica adds after the migration (to its global index) is listed by the new replicas', async () => {
    const loc = locs.fresh(kind);
    const { backend, keys } = await locs.raw(loc);
    await loadFixture(backend, '0.1.0', keys.root);
    const store = await locs.open(loc, { encryptionKey: FIXTURE_KEY });
    await runMigrations(store, WATCH_MIGRATIONS, { holder: 'new-replica' });

    // What 0.1.0's addWait does: the wait under its workspace, then an item in the global index.
    const wait: JobWait = {
      executionId: 'Fx-old-replica',
      workspace: 'T0FIXC',
      siteId: 'SIT3',
      kind: 'job',
      target: 'job-9',
      deadline: Date.now() + 3_600_000,
      createdAt: Date.now(),
      state: 'pending',
    };
    await waitsRepo(store).update('T0FIXC', wait.executionId, () => wait, 7_200_000);
    await store
      .docs<{ items: Array<{ workspace: string; executionId: string }> }>(WAITS_INDEX_NAMESPACE)
      .update('_global', 'pending', (old) => ({
        items: [...(old?.items ?? []), { workspace: 'T0FIXC', executionId: wait.executionId }],
      }));
    // The 0.1.0 replica still sees it in its own listing until a new replica lists.
    expect((await listWaitsFromGlobalIndex(store)).map((w) => w.executionId)).toEqual([wait.executionId]);

    const all = await listWaits(store);
    expect(all.map((w) => w.executionId)).toContain(wait.executionId);
    expect(all).toHaveLength(6);
    expect(await waitWorkspaces(store)).toContain('T0FIXC');
    expect((await listWaits(store, 'T0FIXC')).map((w) => w.executionId)).toEqual([wait.executionId]);
    expect(await store.docs(WAITS_INDEX_NAMESPACE).list('_global')).toEqual([]);
  });
});
