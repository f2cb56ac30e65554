/**
 * `from:`/`to:` days of the watermarking lists under both readings of the spec's unzoned dates:
 * the service reads them in the query's time_zone (the emulator's default) or as UTC days (the
 * vendor's convention, `wmDatesUtc`). Either way the reader sees exactly the jobs and recipients
 * registered on their own days. Loopback only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../dev/emulator/index.js';
import type { EmulatorHandle } from '../../dev/emulator/types.js';
import { type Api, createApi } from '../../src/api/index.js';
import type { WatermarkingClient } from '../../src/api/types.js';
import { listAllJobs, listJobs } from '../../src/ops/jobs.js';

const T0 = Date.UTC(2026, 10, 22, 12, 0, 0);
const SITE = 'DEMO';
const ZONE = 'Asia/Seoul';
let emu: EmulatorHandle;
let api: Api;
let wm: WatermarkingClient;
const ids: Record<string, number> = {};

beforeAll(async () => {
  emu = await startEmulator({ now: () => T0 });
  api = createApi({ retries: { max: 0 }, clock: () => T0 });
  wm = api.watermarking({ ...emu.demo.watermarking, baseUrl: emu.wmBaseUrl });
  // 2026-11-20 in Seoul is 2026-11-19T15:00Z .. 2026-11-20T15:00Z.
  ids.early = emu.createJob(SITE, 'reading-early', [], { regTimeMs: Date.UTC(2026, 10, 19, 15, 30) }); // Seoul 11-20 00:30
  ids.late = emu.createJob(SITE, 'reading-late', [], { regTimeMs: Date.UTC(2026, 10, 20, 14, 30) }); // Seoul 11-20 23:30
  ids.before = emu.createJob(SITE, 'reading-before', [], { regTimeMs: Date.UTC(2026, 10, 19, 14, 30) }); // Seoul 11-19 23:30
  ids.after = emu.createJob(SITE, 'reading-after', [], { regTimeMs: Date.UTC(2026, 10, 20, 15, 30) }); // Seoul 11-21 00:30
});
afterAll(async () => {
  await api?.close();
  await emu?.close();
});

const mine = (names: string[]) => names.filter((n) => n.startsWith('reading-')).sort();

describe.each([
  ['dates read in the query time_zone', {}],
  ['dates read as UTC days', { wmDatesUtc: true }],
])('watermarking from:/to: days, %s', (_name, behaviours) => {
  it("lists exactly the jobs started on the reader's days", async () => {
    emu.setBehaviours(behaviours);
    const r = await listJobs(
      wm,
      SITE,
      { from: '2026-11-20', to: '2026-11-20', timeZone: ZONE, pageUnit: 1000 },
      { now: T0 },
    );
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(mine(r.page.items.map((j) => j.contentId))).toEqual(['reading-early', 'reading-late']);
    // The query asked for the UTC days that cover the reader's day.
    expect([r.query.from, r.query.to]).toEqual(['2026-11-19', '2026-11-20']);
    expect(r.days).toMatchObject({ from: '2026-11-20', to: '2026-11-20', zone: ZONE });
    const all = await listAllJobs(
      wm,
      SITE,
      { from: '2026-11-20', to: '2026-11-20', timeZone: ZONE },
      { now: T0 },
    );
    expect(all.ok && mine(all.jobs.map((j) => j.contentId))).toEqual(['reading-early', 'reading-late']);
  });
});
