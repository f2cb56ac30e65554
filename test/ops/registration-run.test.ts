import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AuthError, ServiceError, ValidationError } from '../../src/api/errors.js';
import { nameKey } from '../../src/api/validate.js';
import { readCsv } from '../../src/ops/csv.js';
import { existingLookup } from '../../src/ops/recipients.js';
import {
  parseRecipientLines,
  planRegistration,
  type RegistrationPlan,
} from '../../src/ops/watermarking/registration/plan.js';
import {
  newReport,
  type RegistrationReport,
  registrationReportSchema,
  reportCounts,
  reportCsv,
  resumeRegistration,
  runRegistration,
  summariseReport,
} from '../../src/ops/watermarking/registration/run.js';
import { createStore } from '../../src/store/index.js';
import type { AtomicDocRepo, DocRepo } from '../../src/store/types.js';
import { FakeWatermarkingClient, transportTimeout } from '../support/fake-watermarking.js';

const SITE = 'AB12';
const WS = 'T123';

class MemoryDocs<T> implements DocRepo<T> {
  readonly data = new Map<string, T>();
  puts = 0;
  failPuts = false;
  async get(key: string, id: string) {
    const v = this.data.get(`${key}/${id}`);
    return v === undefined ? undefined : (structuredClone(v) as T);
  }
  async put(key: string, id: string, value: T) {
    this.puts++;
    if (this.failPuts) throw new Error('store down');
    this.data.set(`${key}/${id}`, structuredClone(value));
  }
  async delete(key: string, id: string) {
    this.data.delete(`${key}/${id}`);
  }
  async list(key: string) {
    return [...this.data.keys()].filter((k) => k.startsWith(`${key}/`)).map((k) => k.slice(key.length + 1));
  }
  async deleteAll(key: string) {
    for (const id of await this.list(key)) this.data.delete(`${key}/${id}`);
  }
}

/** The store's docs() flavour, with an atomic update. */
class AtomicMemoryDocs<T> extends MemoryDocs<T> implements AtomicDocRepo<T> {
  async update(key: string, id: string, fn: (old: T | undefined) => T | undefined) {
    const next = fn(await this.get(key, id));
    if (next === undefined) await this.delete(key, id);
    else await this.put(key, id, next);
    return next;
  }
}

function names(n: number, prefix = 'r-') {
  return Array.from({ length: n }, (_, i) => `${prefix}${i}`);
}

async function planFor(fake: FakeWatermarkingClient, lines: string[]): Promise<RegistrationPlan> {
  return planRegistration(parseRecipientLines(lines.join('\n')), existingLookup(fake, SITE));
}

function registerCalls(fake: FakeWatermarkingClient) {
  return fake.callsOf('registerRecipients').map((c) => (c.args[0] as { name: string }[]).map((r) => r.name));
}

/** No name is on the site twice (case-insensitively) and every planned name is there once. */
function expectRegisteredOnce(fake: FakeWatermarkingClient, expected: string[]) {
  const all = fake.allRecipients(SITE).map((r) => nameKey(r.name));
  expect(new Set(all).size).toBe(all.length);
  for (const n of expected) expect(all.filter((x) => x === nameKey(n))).toHaveLength(1);
}

describe('runRegistration', () => {
  it('registers every batch, records dwmIds and the plan skips, reports progress per batch', async () => {
    const fake = new FakeWatermarkingClient({ siteIds: [SITE] });
    fake.seedRecipients(SITE, [{ name: 'Existing' }]);
    const plan = await planFor(fake, [...names(400), 'existing', 'r-1', 'bad name']);
    const progress: number[] = [];
    const report = await runRegistration(fake, SITE, plan, {
      concurrency: 2,
      onProgress: (r) => progress.push(reportCounts(r).batchesDone),
    });
    expect(report.status).toBe('completed');
    expect(registerCalls(fake).map((b) => b.length)).toEqual([150, 150, 100]);
    const c = reportCounts(report);
    expect(c).toMatchObject({
      registered: 400,
      alreadyRegistered: 1,
      duplicatesInInput: 1,
      invalid: 1,
      failed: 0,
      outstanding: 0,
      batchesDone: 3,
      batchesTotal: 3,
    });
    const byName = new Map(fake.allRecipients(SITE).map((r) => [r.name, r.dwmId]));
    for (const r of report.registered) expect(r.dwmId).toBe(byName.get(r.name));
    expect(progress.at(-1)).toBe(3);
    expect(progress.length).toBeGreaterThanOrEqual(3);
    // the line number never goes to the service
    const sent = fake.callsOf('registerRecipients')[0]?.args[0] as object[];
    expect(Object.keys(sent[0] ?? {})).toEqual(['name']);
  });

  it('a failed batch does not hide the successful ones', async () => {
    const fake = new FakeWatermarkingClient({ siteIds: [SITE] });
    const plan = await planFor(fake, names(450));
    let n = 0;
    fake.hook((call) =>
      call.method === 'registerRecipients' && n++ === 1
        ? { before: new ServiceError('wm.registerRecipients', 'E9999', 'Internal error') }
        : undefined,
    );
    const report = await runRegistration(fake, SITE, plan, { concurrency: 1 });
    expect(report.status).toBe('completed');
    const c = reportCounts(report);
    expect(c).toMatchObject({ registered: 300, failed: 150, batchesDone: 2, batchesFailed: 1 });
    expect(
      report.failed.every((f) => f.batch === 1 && f.code === 'E9999' && f.message === 'Internal error'),
    ).toBe(true);
    const s = summariseReport(report);
    expect(s.failedBatches).toEqual([
      { index: 1, kind: 'service', code: 'E9999', message: 'Internal error', names: 150 },
    ]);
    expect(fake.allRecipients(SITE)).toHaveLength(300);
    // not retried: a definite refusal
    expect(registerCalls(fake)).toHaveLength(3);
  });

  it('reconciles an ambiguous failure (applied, then timed out) without double registration', async () => {
    const fake = new FakeWatermarkingClient({ siteIds: [SITE] });
    const plan = await planFor(fake, names(300));
    let n = 0;
    fake.hook((call) =>
      call.method === 'registerRecipients' && n++ === 0 ? { after: transportTimeout() } : undefined,
    );
    const report = await runRegistration(fake, SITE, plan, { concurrency: 1 });
    expect(report.status).toBe('completed');
    expect(reportCounts(report)).toMatchObject({ registered: 300, failed: 0 });
    expect(report.registered.filter((r) => r.reconciled)).toHaveLength(150);
    expect(registerCalls(fake)).toHaveLength(2); // no re-send of the applied batch
    expectRegisteredOnce(fake, names(300));
  });

  it('retries once the names absent after an ambiguous failure that was not applied', async () => {
    const fake = new FakeWatermarkingClient({ siteIds: [SITE] });
    const plan = await planFor(fake, names(10));
    let n = 0;
    fake.hook((call) =>
      call.method === 'registerRecipients' && n++ === 0 ? { before: transportTimeout() } : undefined,
    );
    const report = await runRegistration(fake, SITE, plan);
    expect(reportCounts(report)).toMatchObject({ registered: 10, failed: 0 });
    expect(report.registered.every((r) => !r.reconciled)).toBe(true);
    expect(registerCalls(fake)).toHaveLength(2);
    expectRegisteredOnce(fake, names(10));
  });

  it('gives up after one retry and reports the rows as failed with the transport error', async () => {
    const fake = new FakeWatermarkingClient({ siteIds: [SITE] });
    const plan = await planFor(fake, names(5));
    fake.hook((call) => (call.method === 'registerRecipients' ? { before: transportTimeout() } : undefined));
    const report = await runRegistration(fake, SITE, plan);
    expect(registerCalls(fake)).toHaveLength(2);
    expect(reportCounts(report)).toMatchObject({ registered: 0, failed: 5, batchesFailed: 1 });
    expect(report.failed[0]).toMatchObject({ kind: 'transport' });
  });

  it('handles a duplicate refusal: re-checks by listing and registers the remainder', async () => {
    const fake = new FakeWatermarkingClient({ siteIds: [SITE] });
    const plan = await planFor(fake, names(20));
    // someone else registers r-3 (as R-3) after planning
    fake.seedRecipients(SITE, [{ name: 'R-3' }]);
    const report = await runRegistration(fake, SITE, plan);
    expect(report.status).toBe('completed');
    const c = reportCounts(report);
    expect(c).toMatchObject({ registered: 19, registeredMeanwhile: 1, failed: 0 });
    const meanwhile = report.skipped.find((s) => s.reason === 'registered-meanwhile');
    expect(meanwhile).toMatchObject({ name: 'r-3', dwmId: 1 });
    expect(meanwhile?.detail).toMatch(/"R-3"/);
    const lookups = fake.callsOf('searchRecipients').map((x) => x.args[0] as { keywords?: string[] });
    expect(lookups.at(-1)?.keywords).toBeUndefined(); // listing, not keyword search
    expectRegisteredOnce(fake, names(20));
  });

  it('stops on an auth failure and leaves the rest for resume', async () => {
    const fake = new FakeWatermarkingClient({ siteIds: [SITE] });
    const plan = await planFor(fake, names(450));
    const repo = new MemoryDocs<RegistrationReport>();
    let n = 0;
    const off = fake.hook((call) =>
      call.method === 'registerRecipients' && n++ === 1
        ? { before: new AuthError('wm.token', 'HTTP 401') }
        : undefined,
    );
    const report = await runRegistration(fake, SITE, plan, {
      concurrency: 1,
      reportRepo: repo,
      workspaceKey: WS,
      reportId: 'run1',
    });
    expect(report.status).toBe('interrupted');
    expect(report.interruptedReason).toMatch(/401.*resume/);
    expect(reportCounts(report)).toMatchObject({ registered: 150, outstanding: 300 });
    off();
    const resumed = await resumeRegistration(fake, repo, WS, 'run1');
    expect(resumed.ok).toBe(true);
    if (!resumed.ok) return;
    expect(resumed.report.status).toBe('completed');
    expect(reportCounts(resumed.report)).toMatchObject({ registered: 450, outstanding: 0, failed: 0 });
    expectRegisteredOnce(fake, names(450));
  });

  it('records a validation refusal from the client as a failed batch', async () => {
    const fake = new FakeWatermarkingClient({ siteIds: [SITE] });
    const plan = await planFor(fake, names(3));
    fake.hook(() => ({
      before: new ValidationError('wm.registerRecipients', [{ field: 'name', message: 'bad' }]),
    }));
    const report = await runRegistration(fake, SITE, plan);
    expect(report.failed).toHaveLength(3);
    expect(report.failed[0]).toMatchObject({ kind: 'validation' });
  });

  it('sends nothing while the store cannot record the in-flight mark, warns, and ends interrupted', async () => {
    // A POST the store knows nothing about would be sent again, blindly, by the next resume.
    const fake = new FakeWatermarkingClient({ siteIds: [SITE] });
    const plan = await planFor(fake, names(3));
    const repo = new MemoryDocs<RegistrationReport>();
    repo.failPuts = true;
    const warnings: string[] = [];
    const report = await runRegistration(fake, SITE, plan, {
      reportRepo: repo,
      workspaceKey: WS,
      onWarning: (m) => warnings.push(m),
    });
    expect(fake.callsOf('registerRecipients')).toHaveLength(0);
    expect(report.status).toBe('interrupted');
    expect(report.interruptedReason).toMatch(/store could not be written/);
    expect(warnings.length).toBeGreaterThan(0);
    // Once the store is back, resume sends every name exactly once.
    repo.failPuts = false;
    await repo.put(WS, report.id, report);
    const resumed = await resumeRegistration(fake, repo, WS, report.id, { inFlightGraceMs: 0 });
    if (!resumed.ok) throw new Error(resumed.message);
    expect(reportCounts(resumed.report)).toMatchObject({ registered: 3, failed: 0, outstanding: 0 });
    expect(registerCalls(fake).flat()).toEqual(names(3));
  });

  it('refuses a repo without a workspace key', async () => {
    const fake = new FakeWatermarkingClient({ siteIds: [SITE] });
    const plan = await planFor(fake, names(1));
    await expect(runRegistration(fake, SITE, plan, { reportRepo: new MemoryDocs() })).rejects.toThrow(
      /workspaceKey/,
    );
  });
});

describe('persistence and resume', () => {
  /** Run until the k-th POST, which hangs forever (the process "crashes" there). */
  async function crashAt(k: number, mode: 'before' | 'after') {
    const fake = new FakeWatermarkingClient({ siteIds: [SITE] });
    const all = names(1000);
    const plan = await planFor(fake, all);
    const repo = new AtomicMemoryDocs<RegistrationReport>();
    let n = 0;
    let crashed!: () => void;
    const crashedP = new Promise<void>((r) => {
      crashed = r;
    });
    const never = new Promise<never>(() => {});
    const original = fake.registerRecipients.bind(fake);
    fake.registerRecipients = async (siteId, recipients) => {
      if (n++ === k) {
        if (mode === 'after') await original(siteId, recipients);
        crashed();
        return never;
      }
      return original(siteId, recipients);
    };
    void runRegistration(fake, SITE, plan, {
      concurrency: 1,
      reportRepo: repo,
      workspaceKey: WS,
      reportId: 'job',
    });
    await crashedP;
    // a new process: a fresh client object over the same service state
    fake.registerRecipients = original;
    return { fake, repo, all, plan };
  }

  it('stores the report after every batch and marks the in-flight batch before sending', async () => {
    const { repo } = await crashAt(3, 'before');
    const stored = registrationReportSchema.parse(await repo.get(WS, 'job'));
    expect(stored.batches.map((b) => b.state)).toEqual([
      'done',
      'done',
      'done',
      'sending',
      'pending',
      'pending',
      'pending',
    ]);
    expect(stored.registered).toHaveLength(450);
    expect(stored.status).toBe('running');
  });

  it('every POST goes out only once its batch is stored as sending (concurrent batches, slow store)', async () => {
    const fake = new FakeWatermarkingClient({ siteIds: [SITE] });
    const plan = await planFor(fake, names(1500));
    // A store whose writes take a few event-loop turns, like SQLite or Redis.
    class SlowDocs extends AtomicMemoryDocs<RegistrationReport> {
      override async put(key: string, id: string, value: RegistrationReport) {
        await new Promise((r) => setImmediate(r));
        await new Promise((r) => setImmediate(r));
        await super.put(key, id, value);
      }
    }
    const repo = new SlowDocs();
    const notMarked: number[] = [];
    fake.hook((call) => {
      if (call.method !== 'registerRecipients') return undefined;
      const first = (call.args[0] as { name: string }[])[0]!.name;
      const index = plan.batches.findIndex((b) => b[0]?.name === first);
      // What a process killed right now would leave for the next resume.
      const stored = repo.data.get(`${WS}/job`);
      if (stored?.batches[index]?.state !== 'sending') notMarked.push(index);
      return undefined;
    });
    const report = await runRegistration(fake, SITE, plan, {
      concurrency: 2,
      reportRepo: repo,
      workspaceKey: WS,
      reportId: 'job',
      heartbeatMs: 0,
    });
    expect(report.status).toBe('completed');
    expect(notMarked).toEqual([]);
  });

  it('resume continues without re-sending done batches (crash before the POST arrived)', async () => {
    const { fake, repo, all } = await crashAt(3, 'before');
    const before = fake.callsOf('registerRecipients').length;
    const resumed = await resumeRegistration(fake, repo, WS, 'job', { force: true });
    expect(resumed.ok).toBe(true);
    if (!resumed.ok) return;
    const sentAfter = registerCalls(fake).slice(before).flat();
    expect(sentAfter).toHaveLength(550); // batches 3..6 only
    expect(sentAfter).not.toContain('r-0');
    expect(reportCounts(resumed.report)).toMatchObject({ registered: 1000, failed: 0, outstanding: 0 });
    expectRegisteredOnce(fake, all);
    expect(registrationReportSchema.parse(await repo.get(WS, 'job')).status).toBe('completed');
  });

  it('resume reconciles a batch the service applied just before the crash', async () => {
    const { fake, repo, all } = await crashAt(3, 'after');
    const before = fake.callsOf('registerRecipients').length;
    const resumed = await resumeRegistration(fake, repo, WS, 'job', { force: true });
    if (!resumed.ok) throw new Error(resumed.message);
    const sentAfter = registerCalls(fake).slice(before).flat();
    expect(sentAfter).toHaveLength(400); // batch 3 confirmed by look-up, not re-sent
    expect(resumed.report.registered.filter((r) => r.batch === 3 && r.reconciled)).toHaveLength(150);
    expect(reportCounts(resumed.report)).toMatchObject({ registered: 1000, failed: 0 });
    expectRegisteredOnce(fake, all);
  });

  it('a report still running is not taken over until it is stale (or forced)', async () => {
    const { fake, repo } = await crashAt(1, 'before');
    const sends = () => fake.callsOf('registerRecipients').length;
    const before = sends();
    expect(await resumeRegistration(fake, repo, WS, 'job')).toMatchObject({ ok: false, reason: 'running' });
    expect(sends()).toBe(before);
    const later = Date.now() + 3 * 60_000;
    const resumed = await resumeRegistration(fake, repo, WS, 'job', { now: () => later });
    expect(resumed.ok).toBe(true);
    expect(sends()).toBeGreaterThan(before);
  });

  it('resume with retryFailed re-tries only the failed rows', async () => {
    const fake = new FakeWatermarkingClient({ siteIds: [SITE] });
    const plan = await planFor(fake, names(300));
    const repo = new MemoryDocs<RegistrationReport>();
    let n = 0;
    const off = fake.hook((call) =>
      call.method === 'registerRecipients' && n++ === 0
        ? { before: new ServiceError('wm.registerRecipients', 'E9999', 'busy') }
        : undefined,
    );
    const first = await runRegistration(fake, SITE, plan, {
      concurrency: 1,
      reportRepo: repo,
      workspaceKey: WS,
      reportId: 'x',
    });
    expect(reportCounts(first)).toMatchObject({ registered: 150, failed: 150 });
    off();
    const nothing = await resumeRegistration(fake, repo, WS, 'x');
    expect(nothing).toMatchObject({ ok: false, reason: 'finished' });
    const again = await resumeRegistration(fake, repo, WS, 'x', { retryFailed: true });
    if (!again.ok) throw new Error(again.message);
    expect(reportCounts(again.report)).toMatchObject({ registered: 300, failed: 0 });
    expect(registerCalls(fake).at(-1)).toHaveLength(150);
    expectRegisteredOnce(fake, names(300));
  });

  it('resume of an unknown or corrupt report says so', async () => {
    const fake = new FakeWatermarkingClient({ siteIds: [SITE] });
    const repo = new MemoryDocs<RegistrationReport>();
    expect(await resumeRegistration(fake, repo, WS, 'nope')).toMatchObject({
      ok: false,
      reason: 'not-found',
    });
    await repo.put(WS, 'bad', { version: 2 } as unknown as RegistrationReport);
    expect(await resumeRegistration(fake, repo, WS, 'bad')).toMatchObject({ ok: false, reason: 'corrupt' });
  });
});

describe("resume and the dead runner's POST still in the service (fake clock)", () => {
  /**
   * The window behind a fault-suite flake on a loaded machine: the dead runner marked batch 0
   * `sending` long before its POST reached the service (slow store write, starved process), so
   * "sentAt + grace" is long past when the resumer starts, while the POST is still queued in the
   * service and lands just after the resumer's first look-up. The resumer must not send batch 0.
   */
  it('waits the grace from its own start before re-sending a batch whose outcome is unknown', async () => {
    let t = Date.UTC(2026, 0, 15, 9, 0, 0);
    const now = () => t;
    const fake = new FakeWatermarkingClient({ siteIds: [SITE], now });
    const all = names(300);
    const plan = await planFor(fake, all);
    const repo = new AtomicMemoryDocs<RegistrationReport>();
    // The dead runner's stored report: batch 0 `sending`, marked a minute ago.
    const stored = newReport(plan, SITE, 'job', new Date(t - 60_000).toISOString());
    stored.runId = 'dead-runner';
    stored.batches[0]!.state = 'sending';
    stored.batches[0]!.attempts = 1;
    stored.batches[0]!.sentAt = t - 60_000;
    await repo.put(WS, 'job', stored);
    // Its POST is applied by the service 2 s after the resumer starts (not counted as a call of
    // this client: it was sent by the dead process).
    const landsAt = t + 2_000;
    let landed = false;
    const land = () => {
      if (!landed && t >= landsAt) {
        landed = true;
        fake.seedRecipients(
          SITE,
          plan.batches[0]!.map((e) => ({ name: e.name })),
        );
      }
    };
    const sleep = async (ms: number) => {
      t += ms;
      land();
    };
    const resumed = await resumeRegistration(fake, repo, WS, 'job', {
      force: true,
      now,
      sleep,
      concurrency: 1,
      inFlightGraceMs: 5_000,
      heartbeatMs: 0,
    });
    if (!resumed.ok) throw new Error(resumed.message);
    const sent = registerCalls(fake).flat();
    // Batch 0 is confirmed by the second look-up, never sent again; batch 1 is sent once.
    expect(sent.filter((n) => plan.batches[0]!.some((e) => e.name === n))).toEqual([]);
    expect(sent).toEqual(plan.batches[1]!.map((e) => e.name));
    expect(resumed.report.registered.filter((r) => r.batch === 0 && r.reconciled)).toHaveLength(150);
    expect(reportCounts(resumed.report)).toMatchObject({ registered: 300, failed: 0, outstanding: 0 });
    expectRegisteredOnce(fake, all);
  });

  it('decides with a look-up that started after the grace: the old POST landing during a slow first look-up is found', async () => {
    let t = Date.UTC(2026, 0, 15, 9, 0, 0);
    const start = t;
    const now = () => t;
    const fake = new FakeWatermarkingClient({ siteIds: [SITE], now });
    fake.seedRecipients(SITE, [{ name: 'someone-else' }]);
    const plan = await planFor(fake, names(150));
    const repo = new AtomicMemoryDocs<RegistrationReport>();
    const stored = newReport(plan, SITE, 'job', new Date(t - 60_000).toISOString());
    stored.runId = 'dead-runner';
    stored.batches[0]!.state = 'sending';
    stored.batches[0]!.sentAt = t - 60_000;
    await repo.put(WS, 'job', stored);
    // A loaded machine: every look-up call takes 3 s; the dead runner's POST is applied 4 s after
    // the resumer started, i.e. after the first look-up read the site and before it ended (6 s,
    // past the 5 s grace).
    let landed = false;
    const land = () => {
      if (!landed && t >= start + 4_000) {
        landed = true;
        fake.seedRecipients(
          SITE,
          plan.batches[0]!.map((e) => ({ name: e.name })),
        );
      }
    };
    fake.hook((call) => {
      if (call.method === 'searchRecipients') {
        land();
        t += 3_000;
      }
      return undefined;
    });
    const resumed = await resumeRegistration(fake, repo, WS, 'job', {
      force: true,
      now,
      sleep: async (ms) => {
        t += ms;
        land();
      },
      inFlightGraceMs: 5_000,
      heartbeatMs: 0,
    });
    if (!resumed.ok) throw new Error(resumed.message);
    expect(registerCalls(fake).flat()).toEqual([]);
    expect(resumed.report.registered.filter((r) => r.reconciled)).toHaveLength(150);
    expectRegisteredOnce(fake, names(150));
  });

  it('after a POST timeout, the request still queued in the service is found, not sent again', async () => {
    let t = Date.UTC(2026, 0, 15, 9, 0, 0);
    const now = () => t;
    const fake = new FakeWatermarkingClient({ siteIds: [SITE], now });
    const plan = await planFor(fake, names(150));
    let landsAt = Number.POSITIVE_INFINITY;
    let landed = false;
    const land = () => {
      if (!landed && t >= landsAt) {
        landed = true;
        fake.seedRecipients(
          SITE,
          plan.batches[0]!.map((e) => ({ name: e.name })),
        );
      }
    };
    let n = 0;
    fake.hook((call) => {
      if (call.method !== 'registerRecipients' || n++ > 0) return undefined;
      // The client gives up; the service applies the request 2 s later.
      landsAt = t + 2_000;
      return { before: transportTimeout() };
    });
    const report = await runRegistration(fake, SITE, plan, {
      now,
      sleep: async (ms) => {
        t += ms;
        land();
      },
      inFlightGraceMs: 5_000,
    });
    expect(fake.callsOf('registerRecipients')).toHaveLength(1);
    expect(reportCounts(report)).toMatchObject({ registered: 150, failed: 0, outstanding: 0 });
    expect(report.registered.every((r) => r.reconciled)).toBe(true);
    expectRegisteredOnce(fake, names(150));
  });

  it('a resumer that loses the report during the grace wait sends nothing', async () => {
    let t = Date.UTC(2026, 0, 15, 9, 0, 0);
    const now = () => t;
    const fake = new FakeWatermarkingClient({ siteIds: [SITE], now });
    const plan = await planFor(fake, names(150));
    const repo = new AtomicMemoryDocs<RegistrationReport>();
    const stored = newReport(plan, SITE, 'job', new Date(t - 60_000).toISOString());
    stored.runId = 'dead-runner';
    stored.batches[0]!.state = 'sending';
    stored.batches[0]!.sentAt = t - 60_000;
    await repo.put(WS, 'job', stored);
    const sleep = async (ms: number) => {
      t += ms;
      // A forced resume elsewhere claims the report while this one waits.
      repo.data.get(`${WS}/job`)!.runId = 'the-other-runner';
    };
    const resumed = await resumeRegistration(fake, repo, WS, 'job', {
      force: true,
      now,
      sleep,
      heartbeatMs: 0,
    });
    if (!resumed.ok) throw new Error(resumed.message);
    expect(fake.callsOf('registerRecipients')).toHaveLength(0);
    expect(resumed.report.status).toBe('interrupted');
    expect(registrationReportSchema.parse(await repo.get(WS, 'job')).runId).toBe('the-other-runner');
  });

  it('a runner whose report another runner took over stops before its next POST and keeps its hands off the report', async () => {
    const fake = new FakeWatermarkingClient({ siteIds: [SITE] });
    const plan = await planFor(fake, names(450));
    const repo = new AtomicMemoryDocs<RegistrationReport>();
    let n = 0;
    // Right after the first POST, a forced resume elsewhere claims the report (new runId).
    fake.hook((call) => {
      if (call.method === 'registerRecipients' && n++ === 0) {
        const doc = repo.data.get(`${WS}/job`)!;
        doc.runId = 'the-other-runner';
      }
      return undefined;
    });
    const report = await runRegistration(fake, SITE, plan, {
      concurrency: 1,
      reportRepo: repo,
      workspaceKey: WS,
      reportId: 'job',
      heartbeatMs: 0,
    });
    expect(fake.callsOf('registerRecipients')).toHaveLength(1);
    expect(report.status).toBe('interrupted');
    expect(report.interruptedReason).toMatch(/took over/);
    const after = registrationReportSchema.parse(await repo.get(WS, 'job'));
    expect(after.runId).toBe('the-other-runner');
  });
});

describe('with the real store (memory backend)', () => {
  it('survives a round trip through the store and resumes from it', async () => {
    const store = await createStore({
      url: 'memory://',
      encryptionKey: randomBytes(32).toString('base64'),
      namespace: `ops-test-${randomBytes(4).toString('hex')}`,
    });
    try {
      const repo = store.docs<RegistrationReport>('registration-reports', registrationReportSchema);
      const fake = new FakeWatermarkingClient({ siteIds: [SITE] });
      const plan = await planFor(fake, names(320));
      let n = 0;
      const off = fake.hook((call) =>
        call.method === 'registerRecipients' && n++ === 1
          ? { before: new AuthError('wm.token', 'HTTP 401') }
          : undefined,
      );
      const first = await runRegistration(fake, SITE, plan, {
        concurrency: 1,
        reportRepo: repo,
        workspaceKey: WS,
        reportId: 'r1',
      });
      expect(first.status).toBe('interrupted');
      expect(await repo.list(WS)).toContain('r1');
      off();
      const resumed = await resumeRegistration(fake, repo, WS, 'r1');
      if (!resumed.ok) throw new Error(resumed.message);
      expect(reportCounts(resumed.report)).toMatchObject({ registered: 320, outstanding: 0 });
      expect((await repo.get(WS, 'r1'))?.status).toBe('completed');
      expectRegisteredOnce(fake, names(320));
    } finally {
      await store.close();
    }
  });
});

describe('report CSV and summary', () => {
  it('writes one row per input line, ordered by line, formula-guarded', async () => {
    const fake = new FakeWatermarkingClient({ siteIds: [SITE] });
    fake.seedRecipients(SITE, [{ name: 'old' }]);
    const plan = await planFor(fake, ['-dash', 'old', 'bad name', '-DASH', 'ok']);
    const report = await runRegistration(fake, SITE, plan);
    const csv = reportCsv(report);
    const read = readCsv(csv);
    if (!read.ok) throw new Error('csv');
    const rows = read.records.map((r) => r.cells);
    expect(rows[0]).toEqual(['line', 'name', 'outcome', 'dwm_id', 'detail']);
    expect(rows.slice(1).map((r) => [r[0], r[1], r[2]])).toEqual([
      ['1', '-dash', 'registered'],
      ['2', 'old', 'already-registered'],
      ['3', 'bad name', 'invalid'],
      ['4', '-DASH', 'duplicate-in-input'],
      ['5', 'ok', 'registered'],
    ]);
    expect(csv).toContain("'-dash");
    expect(summariseReport(report)).toMatchObject({ rows: 5, needsCsv: false, status: 'completed' });
  });

  it('asks for a CSV when the report is large', async () => {
    const fake = new FakeWatermarkingClient({ siteIds: [SITE] });
    const report = await runRegistration(fake, SITE, await planFor(fake, names(25)));
    expect(summariseReport(report).needsCsv).toBe(true);
  });
});

describe('10,000 recipients end to end on the fake', () => {
  it('registers all in 67 batches with no duplicates', async () => {
    const fake = new FakeWatermarkingClient({ siteIds: [SITE] });
    const all = names(10_000, 'bulk-');
    const plan = await planFor(fake, all);
    expect(plan.batches).toHaveLength(67);
    const report = await runRegistration(fake, SITE, plan);
    expect(reportCounts(report)).toMatchObject({ registered: 10_000, batchesDone: 67 });
    expect(registerCalls(fake).every((b) => b.length <= 150)).toBe(true);
    expect(fake.allRecipients(SITE)).toHaveLength(10_000);
  });
});
