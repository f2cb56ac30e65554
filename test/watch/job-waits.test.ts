/**
 * Durable workflow waits (Slack-free): exactly one completion per wait across replicas (two
 * store connections on one Redis, and two runtimes on one in-process store), after a crash
 * between the claim and the send, on timeout (virtual clock), and through failing checks.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStore } from '../../src/store/index.js';
import type { Store } from '../../src/store/types.js';
import { FakeClock } from '../../src/watch/clock.js';
import {
  addWait,
  type CompletionPort,
  createJobWaitsRuntime,
  type JobWait,
  listWaits,
  type WaitCheck,
  waitsRepo,
} from '../../src/watch/job-waits.js';
import { startTestRedis, type TestRedis } from '../support/redis.js';
import { ENCRYPTION_KEY } from './support/harness.js';

function recordingPort() {
  const sent: Array<{ id: string; ok: boolean; payload: unknown }> = [];
  const port: CompletionPort = {
    async complete(w, outputs) {
      sent.push({ id: w.executionId, ok: true, payload: outputs });
      return 'sent';
    },
    async fail(w, error) {
      sent.push({ id: w.executionId, ok: false, payload: error });
      return 'sent';
    },
  };
  return { port, sent };
}

const T0 = Date.UTC(2026, 10, 25, 8, 0, 0);

function wait(id: string, o: Partial<JobWait> = {}) {
  return {
    executionId: id,
    workspace: 'T0TEST0A',
    siteId: 'DEMO',
    kind: 'job' as const,
    target: '4812',
    deadline: T0 + 3_600_000,
    createdAt: T0,
    ...o,
  };
}

describe('job waits on one store', () => {
  let store: Store;
  beforeAll(async () => {
    store = await createStore({ url: 'memory://', encryptionKey: ENCRYPTION_KEY });
  });
  afterAll(async () => {
    await store?.close();
  });

  it('completes once when the job finishes; two runtimes and repeated passes send nothing more', async () => {
    const clock = new FakeClock(T0);
    const { port, sent } = recordingPort();
    let finished = false;
    const check = async (): Promise<WaitCheck> =>
      finished ? { done: true, ok: true, outputs: { status: 'COMPLETED' } } : { done: false };
    const a = createJobWaitsRuntime({ store, port, check, clock });
    const b = createJobWaitsRuntime({ store, port, check, clock });
    expect(await addWait(store, wait('Fx-once'), clock.now.bind(clock))).toBe(true);
    // The same event delivered again keeps the first wait.
    expect(await addWait(store, wait('Fx-once', { target: '9999' }), clock.now.bind(clock))).toBe(false);
    await Promise.all([a.tick(), b.tick()]);
    expect(sent).toEqual([]);
    finished = true;
    await Promise.all([a.tick(), b.tick(), a.tick(), b.settle('T0TEST0A', 'Fx-once')]);
    await Promise.all([a.tick(), b.tick()]);
    expect(sent).toEqual([{ id: 'Fx-once', ok: true, payload: { status: 'COMPLETED' } }]);
    expect((await listWaits(store)).map((w) => w.executionId)).not.toContain('Fx-once');
    expect((await waitsRepo(store).get('T0TEST0A', 'Fx-once'))?.target).toBe('4812');
  });

  it('fails with a clear message at the deadline, not before; a failing check is retried', async () => {
    const clock = new FakeClock(T0);
    const { port, sent } = recordingPort();
    let calls = 0;
    const errors: string[] = [];
    const rt = createJobWaitsRuntime({
      store,
      port,
      clock,
      check: async () => {
        calls++;
        throw new Error('service down');
      },
      onError: (m) => errors.push(m),
    });
    await addWait(store, wait('Fx-timeout'), clock.now.bind(clock));
    await rt.tick();
    clock.advance(30 * 60_000);
    await rt.tick();
    expect(sent).toEqual([]);
    expect(calls).toBe(2);
    expect(errors[0]).toMatch(/tried again/);
    clock.advance(31 * 60_000);
    await rt.tick();
    expect(sent).toHaveLength(1);
    expect(sent[0]!.ok).toBe(false);
    expect(String(sent[0]!.payload)).toContain('Job 4812 on site DEMO did not finish within 1 hour');
    await rt.tick();
    expect(sent).toHaveLength(1);
  });

  it('after a crash between the claim and the send, a new runtime sends the stored result once', async () => {
    const clock = new FakeClock(T0);
    await addWait(store, wait('Fx-crash'), clock.now.bind(clock));
    // The dead process claimed it (state completing, its result stored) and its lease expired.
    await waitsRepo(store).update('T0TEST0A', 'Fx-crash', (old) =>
      old
        ? { ...old, state: 'completing', holder: 'dead', result: { ok: true, outputs: { status: 'ERROR' } } }
        : old,
    );
    const { port, sent } = recordingPort();
    const rt = createJobWaitsRuntime({
      store,
      port,
      clock,
      check: async () => ({ done: true, ok: true, outputs: { status: 'COMPLETED' } }),
    });
    await rt.tick();
    await rt.tick();
    expect(sent.filter((s) => s.id === 'Fx-crash')).toEqual([
      { id: 'Fx-crash', ok: true, payload: { status: 'ERROR' } },
    ]);
  });

  it('a send that fails is retried on the next pass with the same result', async () => {
    const clock = new FakeClock(T0);
    await addWait(store, wait('Fx-retry'), clock.now.bind(clock));
    const sent: unknown[] = [];
    let failNext = true;
    const rt = createJobWaitsRuntime({
      store,
      clock,
      onError: () => undefined,
      port: {
        async complete(_w, outputs) {
          if (failNext) {
            failNext = false;
            throw new Error('slack down');
          }
          sent.push(outputs);
          return 'sent';
        },
        async fail() {
          throw new Error('not expected');
        },
      },
      check: async () => ({ done: true, ok: true, outputs: { n: 1 } }),
    });
    await rt.tick();
    expect(sent).toEqual([]);
    await rt.tick();
    expect(sent).toEqual([{ n: 1 }]);
  });
});

describe('job waits across two replicas (two connections to one Redis)', () => {
  let redis: TestRedis;
  let s1: Store;
  let s2: Store;
  const ns = `waits-${process.pid}`;
  beforeAll(async () => {
    redis = await startTestRedis();
    s1 = await createStore({ url: redis.url, encryptionKey: ENCRYPTION_KEY, namespace: ns });
    s2 = await createStore({ url: redis.url, encryptionKey: ENCRYPTION_KEY, namespace: ns });
  }, 30_000);
  afterAll(async () => {
    await s1?.close();
    await s2?.close();
    await redis?.stop([ns]);
  });

  it('each wait is completed by exactly one replica', async () => {
    const clock = new FakeClock(T0);
    const { port, sent } = recordingPort();
    const check = async (): Promise<WaitCheck> => ({
      done: true,
      ok: true,
      outputs: { status: 'COMPLETED' },
    });
    const ids = Array.from({ length: 8 }, (_, i) => `Fx-r${i}`);
    for (const id of ids) await addWait(s1, wait(id), clock.now.bind(clock));
    const r1 = createJobWaitsRuntime({ store: s1, port, check, clock });
    const r2 = createJobWaitsRuntime({ store: s2, port, check, clock });
    await Promise.all([r1.tick(), r2.tick(), r1.tick(), r2.tick()]);
    await Promise.all([r1.tick(), r2.tick()]);
    expect(sent.map((s) => s.id).sort()).toEqual([...ids].sort());
    expect(await listWaits(s2)).toEqual([]);
  });
});
