/**
 * Figure 7: three replicas on Redis (the docker-compose.yml topology without Docker).
 *
 * Three watcher processes (dev/testing/fault-child.ts, mode `replica`, REAL time) share 10,000
 * watched sites through one redis-server (append-only file, fsync every second), one emulator and
 * one fake Slack (both in this process, loopback). Measured:
 * - spread: sites whose lease each replica holds once the start-up settled;
 * - CPU per replica per 1,000 sites held over one idle interval of steady state;
 * - failover: the replica holding the most sites is killed with SIGKILL; for each of its sites,
 *   (first poll after the kill - last poll before it) / idle interval, from the sites' stored poll
 *   states; the figure is the maximum over its sites;
 * - jobs started and finished on random sites before and after the kill: every job must get its
 *   card and its final message exactly once (lost / duplicate counted from the fake Slack's
 *   message metadata).
 */
import { type ReplicaRig, startReplicaRig } from '../test/faults/support/replicas.js';
import { completeness } from '../test/faults/support/watch.js';
import { type BenchContext, median, type Row, sleep } from './lib.js';

async function waitFor(what: string, cond: () => Promise<boolean> | boolean, timeoutMs: number) {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (await cond()) return;
    await sleep(1000);
  }
  throw new Error(`replicas: timed out waiting for ${what}`);
}

export async function benchReplicas(ctx: BenchContext): Promise<Row[]> {
  // Quick (smoke): 150 sites at a 5 s interval, about 40 s; not a measurement.
  const sites = ctx.quick ? 150 : 10_000;
  const intervalMs = ctx.quick ? 5_000 : 60_000;
  const jobsN = ctx.quick ? 12 : 60;
  const t0 = Date.now();
  const rig: ReplicaRig = await startReplicaRig({
    sites,
    intervalMs,
    activeIntervalMs: 2000,
    concurrency: 16,
    latencyMs: 10,
    targetsCacheMs: 30_000,
    statMs: 2000,
  });
  try {
    ctx.log(`  replicas: ${sites} sites subscribed in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    const reps = await Promise.all(['replica-a', 'replica-b', 'replica-c'].map((n) => rig.spawn(n)));
    const lastCycles = (only?: string[]) => rig.lastCycles(only);
    await waitFor(
      'every site polled once',
      async () => [...(await lastCycles()).values()].every((t) => t !== undefined),
      10 * intervalMs,
    );
    ctx.log(`  replicas: every site baselined after ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    // Settle: hand-overs after the members learnt of each other (about one interval).
    await sleep(intervalMs * 1.2);
    const holders = await rig.holders();
    const count = (name: string) => [...holders.values()].filter((h) => h === name).length;
    const spread = reps.map((r) => count(r.name));
    const unheld = [...holders.values()].filter((h) => h === undefined).length;

    // Jobs: half started now (finished before or after the kill), the rest later.
    const ch = rig.ws.channel;
    const rnd = (n: number) => Math.floor(Math.random() * n);
    const jobs: Array<{ site: string; id: number; done: boolean }> = [];
    const start = (i: number) => {
      const site = rig.sites[rnd(rig.sites.length)] as string;
      jobs.push({ site, id: rig.emu.createJob(site, `rep-${i}`, [{ recipient: `r${i}` }]), done: false });
    };
    const finish = (j: { site: string; id: number; done: boolean }) => {
      rig.emu.finishJob(j.site, j.id);
      j.done = true;
    };
    for (let i = 0; i < jobsN / 2; i++) start(i);

    // CPU over one steady interval.
    const cpuAt = () => reps.map((r) => r.stats().at(-1));
    const c0 = cpuAt();
    await sleep(intervalMs / 2);
    for (const j of jobs.slice(0, jobsN / 4)) finish(j);
    await sleep(intervalMs / 2);
    const c1 = cpuAt();
    const cpuPctPer1000 = reps.map((_, i) => {
      const a = c0[i];
      const b = c1[i];
      if (!a || !b || b.at <= a.at) return Number.NaN;
      const pct = ((b.cpuMs - a.cpuMs) / (b.at - a.at)) * 100;
      return (pct / Math.max(1, spread[i] as number)) * 1000;
    });

    // Kill the replica holding the most sites.
    const victimIdx = spread.indexOf(Math.max(...spread));
    const victim = reps[victimIdx]!;
    const nowHolders = await rig.holders();
    const victimSites = [...nowHolders].filter(([, h]) => h === victim.name).map(([s]) => s);
    const before = await lastCycles(victimSites);
    await victim.child.kill9();
    const killedAt = Date.now();
    ctx.log(`  replicas: killed ${victim.name} (${victimSites.length} sites)`);
    for (const j of jobs) if (!j.done) finish(j);
    for (let i = jobsN / 2; i < jobsN; i++) start(i);
    const firstAfter = new Map<string, number>();
    await waitFor(
      "the killed replica's sites polled again",
      async () => {
        const now = await lastCycles(victimSites.filter((s) => !firstAfter.has(s)));
        for (const [s, t] of now) if (t !== undefined && t > (before.get(s) ?? 0)) firstAfter.set(s, t);
        return firstAfter.size === victimSites.length;
      },
      5 * intervalMs,
    );
    const gaps = victimSites.map(
      (s) => ((firstAfter.get(s) as number) - (before.get(s) ?? killedAt)) / intervalMs,
    );
    const failover = Math.max(...gaps);
    for (const j of jobs) if (!j.done) finish(j);
    const finalKeyOf = (id: number) => `${rig.ws.teamId}|${ch}|${id}|final:DM500`;
    await waitFor(
      'every job announced',
      () => {
        const keys = new Set(rig.keys());
        return jobs.every((j) => keys.has(finalKeyOf(j.id)));
      },
      3 * intervalMs,
    ).catch(() => undefined); // counted as lost below
    await sleep(3000);
    const res = completeness(
      rig.keys(),
      rig.ws.teamId,
      ch,
      jobs.map((j) => j.id),
    );
    const survivors = reps.filter((r) => r !== victim);
    const errors = survivors.map((r) => r.stats().at(-1)?.errors ?? 0).reduce((a, b) => a + b, 0);
    const rss = reps.map((r) => Math.max(...r.stats().map((s) => s.rssMb)));
    const perReplica = median(cpuPctPer1000);
    const note =
      `${sites.toLocaleString('en-US')} sites (one workspace, one subscription each), 3 replica processes, one redis-server (AOF, fsync every second), REAL time, idle interval ${intervalMs / 1000} s, active 2 s, watcher concurrency 16, emulator latency 10 ms. ` +
      `Sites held per replica after start-up: ${spread.join(' / ')} (${unheld} unheld). ` +
      `CPU per replica over one steady interval: ${cpuPctPer1000.map((x) => `${x.toFixed(2)} %`).join(', ')} of a core per 1,000 sites (peak RSS ${rss.map((x) => `${x.toFixed(0)} MB`).join(', ')}). ` +
      `Killed ${victim.name} (SIGKILL) holding ${victimSites.length} sites; their next poll came ${median(gaps).toFixed(2)} intervals (median), ${failover.toFixed(2)} (max) after their last one (lease ttl 1.25 intervals, membership expiry 3 heartbeats of interval/8, retry every ttl/8). ` +
      `${jobs.length} jobs on random sites, half started before the kill: ${res.lost} lost, ${res.duplicated} duplicate${res.missing.length ? ` (${res.missing.slice(0, 3).join('; ')})` : ''}; poll errors on the survivors: ${errors}. Whole figure ${((Date.now() - t0) / 1000).toFixed(0)} s.`;
    const even = Math.min(...spread) / Math.max(1, Math.max(...spread));
    return [
      {
        id: 'replicas.count',
        num: reps.length,
        unit: 'replicas',
        refNum: 3,
        figure: '7 replicas',
        value: `${reps.length}`,
        reference: `sites ${spread.join('/')}`,
        ratio: even,
        goal: '3, work spread (min/max ratio)',
        pass: reps.length === 3 && unheld === 0 && even > 0.5,
        note,
      },
      {
        id: 'replicas.sites',
        num: sites,
        unit: 'sites',
        refNum: 10_000,
        figure: '7 replicas sites',
        value: sites.toLocaleString('en-US'),
        reference: '10,000',
        ratio: sites / 10_000,
        goal: '10,000',
        pass: sites >= 10_000,
      },
      {
        id: 'replicas.lost',
        num: res.lost,
        unit: 'notifications',
        refNum: 0,
        figure: '7 replicas lost',
        value: `${res.lost}`,
        reference: `${jobs.length} jobs`,
        ratio: undefined,
        goal: '0',
        pass: res.lost === 0,
      },
      {
        id: 'replicas.duplicate',
        num: res.duplicated,
        unit: 'notifications',
        refNum: 0,
        figure: '7 replicas duplicate',
        value: `${res.duplicated}`,
        reference: `${jobs.length} jobs`,
        ratio: undefined,
        goal: '0',
        pass: res.duplicated === 0,
      },
      {
        id: 'replicas.failover.intervals',
        num: failover,
        unit: 'intervals',
        refNum: 2,
        figure: '7 replicas failover',
        value: `${failover.toFixed(2)} intervals`,
        reference: `${intervalMs / 1000} s interval`,
        ratio: failover / 2,
        goal: '<= 2 intervals',
        pass: failover <= 2,
      },
      {
        id: 'replicas.cpu.pct.per1000',
        num: perReplica,
        unit: '% of a core per 1,000 sites',
        figure: '7 replica CPU / 1,000 sites',
        value: `${perReplica.toFixed(2)} %`,
        reference: 'per replica',
        ratio: undefined,
        goal: 'info',
        pass: undefined,
      },
    ];
  } finally {
    await rig.close();
  }
}
