/**
 * Figure 5: bulk registration. 10,000 new recipients (one name per line, as a user pastes or
 * uploads them) go through the real planner (parseRecipientLines + planRegistration with the
 * look-up against the site) and runner (runRegistration), against the emulator with a fixed
 * latency per call. Measured: register requests sent (goal ceil(10,000 / 150) = 67) and the run's
 * wall time against the ideal 67 x latency / concurrency (batches in flight at once). Each round
 * uses a fresh site so every name is new; median over the rounds.
 */

import { startEmulator } from '../dev/emulator/index.js';
import { createApi } from '../src/api/index.js';
import type { WatermarkingCredentials } from '../src/api/types.js';
import { LIMITS } from '../src/api/validate.js';
import { existingLookup } from '../src/ops/recipients.js';
import { parseRecipientLines, planRegistration } from '../src/ops/watermarking/registration/plan.js';
import { reportCounts, runRegistration } from '../src/ops/watermarking/registration/run.js';
import { type BenchContext, fmtMs, median, type Row, totalRequests } from './lib.js';

const REGISTER_KEY = 'POST /wm/api/recipient/:siteId';
/** runRegistration's default batches in flight (RunOptions.concurrency); passed explicitly. */
const CONCURRENCY = 4;

export async function benchRegistration(ctx: BenchContext): Promise<Row[]> {
  const n = ctx.quick ? 600 : 10_000;
  const rounds = ctx.quick ? 1 : 3;
  const latencyMs = ctx.quick ? 20 : 200;
  const expectedRequests = Math.ceil(n / LIMITS.recipientsPerRegistration);
  const siteIds = Array.from({ length: rounds }, (_, i) => `RG${String(i + 1).padStart(2, '0')}`);
  const emu = await startEmulator({ seed: false, latencyMs });
  const api = createApi();
  try {
    const creds: WatermarkingCredentials = {
      accountId: 'bench-reg',
      accessKey: 'AKbenchreg0000000000000001',
      baseUrl: emu.wmBaseUrl,
    };
    emu.addWatermarkingAccount({ accountId: creds.accountId, accessKey: creds.accessKey, siteIds });
    const client = api.watermarking(creds);
    const text = Array.from({ length: n }, (_, i) => `viewer.${String(i + 1).padStart(5, '0')}`).join('\n');
    const walls: number[] = [];
    const posts: number[] = [];
    const totals: number[] = [];
    const planCalls: number[] = [];
    for (const siteId of siteIds) {
      emu.resetRequestCounts();
      const plan = await planRegistration(parseRecipientLines(text), existingLookup(client, siteId));
      planCalls.push(totalRequests(emu.requestCounts()));
      if (plan.counts.toRegister !== n)
        throw new Error(`registration: plan has ${plan.counts.toRegister} of ${n}`);
      emu.resetRequestCounts();
      const t = performance.now();
      const report = await runRegistration(client, siteId, plan, { concurrency: CONCURRENCY });
      const wall = performance.now() - t;
      const counts = reportCounts(report);
      if (counts.registered !== n || emu.recipientCount(siteId) !== n) {
        throw new Error(
          `registration: ${counts.registered} registered (emulator holds ${emu.recipientCount(siteId)}) of ${n}`,
        );
      }
      const rc = emu.requestCounts();
      posts.push(rc[REGISTER_KEY] ?? 0);
      totals.push(totalRequests(rc));
      walls.push(wall);
      ctx.log(
        `  registration ${siteId}: ${rc[REGISTER_KEY]} register requests (${totalRequests(rc)} in all), ${fmtMs(wall)}`,
      );
    }
    const ideal = (expectedRequests * latencyMs) / CONCURRENCY;
    const wall = median(walls);
    const p = median(posts);
    return [
      {
        figure: '5 registration requests',
        value: String(p),
        reference: `ceil(${n}/150) = ${expectedRequests}`,
        ratio: p / expectedRequests,
        goal: `= ${expectedRequests}`,
        pass: posts.every((x) => x === expectedRequests),
        note: `${n.toLocaleString('en-US')} new names, ${rounds} round(s), fresh site each; register POSTs counted at the emulator. All requests during the run: ${median(totals)}; the planning look-up before it (token + existing-name check): ${median(planCalls)} call(s).`,
      },
      {
        figure: '5 registration wall time',
        value: fmtMs(wall),
        reference: `${expectedRequests} x ${latencyMs} ms / ${CONCURRENCY} = ${fmtMs(ideal)}`,
        ratio: wall / ideal,
        goal: 'ratio ~1 (info)',
        pass: undefined,
        note: `median of ${rounds}; emulator latency ${latencyMs} ms per call, ${CONCURRENCY} batches in flight (runRegistration's default). Ratio above 1 = per-batch overhead (token, JSON, validation, report updates) and the ceil of the last wave.`,
      },
    ];
  } finally {
    await api.close();
    await emu.close();
  }
}
