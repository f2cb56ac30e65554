/**
 * Migrations of stored data, run once at start-up (docs/operations.md, "Stored data versions and
 * migrations").
 *
 * A migration has an id (never reused) and an idempotent `run`. `runMigrations` runs the ones not
 * yet recorded as applied, in the order given, under ONE store lease (`store-migrations`): with
 * several replicas on Redis, the one that takes the lease runs them and the others wait until
 * they are recorded (or until the lease expires, when a replica died half way: one of them then
 * takes over and runs the rest; `run` being idempotent, running a half-done one again is safe).
 * While it runs, the holder renews the lease. Applied migrations are recorded in one document
 * (`store-meta/_global/migrations`) with when and by whom.
 *
 * A replica of an older release ignores ids it does not know in that record; its own migrations
 * are already applied. The code reading migrated data must still accept what the migration
 * moves (during a rolling upgrade an older replica may keep writing the old layout; see
 * src/watch/migrations.ts for how the waits layout does it).
 */
import type { Store } from './types.js';

export interface Migration {
  /** Unique and never reused, e.g. `2026-11-wf-waits-per-workspace`. */
  id: string;
  /** One line for the log and the operations docs. */
  description: string;
  /** Idempotent: may run again in full after a crash half way. */
  run(store: Store, log: (message: string, fields?: Record<string, unknown>) => void): Promise<void>;
}

export interface MigrationReport {
  /** Run by this replica now. */
  applied: string[];
  /** Already recorded (by this or another replica, before or while we waited). */
  alreadyApplied: string[];
  /** Another replica held the lease and ran them while we waited. */
  waitedForOther: boolean;
}

export interface RunMigrationsOptions {
  /** This replica's lease holder id (unique per process). */
  holder: string;
  /** Lease of the runner, renewed while it runs (default 60 s). */
  leaseMs?: number;
  /** How long a replica waits for another's run before giving up (default 10 min). */
  waitMs?: number;
  /** Between looks at the lease / the record while waiting (default 1 s). */
  pollMs?: number;
  log?: (message: string, fields?: Record<string, unknown>) => void;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

export const MIGRATIONS_LEASE = 'store-migrations';
export const MIGRATIONS_NS = 'store-meta';
const META_KEY = '_global';
const META_ID = 'migrations';

interface AppliedRecord {
  applied: Record<string, { at: string; by: string }>;
}

function appliedRepo(store: Store) {
  return store.docs<AppliedRecord>(MIGRATIONS_NS);
}

/** Ids recorded as applied (any release's). */
export async function appliedMigrations(store: Store): Promise<string[]> {
  const rec = await appliedRepo(store).get(META_KEY, META_ID);
  return Object.keys(rec?.applied ?? {}).sort();
}

export async function runMigrations(
  store: Store,
  migrations: readonly Migration[],
  opts: RunMigrationsOptions,
): Promise<MigrationReport> {
  const ids = new Set<string>();
  for (const m of migrations) {
    if (ids.has(m.id)) throw new Error(`Migration id ${m.id} is listed twice`);
    ids.add(m.id);
  }
  const leaseMs = opts.leaseMs ?? 60_000;
  const waitMs = opts.waitMs ?? 10 * 60_000;
  const pollMs = opts.pollMs ?? 1000;
  const log = opts.log ?? (() => undefined);
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const now = opts.now ?? Date.now;
  const repo = appliedRepo(store);
  const pendingOf = async () => {
    const done = new Set(await appliedMigrations(store));
    return { done, todo: migrations.filter((m) => !done.has(m.id)) };
  };

  let { done, todo } = await pendingOf();
  const initiallyDone = migrations.filter((m) => done.has(m.id)).map((m) => m.id);
  if (todo.length === 0) return { applied: [], alreadyApplied: initiallyDone, waitedForOther: false };

  const startedAt = now();
  let waited = false;
  // Bounded: each turn sleeps pollMs, and the loop ends after waitMs.
  for (;;) {
    if (await store.leases.acquire(MIGRATIONS_LEASE, opts.holder, leaseMs)) break;
    waited = true;
    if (now() - startedAt >= waitMs) {
      throw new Error(
        `Stored data migrations are still being run by another replica (${await store.leases.holder(MIGRATIONS_LEASE).catch(() => 'unknown')}) after ${Math.round(waitMs / 1000)} s; this replica does not start on unmigrated data`,
      );
    }
    await sleep(pollMs);
    ({ done, todo } = await pendingOf());
    if (todo.length === 0) {
      return {
        applied: [],
        alreadyApplied: migrations.map((m) => m.id),
        waitedForOther: true,
      };
    }
  }

  const applied: string[] = [];
  let lost = false;
  const renew = setInterval(
    () => {
      store.leases
        .renew(MIGRATIONS_LEASE, opts.holder, leaseMs)
        .then((held) => {
          if (!held && !lost) {
            lost = true;
            log('the stored data migration lease was lost; another replica may run the rest too');
          }
        })
        .catch(() => undefined);
    },
    Math.max(1000, Math.floor(leaseMs / 3)),
  );
  renew.unref?.();
  try {
    // Under the lease: read again (another replica may have finished them just before).
    ({ done, todo } = await pendingOf());
    for (const m of todo) {
      log('running stored data migration', { migration: m.id, description: m.description });
      await m.run(store, log);
      await repo.update(META_KEY, META_ID, (old) => ({
        applied: { ...(old?.applied ?? {}), [m.id]: { at: new Date(now()).toISOString(), by: opts.holder } },
      }));
      applied.push(m.id);
      log('stored data migration applied', { migration: m.id });
    }
  } finally {
    clearInterval(renew);
    await store.leases.release(MIGRATIONS_LEASE, opts.holder).catch(() => undefined);
  }
  return {
    applied,
    alreadyApplied: migrations.filter((m) => !applied.includes(m.id)).map((m) => m.id),
    waitedForOther: waited,
  };
}
