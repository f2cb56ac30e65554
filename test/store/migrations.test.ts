/**
 * Start-up migrations: run once, in order, by one replica under the store's lease (the others
 * wait for them), recorded as applied; a migration that failed half way runs again at the next
 * start; a dead runner's lease expires and another replica takes over.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Migration, runMigrations, type Store } from '../../src/store/index.js';
import { appliedMigrations, MIGRATIONS_LEASE } from '../../src/store/migrations.js';
import { BACKENDS, type Locations, startLocations } from './support/locations.js';

let locs: Locations;
beforeAll(async () => {
  locs = await startLocations();
});
afterAll(async () => {
  await locs?.stop();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function counting(id: string, log: string[], work?: (store: Store) => Promise<void>): Migration {
  return {
    id,
    description: `migration ${id}`,
    async run(store) {
      log.push(id);
      await work?.(store);
    },
  };
}

describe.each(BACKENDS)('runMigrations (%s)', (kind) => {
  it('runs each pending migration once, in order, and records it', async () => {
    const store = await locs.open(locs.fresh(kind));
    const ran: string[] = [];
    const list = [counting('m1', ran), counting('m2', ran)];
    expect((await runMigrations(store, list, { holder: 'r1' })).applied).toEqual(['m1', 'm2']);
    expect(await runMigrations(store, list, { holder: 'r2' })).toEqual({
      applied: [],
      alreadyApplied: ['m1', 'm2'],
      waitedForOther: false,
    });
    // A later release adds one: only that one runs.
    expect((await runMigrations(store, [...list, counting('m3', ran)], { holder: 'r3' })).applied).toEqual([
      'm3',
    ]);
    expect(ran).toEqual(['m1', 'm2', 'm3']);
    expect(await appliedMigrations(store)).toEqual(['m1', 'm2', 'm3']);
    expect(await store.leases.holder(MIGRATIONS_LEASE)).toBeUndefined();
  });

  it('a migration that fails is not recorded and runs again at the next start', async () => {
    const store = await locs.open(locs.fresh(kind));
    const ran: string[] = [];
    let fail = true;
    const list = [
      counting('m1', ran),
      counting('m2', ran, async () => {
        if (fail) throw new Error('store went away half way');
      }),
    ];
    await expect(runMigrations(store, list, { holder: 'r1' })).rejects.toThrow('half way');
    expect(await appliedMigrations(store)).toEqual(['m1']);
    expect(await store.leases.holder(MIGRATIONS_LEASE)).toBeUndefined();
    fail = false;
    expect((await runMigrations(store, list, { holder: 'r1' })).applied).toEqual(['m2']);
    expect(ran).toEqual(['m1', 'm2', 'm2']);
  });

  it('a runner that died holding the lease is taken over once the lease expires', async () => {
    const store = await locs.open(locs.fresh(kind));
    expect(await store.leases.acquire(MIGRATIONS_LEASE, 'dead-replica', 300)).toBe(true);
    const ran: string[] = [];
    const r = await runMigrations(store, [counting('m1', ran)], { holder: 'r2', pollMs: 50, waitMs: 10_000 });
    expect(r).toMatchObject({ applied: ['m1'], waitedForOther: true });
    expect(ran).toEqual(['m1']);
  });

  it('gives up (does not start on unmigrated data) when another replica holds the lease too long', async () => {
    const store = await locs.open(locs.fresh(kind));
    await store.leases.acquire(MIGRATIONS_LEASE, 'busy-replica', 60_000);
    await expect(
      runMigrations(store, [counting('m1', [])], { holder: 'r2', pollMs: 20, waitMs: 100 }),
    ).rejects.toThrow(/still being run by another replica \(busy-replica\)/);
  });
});

describe('replicas starting together', () => {
  it.each(['memory', 'redis'] as const)('agree on one runner; the others wait for it (%s)', async (kind) => {
    const loc = locs.fresh(kind);
    // Redis: three replicas (three stores on one Redis). Memory: one process, three starters.
    const first = await locs.open(loc);
    const stores =
      kind === 'redis' ? [first, await locs.open(loc), await locs.open(loc)] : [first, first, first];
    const ran: string[] = [];
    const slow = counting('m1', ran, async () => {
      await sleep(300);
    });
    const reports = await Promise.all(
      stores.map((s, i) => runMigrations(s, [slow], { holder: `replica-${i}`, pollMs: 25, waitMs: 10_000 })),
    );
    expect(ran).toEqual(['m1']);
    expect(reports.filter((r) => r.applied.length === 1)).toHaveLength(1);
    expect(reports.filter((r) => r.waitedForOther)).toHaveLength(2);
  });

  it('refuses a list with the same id twice', async () => {
    const store = await locs.open(locs.fresh('memory'));
    await expect(
      runMigrations(store, [counting('m1', []), counting('m1', [])], { holder: 'r' }),
    ).rejects.toThrow('listed twice');
  });
});
