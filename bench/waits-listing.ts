/**
 * Figure 8: listing pending Workflow waits, the layout of release 0.1.0 against this one, in one
 * run, on the SQLite store (the default). 10,000 waits (1,000 with --quick) in one busy workspace
 * plus 10 in a quiet one, written as 0.1.0 wrote them (each wait under its workspace, and every
 * one in the global index document).
 *   - old: 0.1.0's listing (`listWaitsFromGlobalIndex`): the global index, then one read per wait.
 *     Its watcher did this for the whole listing AND for every poll of a site with waits, whatever
 *     the workspace.
 *   - new, every workspace: `listWaits(store)` after the start-up migration (the work list, then
 *     each workspace's waits in one batch read).
 *   - new, the quiet workspace: `listWaits(store, ws)`, what a poll of one of its sites reads now.
 * Medians over the rounds; ratios new / old (lower is better).
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createStore, openRawBackend, runMigrations } from '../src/store/index.js';
import { stampedJson } from '../src/store/versions.js';
import {
  type JobWait,
  listWaits,
  listWaitsFromGlobalIndex,
  WAITS_INDEX_NAMESPACE,
  WAITS_NAMESPACE,
} from '../src/watch/job-waits.js';
import { WATCH_MIGRATIONS } from '../src/watch/migrations.js';
import { type BenchContext, ENCRYPTION_KEY, fmtMs, median, type Row } from './lib.js';

const BUSY = 'T0BUSY08';
const QUIET = 'T0QUIET08';

async function timed(rounds: number, fn: () => Promise<unknown>): Promise<number> {
  const xs: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const t = process.hrtime.bigint();
    await fn();
    xs.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  return median(xs);
}

export async function benchWaitsListing(ctx: BenchContext): Promise<Row[]> {
  const total = ctx.quick ? 1_000 : 10_000;
  const rounds = ctx.quick ? 2 : 5;
  const dir = mkdtempSync(join(tmpdir(), 'bench-waits-'));
  const url = `sqlite://${join(dir, 'waits.sqlite')}`;
  const namespace = 'bench8';
  try {
    // The 0.1.0 layout, written directly (addWait one by one would rewrite the index 10,000 times).
    const { backend, keys } = await openRawBackend({ url, namespace });
    const now = Date.now();
    const items: Array<{ workspace: string; executionId: string }> = [];
    const ids: Record<string, string[]> = { [BUSY]: [], [QUIET]: [] };
    for (let i = 0; i < total + 10; i++) {
      const ws = i < total ? BUSY : QUIET;
      const executionId = `Fx${ws}${String(i).padStart(6, '0')}`;
      const wait: JobWait = {
        executionId,
        workspace: ws,
        siteId: `S${String(i % 50).padStart(3, '0')}`,
        kind: 'job',
        target: String(100_000 + i),
        deadline: now + 720 * 3_600_000,
        createdAt: now,
        state: 'pending',
      };
      await backend.set(keys.doc(WAITS_NAMESPACE, ws, executionId), JSON.stringify(wait));
      ids[ws]?.push(executionId);
      items.push({ workspace: ws, executionId });
    }
    for (const [ws, list] of Object.entries(ids))
      await backend.sAdd(keys.docIndex(WAITS_NAMESPACE, ws), list);
    await backend.set(
      keys.doc(WAITS_INDEX_NAMESPACE, '_global', 'pending'),
      stampedJson({ items }, 1) as string,
    );
    await backend.sAdd(keys.docIndex(WAITS_INDEX_NAMESPACE, '_global'), ['pending']);
    await backend.sAdd(keys.docNamespaces(), [WAITS_NAMESPACE, WAITS_INDEX_NAMESPACE]);
    await backend.close();

    const store = await createStore({ url, namespace, encryptionKey: ENCRYPTION_KEY });
    try {
      const oldCount = (await listWaitsFromGlobalIndex(store)).length;
      const oldMs = await timed(rounds, () => listWaitsFromGlobalIndex(store));
      await runMigrations(store, WATCH_MIGRATIONS, { holder: 'bench' });
      const newCount = (await listWaits(store)).length;
      if (oldCount !== total + 10 || newCount !== total + 10) {
        throw new Error(`listings disagree: old ${oldCount}, new ${newCount}, stored ${total + 10}`);
      }
      const newAllMs = await timed(rounds, () => listWaits(store));
      const quietMs = await timed(rounds * 4, () => listWaits(store, QUIET));
      const n = total.toLocaleString('en-US');
      const allRatio = newAllMs / oldMs;
      const quietRatio = quietMs / oldMs;
      return [
        {
          id: 'waits.list_all.ratio',
          num: newAllMs,
          unit: 'ms',
          refNum: oldMs,
          figure: `8 waits listing, all ${n}`,
          value: fmtMs(newAllMs),
          reference: `${fmtMs(oldMs)} (0.1.0 global index)`,
          ratio: allRatio,
          goal: '<= 0.5x 0.1.0',
          pass: allRatio <= 0.5,
          note: `SQLite, ${n} waits in one workspace + 10 in another, ${rounds} rounds (median). 0.1.0 read its global index then each wait one at a time; this release reads the list of workspaces, then each workspace's waits in one batch.`,
        },
        {
          id: 'waits.list_other_workspace.ratio',
          num: quietMs,
          unit: 'ms',
          refNum: oldMs,
          figure: '8 waits listing, another workspace',
          value: fmtMs(quietMs),
          reference: `${fmtMs(oldMs)} (0.1.0 global index)`,
          ratio: quietRatio,
          goal: '<= 0.01x 0.1.0',
          pass: quietRatio <= 0.01,
          note: `What a poll of a site of the quiet workspace (10 waits) reads while the busy one holds ${n}: 0.1.0 listed every workspace's waits for it.`,
        },
      ];
    } finally {
      await store.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
