/**
 * Three watcher replicas (separate processes) on one real Redis share the watched sites; one is
 * killed with SIGKILL while jobs are running. Every job change is posted exactly once, the dead
 * replica's sites are taken over by the survivors, and work was spread over all three.
 * (Failover time in polling intervals is a benchmark figure, bench figure 7; here we only wait
 * for the condition.)
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type ReplicaRig, startReplicaRig } from './support/replicas.js';
import { completeness } from './support/watch.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let rig: ReplicaRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

async function waitFor(what: string, cond: () => Promise<boolean> | boolean, timeoutMs = 60_000) {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (await cond()) return;
    await sleep(200);
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('three replicas on Redis', () => {
  it('kill -9 of one replica: its sites move to the others, 0 lost, 0 duplicate notifications', async () => {
    const r = await startReplicaRig({ sites: 30, intervalMs: 2000, activeIntervalMs: 500, concurrency: 4 });
    rig = r;
    const [a, b, c] = [await r.spawn('replica-a'), await r.spawn('replica-b'), await r.spawn('replica-c')];
    await waitFor('every site polled once', async () =>
      [...(await r.lastCycles()).values()].every((t) => t !== undefined),
    );
    // Let the leases settle for a few intervals, then every replica holds some of the sites.
    await sleep(3000);
    const before = await r.holders();
    const count = (name: string) => [...before.values()].filter((h) => h === name).length;
    const spread = [a, b, c].map((x) => count(x.name));
    expect(
      spread.every((n) => n > 0),
      `sites per replica ${spread.join('/')}`,
    ).toBe(true);

    const ch = r.ws.channel;
    const pick = (i: number) => r.sites[(i * 7) % r.sites.length] as string;
    const jobs: Array<{ site: string; id: number }> = [];
    for (let i = 0; i < 12; i++) {
      const site = pick(i);
      jobs.push({ site, id: r.emu.createJob(site, `rep-${i}`, [{ recipient: `r${i}` }]) });
    }
    await sleep(1500);
    for (const j of jobs.slice(0, 4)) r.emu.finishJob(j.site, j.id);

    // Kill the replica holding the most sites, mid-run.
    const victim = [a, b, c].sort((x, y) => count(y.name) - count(x.name))[0]!;
    const victimSites = [...(await r.holders())].filter(([, h]) => h === victim.name).map(([s]) => s);
    const last = await r.lastCycles();
    await victim.child.kill9();
    const killedAt = Date.now();
    for (const j of jobs.slice(4)) r.emu.finishJob(j.site, j.id);
    for (let i = 12; i < 16; i++) {
      const site = pick(i);
      const id = r.emu.createJob(site, `rep-${i}`, [{ recipient: `r${i}` }]);
      jobs.push({ site, id });
      r.emu.finishJob(site, id);
    }

    await waitFor('the dead replica sites polled again by the others', async () => {
      const now = await r.lastCycles();
      const holders = await r.holders();
      return victimSites.every(
        (s) =>
          (now.get(s) ?? 0) > (last.get(s) ?? 0) &&
          (now.get(s) ?? 0) >= killedAt - 1000 &&
          holders.get(s) !== undefined &&
          holders.get(s) !== victim.name,
      );
    });
    await waitFor('every job announced', () => {
      const keys = r.keys();
      return jobs.every(
        (j) =>
          keys.some((k) => k.startsWith(`${r.ws.teamId}|${ch}|${j.id}|card:`)) &&
          keys.includes(`${r.ws.teamId}|${ch}|${j.id}|final:DM500`),
      );
    });
    // A little longer: a late duplicate would show up now.
    await sleep(2000);
    const result = completeness(
      r.keys(),
      r.ws.teamId,
      ch,
      jobs.map((j) => j.id),
    );
    expect(result.missing).toEqual([]);
    expect(result.lost).toBe(0);
    expect(result.duplicated).toBe(0);
    expect(r.duplicateKeys()).toEqual([]);
    // The survivors kept working (no poll errors) and hold every site between them.
    const survivors = [a, b, c].filter((x) => x !== victim);
    await waitFor('every site held by a survivor', async () =>
      [...(await r.holders()).values()].every((h) => survivors.some((s) => s.name === h)),
    );
    for (const s of survivors) expect(s.stats().at(-1)?.errors ?? 0).toBe(0);
  });
});
