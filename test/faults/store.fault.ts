/**
 * Store faults: Redis killed (SIGKILL) and restarted under load, and two bot replicas (child
 * processes) on one Redis with the lease holder killed: the lease moves, nothing is notified
 * twice, nothing acknowledged is lost.
 */
import { randomBytes } from 'node:crypto';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator } from '../../dev/emulator/index.js';
import { FakeSlack } from '../../dev/fakeslack/index.js';
import { type ChildHandle, startChild } from '../../dev/testing/child.js';
import type { WatchChildConfig } from '../../dev/testing/fault-child.js';
import { createStore } from '../../src/store/index.js';
import { testWorkspace } from '../harness/index.js';
import { type FrozenRedis, freezeRedis } from '../store/redis-freeze.js';
import { type RestartableRedis, startRestartableRedis } from './support/redis-proc.js';
import { randInt, scenarioRandom } from './support/seed.js';
import { scenario } from './support/summary.js';
import { unhandledSoFar } from './support/unhandled.js';
import {
  completeness,
  deliveryKeyOf,
  digestTexts,
  ENCRYPTION_KEY,
  SITE,
  startWatchRig,
  subscribeAll,
} from './support/watch.js';

const ROOT = resolve(import.meta.dirname, '../..');
const CHILD = join(ROOT, 'dev/testing/fault-child.ts');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('Redis restarted under load', () => {
  it('poll cycles and writes stall during the outage and complete after it; nothing lost or doubled', async () => {
    await scenario(
      {
        scenario: 'store: Redis kill -9 + restart under load',
        injected: 'SIGKILL redis mid-cycle, 1.5 s down',
      },
      async () => {
        const redis: RestartableRedis = await startRestartableRedis();
        cleanups.push(() => redis.stop());
        const rig = await startWatchRig({
          storeUrl: redis.url,
          namespace: `f-${randomBytes(3).toString('hex')}`,
        });
        cleanups.push(async () => {
          await redis.start().catch(() => undefined);
          await rig.close();
        });
        const w = rig.watcher();
        await subscribeAll(rig, w);
        const jobs: number[] = [];
        let acked = 0;
        let inflightErrors = 0;
        let cycleErrors = 0;
        let writing = true;
        // Load: document writes in a loop; each one acknowledged must survive the restart.
        const docs = rig.store.docs<{ n: number }>('faults-load');
        const ackedIds: string[] = [];
        // The writer can be held between two writes (while Redis is frozen below, nothing of it
        // may be half-processed by Redis).
        let hold: { idle: () => void; go: Promise<void> } | undefined;
        const holdWriter = async () => {
          let go!: () => void;
          const gone = new Promise<void>((r) => {
            go = r;
          });
          await new Promise<void>((idle) => {
            hold = { idle, go: gone };
          });
          return () => {
            hold = undefined;
            go();
          };
        };
        const writer = (async () => {
          for (let n = 0; writing; n++) {
            if (hold) {
              hold.idle();
              await hold.go;
            }
            try {
              await docs.put(rig.ws.teamId, `w${n}`, { n });
              ackedIds.push(`w${n}`);
              acked++;
            } catch {
              // In flight when Redis died: not acknowledged (may or may not be stored).
              inflightErrors++;
            }
            await sleep(2);
          }
        })();
        for (let i = 0; i < 8; i++) {
          jobs.push(rig.emu.createJob(SITE, `redis-${i}`, [{ recipient: `r${i}` }]));
          if (i >= 2) rig.emu.finishJob(SITE, jobs[i - 2]!);
          rig.clock.advance(60_000);
          // Redis frozen first so that, whatever the machine's load, the kill below lands while a
          // command of this cycle is sent and waiting for its reply (a loaded machine used to hit
          // that by chance only).
          let frozen: FrozenRedis | undefined;
          let releaseWriter: (() => void) | undefined;
          if (i === 4) {
            releaseWriter = await holdWriter();
            frozen = await freezeRedis(redis.url, redis.port);
          }
          // The handler is attached where the cycle starts: it rejects while Redis is down (its
          // call in flight fails at the kill), up to 1.5 s before the loop gets back to it, and a
          // handler attached only then left an unhandled rejection behind.
          const cycle = w.pollOnce(rig.ws.teamId, SITE).then(
            () => undefined,
            () => {
              cycleErrors++;
            },
          );
          if (frozen && releaseWriter) {
            // Kill Redis while a call of the cycle and one of the writer are in flight (both fail);
            // calls made during the outage are queued and resume after the restart.
            await frozen.untilMoreUnread('the poll cycle has a command waiting in the frozen Redis');
            frozen.mark();
            releaseWriter();
            await frozen.untilMoreUnread('the writer has a command waiting in the frozen Redis');
            await redis.kill9();
            await sleep(1500);
            await redis.start();
          }
          // A cycle whose store call was in flight when Redis died fails (the watcher's tick logs it
          // and polls again next interval); queued calls wait for the reconnect.
          await cycle;
        }
        // The cycle and the write that were in flight at the kill failed, as the scenario intends.
        expect(cycleErrors).toBeGreaterThanOrEqual(1);
        expect(inflightErrors).toBeGreaterThanOrEqual(1);
        for (const j of jobs.slice(-2)) rig.emu.finishJob(SITE, j);
        for (let i = 0; i < 4; i++) {
          rig.clock.advance(60_000);
          await w.pollOnce(rig.ws.teamId, SITE);
        }
        writing = false;
        await writer;
        const c = completeness(rig.keys(), rig.ws.teamId, rig.ws.channel, jobs);
        expect(c.missing).toEqual([]);
        expect(c.duplicated).toBe(0);
        let kept = 0;
        for (const id of ackedIds) if ((await docs.get(rig.ws.teamId, id))?.n === Number(id.slice(1))) kept++;
        expect(kept).toBe(acked);
        // Killing Redis must leave no unhandled rejection behind (the Redis client's socket errors
        // are handled by the store).
        const unhandled = unhandledSoFar();
        expect(unhandled).toEqual([]);
        return {
          outcome: `${cycleErrors} cycle + ${inflightErrors} write errors in flight; ${jobs.length} jobs once; ${acked} acked writes kept; no unhandled rejection`,
          lost: c.lost,
          duplicated: c.duplicated,
        };
      },
    );
  }, 90_000);
});

describe('two replicas on one Redis, the lease holder killed', () => {
  it('the lease moves to the survivor and nothing is notified twice (3 kills)', async () => {
    const rand = scenarioRandom('replicas');
    await scenario(
      { scenario: 'store: 2 replicas, holder kill -9 x3', injected: 'SIGKILL the lease holder, restart it' },
      async () => {
        const redis = await startRestartableRedis();
        cleanups.push(() => redis.stop());
        const emu = await startEmulator({ seed: false });
        cleanups.push(() => emu.close());
        const accessKey = `AK${randomBytes(12).toString('hex')}`;
        emu.addWatermarkingAccount({ accountId: 'replica-wm', accessKey, siteIds: [SITE] });
        const fake = await FakeSlack.start();
        cleanups.push(() => fake.close());
        const { spec, ...ws } = testWorkspace(0);
        fake.addWorkspace(spec);
        const namespace = `r-${randomBytes(3).toString('hex')}`;
        const base = (holderId: string): WatchChildConfig => ({
          mode: 'watch',
          storeUrl: redis.url,
          namespace,
          encryptionKey: ENCRYPTION_KEY,
          workspace: ws.teamId,
          siteId: SITE,
          creds: {
            siteIds: [SITE],
            defaultSiteId: SITE,
            watermarking: { accountId: 'replica-wm', accessKey, baseUrl: emu.wmBaseUrl },
          },
          holderId,
          channel: ws.channel,
          slackApiUrl: fake.apiUrl,
          botToken: ws.botToken,
          intervalMs: 250,
          tickMs: 100,
          leaseTtlMs: 1500,
          channelIntervalMs: 10,
        });
        const store = await createStore({ url: redis.url, encryptionKey: ENCRYPTION_KEY, namespace });
        cleanups.push(() => store.close());
        const lease = `poll:${ws.teamId}:${SITE}`;
        const replicas = new Map<string, ChildHandle>();
        let gen = 0;
        const spawnReplica = async (name: string) => {
          const h = startChild(CHILD, { FAULT_CHILD_CONFIG: JSON.stringify(base(`${name}-${++gen}`)) }, ROOT);
          cleanups.push(() => h.kill9());
          replicas.set(name, h);
          await h.waitLine(/^READY/, 20_000);
          return h;
        };
        await spawnReplica('a');
        await spawnReplica('b');
        // Baseline by whoever got the lease first.
        const until = Date.now() + 10_000;
        while (!(await store.leases.holder(lease)) && Date.now() < until) await sleep(100);
        await sleep(600);
        const jobs: number[] = [];
        const holders: string[] = [];
        for (let round = 0; round < 3; round++) {
          for (let k = 0; k < 3; k++)
            jobs.push(emu.createJob(SITE, `rep-${round}-${k}`, [{ recipient: `x${round}${k}` }]));
          await sleep(randInt(rand, 300, 900));
          // Kill whoever holds the lease now. On a loaded machine a renewal can come late and the
          // lease lapse for a moment before a replica takes it again: wait for a holder.
          const held = Date.now() + 10_000;
          let holder = await store.leases.holder(lease);
          while (!holder && Date.now() < held) {
            await sleep(50);
            holder = await store.leases.holder(lease);
          }
          expect(holder).toBeTruthy();
          holders.push(holder!);
          const name = holder!.split('-')[0]!;
          await replicas.get(name)!.kill9();
          for (const j of jobs.slice(-3)) emu.finishJob(SITE, j);
          // The survivor takes the lease once the dead holder's expires.
          const deadline = Date.now() + 10_000;
          let next = holder;
          while ((next === holder || !next) && Date.now() < deadline) {
            await sleep(100);
            next = await store.leases.holder(lease);
          }
          expect(next).toBeTruthy();
          expect(next).not.toBe(holder);
          holders.push(`->${next}`);
          await spawnReplica(name);
        }
        const keys = () =>
          fake
            .allMessages()
            .map(deliveryKeyOf)
            .filter((k): k is string => k !== undefined);
        const deadline = Date.now() + 30_000;
        while (
          Date.now() < deadline &&
          completeness(keys(), ws.teamId, ws.channel, jobs, 'DM500', digestTexts(fake.allMessages())).lost > 0
        )
          await sleep(200);
        await sleep(1000);
        const c = completeness(keys(), ws.teamId, ws.channel, jobs, 'DM500', digestTexts(fake.allMessages()));
        expect(c.missing).toEqual([]);
        expect(c.duplicated).toBe(0);
        return {
          outcome: `lease ${holders.join(' ')}; ${jobs.length} jobs notified once`,
          lost: c.lost,
          duplicated: c.duplicated,
        };
      },
    );
  }, 120_000);
});
