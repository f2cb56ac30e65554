/**
 * Duplicates are decided by looking names up, not by one error code: the emulator answers a
 * duplicate with a code the project's table does not know (DUP-01). Nothing is registered twice,
 * a name registered meanwhile never fails its batch, and a name this run registered is never
 * reported as failed. Loopback emulator only; POSTs are counted per name.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type EmulatorHandle, startEmulator } from '../../dev/emulator/index.js';
import { type Api, createApi } from '../../src/api/index.js';
import type { NewRecipient, WatermarkingClient } from '../../src/api/types.js';
import { nameKey } from '../../src/api/validate.js';
import { existingLookup, findExisting } from '../../src/ops/recipients.js';
import { parseRecipientLines, planRegistration } from '../../src/ops/watermarking/registration/plan.js';
import {
  type RegistrationReport,
  reportCounts,
  resumeRegistration,
  runRegistration,
} from '../../src/ops/watermarking/registration/run.js';
import { createStore } from '../../src/store/index.js';
import type { Store } from '../../src/store/types.js';

const SITE = 'AB12';
let emu: EmulatorHandle;
let api: Api;
let wm: WatermarkingClient;
let store: Store;
let seq = 0;
/** Every name sent in a registration POST, in order (a name sent twice shows up twice). */
let posted: string[] = [];

function names(n: number): string[] {
  const tag = `dup${++seq}x${Date.now().toString(36)}`;
  return Array.from({ length: n }, (_, i) => `${tag}-${i}`);
}

/** The client, recording the names of every registration POST. */
function counting(inner: WatermarkingClient): WatermarkingClient {
  return {
    ...inner,
    registerRecipients: (siteId: string, rs: NewRecipient[]) => {
      posted.push(...rs.map((r) => r.name));
      return inner.registerRecipients(siteId, rs);
    },
  };
}

async function plan(client: WatermarkingClient, all: string[]) {
  return planRegistration(parseRecipientLines(all.join('\n')), existingLookup(client, SITE));
}

async function expectEachOnce(all: string[]) {
  const found = await findExisting(wm, SITE, all, { strategy: 'list' });
  for (const n of all) expect(found.has(nameKey(n)), n).toBe(true);
}

beforeAll(async () => {
  emu = await startEmulator({ behaviours: { duplicateCode: 'DUP-01' } });
  api = createApi({ retries: { max: 0 } });
  wm = api.watermarking({ ...emu.demo.watermarking, baseUrl: emu.wmBaseUrl });
  store = await createStore({ url: 'memory://', encryptionKey: randomBytes(32).toString('base64') });
});
afterAll(async () => {
  await api.close();
  await emu.close();
  await store.close();
});
beforeEach(() => {
  emu.faults.clear();
  posted = [];
});

describe('registration with a duplicate code the table does not know', () => {
  it('names registered meanwhile are skipped, every other name of their batch is registered', async () => {
    const all = names(300);
    const client = counting(wm);
    const p = await plan(client, all);
    expect(p.counts).toMatchObject({ toRegister: 300, batches: 2 });
    // Someone registers one name of each batch (in another case) after planning.
    await wm.registerRecipients(SITE, [{ name: all[7]!.toUpperCase() }, { name: all[200]! }]);
    const before = emu.recipientCount(SITE);
    posted = [];
    const report = await runRegistration(client, SITE, p);
    expect(report.status).toBe('completed');
    expect(reportCounts(report)).toMatchObject({ registered: 298, registeredMeanwhile: 2, failed: 0 });
    expect(report.skipped.map((s) => [s.name, s.reason]).sort()).toEqual(
      [
        [all[200], 'registered-meanwhile'],
        [all[7], 'registered-meanwhile'],
      ].sort(),
    );
    expect(emu.recipientCount(SITE) - before).toBe(298);
    // Each name reached the service at most twice (refused batch, then the re-send without the
    // duplicates), and was created once.
    const counts = new Map<string, number>();
    for (const n of posted) counts.set(n, (counts.get(n) ?? 0) + 1);
    expect(Math.max(...counts.values())).toBe(2);
    await expectEachOnce(all);
  });

  it('a name this run registered (resume after a crash) is reported registered, not failed', async () => {
    const all = names(30);
    const repo = store.docs<RegistrationReport>('reg-dup');
    // First run: the POST is applied, then the process "dies" (the answer never arrives).
    const dying: WatermarkingClient = {
      ...wm,
      registerRecipients: async (siteId, rs) => {
        await wm.registerRecipients(siteId, rs);
        return new Promise<never>(() => undefined);
      },
    };
    const p = await plan(wm, all);
    let saves = 0;
    void runRegistration(dying, SITE, p, {
      reportRepo: repo,
      workspaceKey: 'T1',
      reportId: 'r1',
      onProgress: () => {
        saves++;
      },
    });
    // Wait for the POST to be applied (condition, not time).
    await expect.poll(async () => (await findExisting(wm, SITE, all)).size).toBe(30);
    expect((await repo.get('T1', 'r1'))?.batches[0]?.state).toBe('sending');
    expect(saves).toBe(0);

    // Resume: the keyword look-up misses the names once (a lagging search index), so the batch
    // is sent again and refused as a duplicate with DUP-01; the listing then finds them as ours.
    emu.faults.add({
      match: `GET /wm/api/recipient/${SITE}`,
      times: 1,
      body: { error_code: '0000', error_message: 'Success', total_count: 0, data: [] },
    });
    const resumed = await resumeRegistration(counting(wm), repo, 'T1', 'r1', {
      force: true,
      lookup: { strategy: 'search' },
      inFlightGraceMs: 0, // the crashed POST is known to be applied: no wait
    });
    if (!resumed.ok) throw new Error(resumed.message);
    expect(resumed.report.status).toBe('completed');
    expect(reportCounts(resumed.report)).toMatchObject({ registered: 30, failed: 0 });
    expect(resumed.report.registered.every((r) => r.reconciled)).toBe(true);
    expect(posted.sort()).toEqual([...all].sort()); // one re-send, refused: nothing created twice
    await expectEachOnce(all);
  });

  it('a refusal whose names are all absent is the batch failure, with the service code', async () => {
    const all = names(5);
    const client = counting(wm);
    const p = await plan(client, all);
    emu.faults.add({
      match: `POST /wm/api/recipient/${SITE}`,
      times: 1,
      errorCode: { code: 'E7777', message: 'Quota exceeded' },
    });
    const report = await runRegistration(client, SITE, p);
    expect(reportCounts(report)).toMatchObject({ registered: 0, failed: 5 });
    expect(report.failed[0]).toMatchObject({ kind: 'service', code: 'E7777', message: 'Quota exceeded' });
    expect(posted).toHaveLength(5); // not re-sent
  });

  it('a crashed run whose POST is still going through the service is waited for, not sent again', async () => {
    const all = names(20);
    const repo = store.docs<RegistrationReport>('reg-inflight');
    // The service takes a while for this POST; the process sending it dies meanwhile.
    emu.faults.add({ match: `POST /wm/api/recipient/${SITE}`, times: 1, latencyMs: 800 });
    const dying: WatermarkingClient = {
      ...wm,
      registerRecipients: (siteId, rs) => {
        void wm.registerRecipients(siteId, rs).catch(() => undefined);
        return new Promise<never>(() => undefined);
      },
    };
    const p = await plan(wm, all);
    void runRegistration(dying, SITE, p, { reportRepo: repo, workspaceKey: 'T1', reportId: 'r2' });
    await expect.poll(async () => (await repo.get('T1', 'r2'))?.batches[0]?.state).toBe('sending');
    expect(emu.registrationPostsPerName(SITE).get(all[0]!) ?? 0).toBe(0); // not applied yet

    const resumed = await resumeRegistration(counting(wm), repo, 'T1', 'r2', {
      force: true,
      inFlightGraceMs: 4000,
    });
    if (!resumed.ok) throw new Error(resumed.message);
    expect(reportCounts(resumed.report)).toMatchObject({ registered: 20, failed: 0 });
    expect(posted).toEqual([]); // the resumed run sent nothing: the crashed POST did it
    const perName = emu.registrationPostsPerName(SITE);
    for (const n of all) expect(perName.get(n)).toBe(1);
  });
});
