import { randomBytes } from 'node:crypto';
import { join, resolve } from 'node:path';
import pLimit from 'p-limit';
import { startEmulator } from '../../../dev/emulator/index.js';
import type { EmulatorHandle } from '../../../dev/emulator/types.js';
import { FakeSlack } from '../../../dev/fakeslack/index.js';
import { type ChildHandle, startChild } from '../../../dev/testing/child.js';
import type { ReplicaChildConfig } from '../../../dev/testing/fault-child.js';
import type { WorkspaceCredentials } from '../../../src/api/types.js';
import { createStore } from '../../../src/store/index.js';
import type { Store } from '../../../src/store/types.js';
import { type PollState, pollStateRepo } from '../../../src/watch/poll-state.js';
import { Subscriptions } from '../../../src/watch/subscriptions.js';
import { type TestWorkspace, testWorkspace } from '../../harness/index.js';
import { startRestartableRedis } from './redis-proc.js';
import { deliveryKeyOf, duplicates } from './watch.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const CHILD = join(ROOT, 'dev/testing/fault-child.ts');
export const REPLICA_KEY = '5a9c1a7e5b2d4c6e8a0b1c2d3e4f50617283948a5b6c7d8e9fa0b1c2d3e4f506';

export interface ReplicaRigOptions {
  sites: number;
  intervalMs: number;
  activeIntervalMs: number;
  concurrency: number;
  /** Emulator latency per call, ms. */
  latencyMs?: number;
  targetsCacheMs?: number;
  channelIntervalMs?: number;
  statMs?: number;
}

export interface ReplicaStat {
  cpuMs: number;
  rssMb: number;
  polls: number;
  held: number;
  errors: number;
  at: number;
}

export interface Replica {
  name: string;
  child: ChildHandle;
  stats(): ReplicaStat[];
}

export interface ReplicaRig {
  emu: EmulatorHandle;
  fake: FakeSlack;
  store: Store;
  ws: TestWorkspace;
  sites: string[];
  replicas: Replica[];
  spawn(name: string): Promise<Replica>;
  /** Lease holder of each site (undefined when free). */
  holders(): Promise<Map<string, string | undefined>>;
  /** Start time of each site's (or these sites') last poll cycle, from the stored poll states. */
  lastCycles(only?: string[]): Promise<Map<string, number | undefined>>;
  keys(): string[];
  duplicateKeys(): string[];
  close(): Promise<void>;
}

export async function startReplicaRig(o: ReplicaRigOptions): Promise<ReplicaRig> {
  const cleanups: Array<() => Promise<unknown> | unknown> = [];
  // The store's Redis, with its append-only file (fsync every second, as in docker-compose.yml).
  const redis = await startRestartableRedis({ appendfsync: 'everysec' });
  cleanups.push(() => redis.stop());
  try {
    const storeUrl = redis.url;
    const namespace = `replicas-${randomBytes(4).toString('hex')}`;
    const sites = Array.from(
      { length: o.sites },
      (_, i) => `R${i.toString(36).toUpperCase().padStart(3, '0')}`,
    );
    const emu = await startEmulator({ seed: false, latencyMs: o.latencyMs ?? 0 });
    cleanups.push(() => emu.close());
    const accessKey = `AK${randomBytes(12).toString('hex')}`;
    emu.addWatermarkingAccount({ accountId: 'replicas-wm', accessKey, siteIds: sites });
    const creds: WorkspaceCredentials = {
      siteIds: sites,
      defaultSiteId: sites[0] as string,
      watermarking: { accountId: 'replicas-wm', accessKey, baseUrl: emu.wmBaseUrl },
    };
    const fake = await FakeSlack.start();
    cleanups.push(() => fake.close());
    const { spec, ...ws } = testWorkspace(0);
    fake.addWorkspace(spec);
    const store = await createStore({ url: storeUrl, encryptionKey: REPLICA_KEY, namespace });
    cleanups.push(() => store.close());
    const subs = new Subscriptions(store);
    const limit = pLimit(32);
    await Promise.all(
      sites.map((site) =>
        limit(() =>
          subs.create(ws.teamId, {
            channelId: ws.channel,
            siteId: site,
            filters: { statuses: [], mode: 'all' },
            createdBy: 'U0REPLICA',
          }),
        ),
      ),
    );
    const replicas: Replica[] = [];
    const config = (holderId: string): ReplicaChildConfig => ({
      mode: 'replica',
      storeUrl,
      encryptionKey: REPLICA_KEY,
      namespace,
      holderId,
      creds,
      slackApiUrl: fake.apiUrl,
      botToken: ws.botToken,
      intervalMs: o.intervalMs,
      activeIntervalMs: o.activeIntervalMs,
      concurrency: o.concurrency,
      targetsCacheMs: o.targetsCacheMs ?? 5000,
      channelIntervalMs: o.channelIntervalMs ?? 20,
      statMs: o.statMs ?? 1000,
    });
    const polls = pollStateRepo(store);
    const rig: ReplicaRig = {
      emu,
      fake,
      store,
      ws,
      sites,
      replicas,
      async spawn(name) {
        const child = startChild(CHILD, { FAULT_CHILD_CONFIG: JSON.stringify(config(name)) }, ROOT);
        cleanups.push(() => child.kill9());
        await child.waitLine(/^READY$/, 60_000);
        const r: Replica = {
          name,
          child,
          stats: () =>
            child
              .lines()
              .filter((l) => l.startsWith('STAT '))
              .map((l) => JSON.parse(l.slice(5)) as ReplicaStat),
        };
        replicas.push(r);
        return r;
      },
      async holders() {
        const out = new Map<string, string | undefined>();
        const limit = pLimit(32);
        await Promise.all(
          sites.map((s) =>
            limit(async () => out.set(s, await store.leases.holder(`poll:${ws.teamId}:${s}`))),
          ),
        );
        return out;
      },
      async lastCycles(only) {
        const out = new Map<string, number | undefined>();
        const limit = pLimit(32);
        await Promise.all(
          (only ?? sites).map((s) =>
            limit(async () => {
              const st: PollState | undefined = await polls.get(ws.teamId, s);
              out.set(s, st?.lastCycleStartMs);
            }),
          ),
        );
        return out;
      },
      keys: () =>
        fake
          .allMessages()
          .map(deliveryKeyOf)
          .filter((k): k is string => k !== undefined),
      duplicateKeys: () => duplicates(rig.keys()),
      async close() {
        for (const c of cleanups.splice(0).reverse()) await Promise.resolve(c()).catch(() => undefined);
      },
    };
    return rig;
  } catch (e) {
    for (const c of cleanups.splice(0).reverse()) await Promise.resolve(c()).catch(() => undefined);
    throw e;
  }
}
