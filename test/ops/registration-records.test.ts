/** Drafts, run records and the pending index of src/ops/watermarking/registration/records.ts, on a memory store. */
import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readCsv } from '../../src/ops/csv.js';
import { parseRecipientLines, planRegistration } from '../../src/ops/watermarking/registration/plan.js';
import {
  clearPending,
  draftInputs,
  listPending,
  loadDraft,
  loadRun,
  markPending,
  planIssuesCsv,
  type RegistrationDraft,
  reportRepo,
  resumeRun,
  saveDraft,
  startRun,
} from '../../src/ops/watermarking/registration/records.js';
import { newReport } from '../../src/ops/watermarking/registration/run.js';
import { createStore } from '../../src/store/index.js';
import type { Store } from '../../src/store/types.js';
import { FakeWatermarkingClient } from '../support/fake-watermarking.js';

let store: Store;
const deps = () => ({ store, now: () => Date.UTC(2026, 0, 2) });

beforeEach(async () => {
  store = await createStore({ url: 'memory://', encryptionKey: randomBytes(32).toString('base64') });
});
afterEach(async () => {
  await store.close();
});

const draft = (over: Partial<RegistrationDraft> = {}): RegistrationDraft => ({
  id: 'd1',
  userId: 'U1',
  siteId: 'DEMO',
  text: 'a\nb',
  createdAt: '2026-01-02T00:00:00.000Z',
  ...over,
});

describe('drafts', () => {
  it('round-trips, and another user cannot read a draft by its id', async () => {
    await saveDraft(deps(), 'T1', draft());
    expect((await loadDraft(deps(), 'T1', 'd1', 'U1'))?.text).toBe('a\nb');
    expect(await loadDraft(deps(), 'T1', 'd1', 'U2')).toBeUndefined();
    expect(await loadDraft(deps(), 'T2', 'd1', 'U1')).toBeUndefined();
  });

  it('a file wins as CSV input; text alone is lines', () => {
    expect(draftInputs(draft())).toEqual([{ text: 'a\nb', format: 'lines' }]);
    expect(draftInputs(draft({ text: '', file: { name: 'f.csv', content: 'x', lines: 1 } }))).toEqual([
      { text: 'x', format: 'csv' },
    ]);
  });
});

describe('planIssuesCsv', () => {
  it('lists invalid, duplicate and already-registered lines in line order, formula-guarded', async () => {
    const plan = await planRegistration(
      parseRecipientLines('ok\n=bad\nOK\nexisting'),
      async () =>
        new Map([
          ['existing', { dwmId: 7, name: 'Existing', description: '', regTime: { raw: '', epochMs: null } }],
        ]),
    );
    const read = readCsv(planIssuesCsv(plan));
    expect(read.ok).toBe(true);
    if (!read.ok) return;
    expect(read.records.map((r) => r.cells.slice(0, 3))).toEqual([
      ['line', 'name', 'outcome'],
      ['2', '=bad', 'invalid'],
      ['3', 'OK', 'duplicate-in-input'],
      ['4', 'existing', 'already-registered'],
    ]);
    expect(planIssuesCsv(plan)).toContain("'=bad");
  });
});

describe('runs and the pending index', () => {
  it('marks pending before the first batch and clears it at the end; the report is stored', async () => {
    const wm = new FakeWatermarkingClient({ siteIds: ['DEMO'] });
    const plan = await planRegistration(parseRecipientLines('r1\nr2\nr3'), async () => new Map());
    const seen: string[][] = [];
    const report = await startRun(
      deps(),
      'T1',
      wm,
      plan,
      { reportId: 'rep1', siteId: 'DEMO', userId: 'U1', channel: 'D1', ts: '1.2' },
      {
        onProgress: async () => {
          seen.push((await listPending(deps())).map((p) => p.reportId));
        },
      },
    );
    expect(report.status).toBe('completed');
    expect(report.registered).toHaveLength(3);
    expect(seen[0]).toEqual(['rep1']);
    expect(await listPending(deps())).toEqual([]);
    expect((await loadRun(deps(), 'T1', 'rep1'))?.channel).toBe('D1');
    expect((await reportRepo(deps()).get('T1', 'rep1'))?.status).toBe('completed');
  });

  it('a resumer that another runner takes over leaves the pending mark and says the run is elsewhere', async () => {
    const wm = new FakeWatermarkingClient({ siteIds: ['DEMO'] });
    const plan = await planRegistration(parseRecipientLines('r1\nr2\nr3'), async () => new Map());
    const stored = newReport(plan, 'DEMO', 'rep2', '2026-01-01T00:00:00.000Z');
    stored.runId = 'dead-runner';
    stored.batches[0]!.state = 'sending';
    await reportRepo(deps()).put('T1', 'rep2', stored);
    await markPending(deps(), 'T1', 'rep2');
    const r = await resumeRun(deps(), 'T1', wm, 'rep2', {
      force: true,
      heartbeatMs: 0,
      // While it waits for the dead runner's POST, a forced resume elsewhere claims the report.
      sleep: async () => {
        await reportRepo(deps()).update('T1', 'rep2', (old) => old && { ...old, runId: 'the-other-runner' });
      },
    });
    expect(r).toMatchObject({ ok: false, reason: 'running' });
    expect(wm.callsOf('registerRecipients')).toHaveLength(0);
    expect(await listPending(deps())).toEqual([{ workspace: 'T1', reportId: 'rep2' }]);
  });

  it("the deployment's in-flight grace (REGISTRATION_INFLIGHT_GRACE_SECONDS) is the wait before an unconfirmed batch is sent again", async () => {
    const waits = async (graceMs: number | undefined) => {
      const wm = new FakeWatermarkingClient({ siteIds: ['DEMO'] });
      const plan = await planRegistration(parseRecipientLines('g1\ng2'), async () => new Map());
      const stored = newReport(plan, 'DEMO', 'rep-g', '2026-01-01T00:00:00.000Z');
      stored.runId = 'dead-runner';
      stored.batches[0]!.state = 'sending';
      await reportRepo(deps()).put('T1', 'rep-g', stored);
      let t = Date.UTC(2026, 0, 2);
      const slept: number[] = [];
      const r = await resumeRun(
        {
          store,
          now: () => t,
          ...(graceMs === undefined ? {} : { config: { registrationInFlightGraceMs: graceMs } }),
        },
        'T1',
        wm,
        'rep-g',
        {
          force: true,
          heartbeatMs: 0,
          sleep: async (ms) => {
            slept.push(ms);
            t += ms;
          },
        },
      );
      if (!r.ok) throw new Error(r.message);
      // Sent once, after the wait (the service never got the dead runner's POST).
      expect(wm.callsOf('registerRecipients')).toHaveLength(1);
      return Math.max(0, ...slept);
    };
    expect(await waits(42_000)).toBe(42_000);
    expect(await waits(undefined)).toBe(5_000);
  });

  it('index updates are per workspace and report; resume of a missing report clears it', async () => {
    await markPending(deps(), 'T1', 'a');
    await markPending(deps(), 'T2', 'a');
    await markPending(deps(), 'T1', 'a');
    expect(await listPending(deps())).toEqual([
      { workspace: 'T2', reportId: 'a' },
      { workspace: 'T1', reportId: 'a' },
    ]);
    await clearPending(deps(), 'T2', 'a');
    const r = await resumeRun(deps(), 'T1', new FakeWatermarkingClient({ siteIds: ['DEMO'] }), 'a');
    expect(r).toMatchObject({ ok: false, reason: 'not-found' });
    expect(await listPending(deps())).toEqual([]);
  });
});
