/**
 * Several watcher replicas (child processes, dev/testing/fault-child.ts mode `replica`) sharing
 * one real redis-server (append-only file, fsync every second, like docker-compose.yml), one
 * emulator and one fake Slack in this process. Used by test/faults/replicas.fault.ts and by the
 * benchmark figure 7 (bench/replicas.ts). Everything listens on 127.0.0.1.
 *
 * Sites are `R000`..: one subscription per site, all in the workspace's general channel.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, Socket } from 'node:net';
import { tmpdir } from 'node:os';
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
import { type PollState, pollStateRepo } from '../../../src/watch/poller.js';
import { Subscriptions } from '../../../src/watch/subscriptions.js';
import { type TestWorkspace, testWorkspace } from '../../harness/index.js';
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

async function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.once('error', rej);
    srv.listen(0, '127.0.0.1', () => {
      const a = srv.address();
      const port = typeof a === 'object' && a ? a.port : 0;
      srv.close(() => res(port));
    });
  });
}

async function waitPort(port: number): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const ok = await new Promise<boolean>((r) => {
      const s = new Socket();
      s.once('connect', () => {
        s.destroy();
        r(true);
      });
      s.once('error', () => r(false));
      s.connect(port, '127.0.0.1');
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`redis-server did not listen on ${port}`);
}

export async function startReplicaRig(o: ReplicaRigOptions): Promise<ReplicaRig> {
  const cleanups: Array<() => Promise<unknown> | unknown> = [];
  const dir = mkdtempSync(join(tmpdir(), 'replicas-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const port = await freePort();
  const redis: ChildProcess = spawn(
    'redis-server',
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--dir',
      dir,
      '--save',
      '',
      '--appendonly',
      'yes',
      '--appendfsync',
      'everysec',
    ],
    { stdio: 'ignore' },
  );
  const redisExited = new Promise<void>((r) => redis.once('exit', () => r()));
  cleanups.push(async () => {
    redis.kill('SIGKILL');
    await redisExited;
  });
  try {
    await waitPort(port);
    const storeUrl = `redis://127.0.0.1:${port}`;
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
