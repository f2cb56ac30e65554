/**
 * Figure 3: scale. 1,000 watched sites (100 workspaces x 10 sites, one channel subscription per
 * site), 60 s poll interval (jitter 10%), emulator latency 50 ms. Each site holds 20 in-flight
 * jobs; at every cycle boundary 100 sites (10%, rotating) see one job finish and a new one start.
 *
 * The bot runs in a child process (bench/scale-bot.ts): its CPU time (process.cpuUsage) and peak
 * RSS are the bot's alone, the emulator stays in this process. Peak RSS over the 5 cycles is the
 * kernel's high-water mark (getrusage maxRSS), reset when the window starts (Linux clear_refs);
 * the whole-life peak, with the start-up burst of the baseline cycle, is reported next to it.
 * Time is virtual (FakeClock): 5 intervals (300 s) are simulated in far less real time, so the
 * CPU share is CPU time / simulated time. The baseline cycle (first, silent poll of every site and
 * its token) runs before the measured window.
 *
 * Peak RSS depends on when V8 collects garbage (the live heap is small, the peak is mostly garbage
 * not yet collected), so one run is not a figure: the suite runs 3 independent bot processes (each
 * with its own emulator) and reports the median; they run side by side to keep the suite short
 * (CPU time and RSS are per process; a busy machine makes the run slower, not the figures larger).
 * A 4th process runs the same load with a V8 heap cap (`HEAP_CAP_ARGS`), as a deployment would set
 * with NODE_OPTIONS: reported separately, as information; the goal rows use the default flags.
 *
 * Real time (information): one bot process at production's pace (system clock, the watcher's own
 * timer, concurrency 4) for the baseline cycle, ONE warm-up interval, then a measured window of 2
 * intervals; next to it, on the same load and with the same shape, the FLOOR (bench/scale-floor.ts):
 * a minimal poller with none of the bot's code (undici, zod, keyv, the same libraries loaded, the
 * watcher's two job-list queries per poll), what node and the libraries cost by themselves at that
 * pace. Its row (`scale.rss.mb.floor`) is what the 100 MB goal is measured against.
 *
 * Other node binary (opt-in): with `BENCH_NODE=/path/to/node` 3 more bot processes run the goal
 * row's load with that binary (e.g. Node 24, the Docker image's runtime), side by side with the
 * others, and an info row reports their median peak RSS (`scale.rss.mb.node24` for a Node 24
 * binary, `scale.rss.mb.bench_node` otherwise). The goal rows keep running on the suite's own node.
 */
import { type ChildProcess, fork, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator } from '../dev/emulator/index.js';
import { childEntry } from './child.js';
import { type BenchContext, fmtMs, median, type Row, totalRequests } from './lib.js';
import { type ChildMessage, childMessageSchema, type ScaleStart } from './scale-protocol.js';

type Result = Extract<ChildMessage, { type: 'result' }>;

/** Node flags of the heap-capped variant (what NODE_OPTIONS would carry in a deployment). */
export const HEAP_CAP_ARGS = ['--max-old-space-size=64', '--max-semi-space-size=2'];

export interface ScaleParams {
  siteCount: number;
  sitesPerWorkspace: number;
  cycles: number;
  intervalMs: number;
  latencyMs: number;
  jobsPerSite: number;
  changedShare: number;
  concurrency: number;
  /** Real time with the watcher's own timer (production) instead of the virtual clock. */
  realTime: boolean;
  /** SQLite file store (production's default) instead of the memory store. */
  sqlite?: boolean;
}

export interface ScaleRun {
  label: string;
  result: Result;
  requestsInWindow: number;
  runtime: string;
  nodeArgs: string[];
  /** The node binary the bot ran on when not the suite's own (BENCH_NODE). */
  execPath?: string;
}

/** The node binary named by BENCH_NODE and its `--version`; undefined when BENCH_NODE is unset. */
export function benchNodeBinary(
  env: NodeJS.ProcessEnv = process.env,
): { path: string; version: string } | undefined {
  const path = env.BENCH_NODE?.trim();
  if (!path) return undefined;
  const r = spawnSync(path, ['--version'], { encoding: 'utf8', timeout: 30_000 });
  const version = r.stdout?.trim() ?? '';
  if (r.error || r.status !== 0 || !/^v\d+\.\d+\.\d+/.test(version)) {
    throw new Error(
      `BENCH_NODE=${path}: not a runnable node binary (${r.error?.message ?? `exit ${r.status}, output ${JSON.stringify(version)}`})`,
    );
  }
  return { path, version };
}

export function scaleParams(quick: boolean): ScaleParams {
  return {
    siteCount: quick ? 40 : 1000,
    sitesPerWorkspace: 10,
    cycles: quick ? 2 : 5,
    intervalMs: 60_000,
    latencyMs: 50,
    jobsPerSite: 20,
    changedShare: 0.1,
    // Sites polled in parallel. CPU per poll does not depend on it; 32 shortens the real run.
    concurrency: 32,
    realTime: false,
  };
}

/** One bot process against its own emulator. */
export async function runScaleOnce(
  p: ScaleParams,
  opts: {
    nodeArgs?: string[];
    execPath?: string;
    label: string;
    log: (m: string) => void;
    /** The child entry: the bot (default) or the minimal poller (real time only). */
    entry?: 'scale-bot' | 'scale-floor';
  },
): Promise<ScaleRun> {
  const t0 = p.realTime ? Date.now() : Date.UTC(2026, 10, 22, 9, 0, 0);
  let emuNow = t0;
  const emu = await startEmulator({
    seed: false,
    latencyMs: p.latencyMs,
    now: p.realTime ? () => Date.now() : () => emuNow,
  });
  const sites = Array.from({ length: p.siteCount }, (_, i) => `S${String(i).padStart(3, '0')}`);
  const accountId = 'bench-scale';
  const accessKey = 'AKbenchscale00000000000001';
  emu.addWatermarkingAccount({ accountId, accessKey, siteIds: sites });
  const inflight = new Map<string, number[]>();
  for (const s of sites) {
    inflight.set(s, emu.bulkCreateJobs(s, p.jobsPerSite, { status: 'DM000', tasksPerJob: 1 }));
  }
  let cursor = 0;
  let serial = 0;
  const perCycle = Math.max(1, Math.round(p.siteCount * p.changedShare));
  const applyChanges = () => {
    for (let k = 0; k < perCycle; k++) {
      const site = sites[cursor++ % p.siteCount] as string;
      const ids = inflight.get(site) as number[];
      const done = ids.shift();
      if (done !== undefined) emu.finishJob(site, done);
      ids.push(emu.createJob(site, `scale-${++serial}`, [{ recipient: 'scale-viewer' }]));
    }
  };

  const dir = p.sqlite ? mkdtempSync(join(tmpdir(), 'bench-scale-')) : undefined;
  const bot = await childEntry(opts.entry ?? 'scale-bot');
  const nodeArgs = opts.nodeArgs ?? [];
  const child: ChildProcess = fork(bot.script, [], {
    execArgv: [...bot.execArgv, '--expose-gc', ...nodeArgs],
    env: { ...process.env, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    ...(opts.execPath ? { execPath: opts.execPath } : {}),
  });
  const cfg: ScaleStart = {
    type: 'start',
    wmBaseUrl: emu.wmBaseUrl,
    accountId,
    accessKey,
    sites,
    sitesPerWorkspace: p.sitesPerWorkspace,
    t0,
    intervalMs: p.intervalMs,
    cycles: p.cycles,
    concurrency: p.concurrency,
    realTime: p.realTime,
    storeUrl: dir ? `sqlite://${join(dir, 'store.sqlite')}` : 'memory://',
  };
  let counting = false;
  try {
    const result = await new Promise<Result>((resolve, reject) => {
      // Real time: baseline (or tokens), one warm-up interval, the window, and slack for a busy machine.
      const limitMs = p.realTime ? (p.cycles + 3) * p.intervalMs + 180_000 : 240_000;
      const timer = setTimeout(
        () => reject(new Error(`scale: bot process timed out after ${limitMs / 1000} s`)),
        limitMs,
      );
      child.on('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`scale: bot process exited (code ${code}) before sending a result`));
      });
      child.on('message', (raw: unknown) => {
        const parsed = childMessageSchema.safeParse(raw);
        if (!parsed.success) {
          reject(new Error(`scale: unreadable message from the bot: ${parsed.error.message}`));
          return;
        }
        const m = parsed.data;
        if (m.type === 'ready') {
          child.send(cfg);
        } else if (m.type === 'boundary') {
          // Service calls are counted from the first boundary: cycle 1 on the fake clock, the
          // window's start (cycle 0, after the warm-up interval) in real time.
          if (!counting) emu.resetRequestCounts();
          counting = true;
          emuNow = m.now;
          applyChanges();
          opts.log(`  scale ${opts.label}: cycle ${m.cycle} boundary reached`);
          child.send({ type: 'go' });
        } else if (m.type === 'result') {
          clearTimeout(timer);
          resolve(m);
        } else {
          clearTimeout(timer);
          reject(new Error(`scale: bot failed: ${m.message}`));
        }
      });
    });
    const failed = result.pollErrors + result.baselineErrors + result.warmupErrors;
    if (failed > 0) throw new Error(`scale ${opts.label}: ${failed} poll cycles failed`);
    return {
      label: opts.label,
      result,
      requestsInWindow: totalRequests(emu.requestCounts()),
      runtime: bot.runtime,
      nodeArgs,
      ...(opts.execPath ? { execPath: opts.execPath } : {}),
    };
  } finally {
    if (child.exitCode === null) child.kill();
    await emu.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
}

const cpuMsOf = (r: ScaleRun) => r.result.cpuUserMs + r.result.cpuSystemMs;

/** The V8 heap spaces at the sampled peak, largest first: "new 32 MB, old 40 MB, ...". */
function spaces(m: Result): string {
  return Object.entries(m.sampledPeak.spacesMb)
    .filter(([, v]) => v >= 0.5)
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${k.replace(/_space$/, '').replace(/_/g, ' ')} ${v.toFixed(0)} MB`)
    .join(', ');
}

/**
 * What the RSS at the sampled peak is made of (Linux): file-backed pages (node's own binary and
 * libraries, which no JavaScript change shrinks) and anonymous memory (the V8 heap, malloc,
 * WebAssembly memory of undici's HTTP parser, thread stacks). '' where /proc is not readable.
 */
function rssComposition(m: Result): string {
  const p = m.sampledPeak;
  if (p.rssFileMb === undefined || p.rssAnonMb === undefined) return '';
  const mb = (x: number) => `${x.toFixed(0)} MB`;
  const loaded = m.loadedSplit
    ? ` (with the modules loaded: ${mb(m.loadedSplit.rssFileMb)} file-backed, ${mb(m.loadedSplit.rssAnonMb)} anonymous)`
    : '';
  return `At that sample ${mb(p.rssFileMb)} of the RSS were file-backed pages (node's own binary and libraries) and ${mb(p.rssAnonMb)} anonymous memory, of which about ${mb(Math.max(0, p.rssAnonMb - p.heapTotalMb))} outside the V8 heap (malloc, WebAssembly, stacks)${loaded}. `;
}

/** The run whose window peak is the median of `runs` (3), for the detail in the notes. */
function medianRun(runs: readonly ScaleRun[]): ScaleRun {
  const peak = (r: ScaleRun) => (r.result.peakReset ? r.result.windowPeakRssMb : r.result.maxRssMb);
  return [...runs].sort((a, b) => peak(a) - peak(b))[Math.floor(runs.length / 2)] as ScaleRun;
}

/**
 * The real-time rows' window in intervals (bot and floor alike): 2 by default (the full suite stays
 * under 15 minutes); `BENCH_SCALE_RT_CYCLES=N` measures a longer steady state (each interval is 60 s
 * of wall time: V8's young generation keeps growing for several minutes at this load).
 */
export function realTimeCycles(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.BENCH_SCALE_RT_CYCLES?.trim();
  if (!raw) return 2;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 60) {
    throw new Error(`BENCH_SCALE_RT_CYCLES=${raw}: a whole number of intervals from 1 to 60`);
  }
  return n;
}

export async function benchScale(ctx: BenchContext): Promise<Row[]> {
  const p = scaleParams(ctx.quick);
  const runs = 3;
  const other = benchNodeBinary();
  const windowMs = p.cycles * p.intervalMs;
  // The same sites in REAL time at production's pace (the system clock, the watcher's own timer,
  // src/main.ts's default WATCH_CONCURRENCY of 4): whether the peak comes from the fake clock's
  // compression (7x the allocation rate) or from the steady state itself. Information only. After
  // the baseline cycle, one warm-up interval runs before the window (see scale-bot.ts); the floor
  // process runs the same params.
  const rt: ScaleParams = {
    ...p,
    realTime: true,
    concurrency: 4,
    cycles: ctx.quick ? 1 : realTimeCycles(),
    intervalMs: ctx.quick ? 5_000 : p.intervalMs,
  };
  const jobs = [
    ...Array.from({ length: runs }, (_, i) => runScaleOnce(p, { label: `run ${i + 1}`, log: ctx.log })),
    runScaleOnce(p, { label: 'heap cap', nodeArgs: HEAP_CAP_ARGS, log: ctx.log }),
    runScaleOnce(rt, { label: 'real time', log: ctx.log }),
    runScaleOnce({ ...p, sqlite: true }, { label: 'SQLite', log: ctx.log }),
    // The floor: a minimal poller (no bot code) on the real-time run's load and window.
    runScaleOnce(rt, { label: 'floor', entry: 'scale-floor', log: ctx.log }),
    // BENCH_NODE: the goal row's load on another node binary, side by side with the runs above.
    ...(other
      ? Array.from({ length: runs }, (_, i) =>
          runScaleOnce(p, {
            label: `${other.version} run ${i + 1}`,
            execPath: other.path,
            log: ctx.log,
          }),
        )
      : []),
  ];
  const all = await Promise.all(jobs);
  const plain = all.slice(0, runs);
  const capped = all[runs] as ScaleRun;
  const real = all[runs + 1] as ScaleRun;
  const sqlite = all[runs + 2] as ScaleRun;
  const floor = all[runs + 3] as ScaleRun;
  const alt = all.slice(runs + 4);
  for (const r of alt) {
    if (other && r.result.nodeVersion !== other.version) {
      throw new Error(
        `scale: BENCH_NODE=${other.path} says ${other.version} but its bot process ran ${r.result.nodeVersion}`,
      );
    }
  }
  for (const r of all) {
    ctx.log(
      `  scale ${r.label} [node ${r.result.nodeVersion}]${r.nodeArgs.length ? ` [${r.nodeArgs.join(' ')}]` : ''}: ${r.result.polls} polls, CPU ${fmtMs(cpuMsOf(r))} over ${fmtMs(r.result.simulatedMs)} simulated (${fmtMs(r.result.realMs)} real), peak RSS window ${r.result.windowPeakRssMb.toFixed(0)} MB, whole life ${r.result.maxRssMb.toFixed(0)} MB`,
    );
  }
  // Denominator: the nominal simulated window (cycles x interval). The virtual clock also moves
  // during the delivery pacing sleeps; counting those would flatter the share.
  const shares = plain.map((r) => cpuMsOf(r) / windowMs);
  const share = median(shares);
  // Goal figure: the peak RSS over the 5 simulated cycles (the issue's window), from the kernel's
  // high-water mark reset at the window start; the whole-life peak (the baseline cycle, every site
  // polled at once at start-up, included) is reported next to it.
  const resetOk = plain.every((r) => r.result.peakReset);
  const windowPeak = (r: ScaleRun) => (r.result.peakReset ? r.result.windowPeakRssMb : r.result.maxRssMb);
  const rss = plain.map(windowPeak);
  const rssMedian = median(rss);
  const life = plain.map((r) => r.result.maxRssMb);
  const lifeMedian = median(life);
  // The run whose window peak is the median (for the detail in the note).
  const mid = medianRun(plain);
  const m = mid.result;
  const mb = (x: number) => `${x.toFixed(0)} MB`;
  const note =
    `${p.siteCount} sites / ${p.siteCount / p.sitesPerWorkspace} workspaces, ${p.jobsPerSite} in-flight jobs per site, ` +
    `${Math.round(p.siteCount * p.changedShare)} sites change per interval, emulator latency ${p.latencyMs} ms, watcher concurrency ${p.concurrency}. ` +
    `FAKE CLOCK: ${p.cycles} intervals = ${fmtMs(windowMs)} of virtual time ran in ${fmtMs(m.realMs)} real; ` +
    `${m.polls} polls, ${mid.requestsInWindow} service calls (first boundary to end), ${m.posts} Slack posts + ${m.updates} edits (counting poster, no Slack I/O); ` +
    `Fixed ${fmtMs(p.intervalMs)} interval (the active interval set equal to it): with adaptive polling's default 2 s active interval each of these sites (all have jobs in flight) would be polled up to 30x as often, bounded per workspace by WATCH_CALL_BUDGET_PER_MINUTE. ` +
    `The watcher runs with the production entry's options (src/main.ts): targets re-listed every 10 s; memory store (production's default is SQLite). CPU share = bot-process CPU (user + sys) / simulated time; median of ${runs} independent bot processes run side by side: ${shares.map((s) => `${(s * 100).toFixed(2)} %`).join(', ')}.`;
  const rssNote =
    (resetOk
      ? `peak RSS of each bot process over the ${p.cycles} cycles (kernel high-water mark, reset when the window starts; no forced GC before it)`
      : 'peak RSS of each bot process over its whole life (the high-water mark could not be reset on this OS)') +
    `, run as ${mid.runtime} on node ${m.nodeVersion}; median of ${runs} processes: ${rss.map(mb).join(', ')}. ` +
    `Median run: RSS ${mb(m.rssLoadedMb)} with the modules loaded and nothing run yet (node itself about 40 MB), ${mb(m.rssBeforeMb)} when the window started; highest RSS sampled in the window ${mb(m.sampledPeak.rssMb)} (V8 heap total ${mb(m.sampledPeak.heapTotalMb)} = ${spaces(m)}; used ${mb(m.sampledPeak.heapUsedMb)}, external ${mb(m.sampledPeak.externalMb)}). ` +
    rssComposition(m) +
    `Live JS heap after a full GC at the end ${mb(m.heapLiveEndMb)}: the peak is mostly garbage V8 had not collected yet. Ratio is against the 100 MB goal.`;
  const c = capped.result;
  const r = real.result;
  const realShare = cpuMsOf(real) / r.realMs;
  const q = sqlite.result;
  const sqliteShare = cpuMsOf(sqlite) / windowMs;
  const realPeak = windowPeak(real);
  const f = floor.result;
  const floorPeak = windowPeak(floor);
  const fx = f.floor;
  const floorNote =
    `what the goal is measured against: a FLOOR process (bench/scale-floor.ts) with none of the bot's src/ code, next to the real-time bot, on the same emulator set-up (${rt.siteCount} sites, ${p.jobsPerSite} in-flight jobs per site, the same changes at the same boundaries, latency ${p.latencyMs} ms), same pace, window and measurement: real time, default flags, one process. ` +
    `It DOES: load the libraries the bot loads (undici, zod, keyv, pino, prom-client, jose, p-limit); get one token per site at start as src/api/wm-token.ts does (GET /api/token/{site}, Basic credentials; ${fx?.tokenCalls ?? 0} calls, kept for the run); poll every site once per interval evenly spread (site i at i x ${fmtMs(rt.intervalMs)} / ${rt.siteCount}), ${rt.concurrency} at a time (p-limit), over one keep-alive undici Agent; ` +
    `per poll the watcher's two job-list queries (in-flight DM000,DM001 and the terminal window DM500,DM600 from the previous poll's date minus 5 min and 24 h; page_unit 1000, time_zone +00:00), each page parsed with a zod schema of the envelope and its jobs (${(fx?.jobsPerPoll ?? 0).toFixed(1)} jobs per poll); read, compare and rewrite one JSON state document per site (job id -> status, update time) in a keyv memory store (${fx?.stateDocs ?? 0} documents, ${(fx?.stateKb ?? 0).toFixed(0)} KB in all). ` +
    `It does NOT: run a Slack app or Web API client, subscriptions, filters or channel routing, task lookups (getJobTasks), message rendering or posting, token refresh or retries, paging past the first page, the targets re-listing, leases, store encryption, metrics endpoint or adaptive intervals. ` +
    `Tokens, then ONE warm-up interval (${f.warmupPolls} polls), then the high-water mark reset and the window of ${rt.cycles} interval(s): ${f.polls} polls, ${fx?.requests ?? 0} GETs, CPU share ${((cpuMsOf(floor) / f.realMs) * 100).toFixed(2)} % of a core, at most ${fx?.maxQueued ?? 0} polls queued. ` +
    `RSS ${mb(f.rssLoadedMb)} with the modules loaded (the bot: ${mb(r.rssLoadedMb)}), ${mb(f.rssBeforeMb)} when the window started; highest RSS sampled ${mb(f.sampledPeak.rssMb)} (V8 heap total ${mb(f.sampledPeak.heapTotalMb)} = ${spaces(f)}). ${rssComposition(f)}Whole-life peak ${mb(f.maxRssMb)}, live heap at the end ${mb(f.heapLiveEndMb)}. ` +
    `Value: the floor's window peak; reference: the bot's real-time window peak (row above); ratio = bot / floor. The bot's own cost over the floor: ${mb(realPeak - floorPeak)}; the goal's room above the floor: ${mb(100 - floorPeak)}.${rt.cycles < 8 ? ` A window of ${rt.cycles} interval(s) can end before V8 has grown the floor's young generation to its maximum (32 MB on node 20); BENCH_SCALE_RT_CYCLES=8 measures the steady state (BENCHMARKS.md, "Figure 3 over an 8-interval real-time window").` : ''}`;
  const otherRows: Row[] = [];
  if (other && alt.length > 0) {
    const altRss = alt.map(windowPeak);
    const altMedian = median(altRss);
    const a = medianRun(alt).result;
    const major = Number(/^v(\d+)\./.exec(other.version)?.[1]);
    otherRows.push({
      id: major === 24 ? 'scale.rss.mb.node24' : 'scale.rss.mb.bench_node',
      num: altMedian,
      unit: 'MB',
      refNum: 100,
      figure: `3 peak RSS, node ${other.version}`,
      value: mb(altMedian),
      reference: `node ${m.nodeVersion} ${mb(rssMedian)}`,
      ratio: altMedian / 100,
      goal: 'info (< 100 MB)',
      pass: undefined,
      note:
        `BENCH_NODE=${other.path}: the goal row's load and window, default flags, in ${alt.length} bot processes run by that binary side by side with the others (process.version in each bot: ${alt.map((r) => r.result.nodeVersion).join(', ')}; V8 ${a.v8Version}, against V8 ${m.v8Version} for the goal row). ` +
        `Median of ${altRss.map(mb).join(', ')} (whole-life peaks ${alt.map((r) => mb(r.result.maxRssMb)).join(', ')}); CPU share ${alt.map((r) => `${((cpuMsOf(r) / windowMs) * 100).toFixed(2)} %`).join(', ')}. ` +
        `Median run: RSS ${mb(a.rssLoadedMb)} with the modules loaded and nothing run yet, ${mb(a.rssBeforeMb)} when the window started; highest RSS sampled in the window ${mb(a.sampledPeak.rssMb)} (V8 heap total ${mb(a.sampledPeak.heapTotalMb)} = ${spaces(a)}; used ${mb(a.sampledPeak.heapUsedMb)}, external ${mb(a.sampledPeak.externalMb)}). ` +
        rssComposition(a) +
        `Live JS heap after a full GC at the end ${mb(a.heapLiveEndMb)}. Information only (the goal row runs on the suite's own node); ratio is against the 100 MB goal.`,
    });
  }
  return [
    {
      id: 'scale.cpu.pct',
      num: share * 100,
      unit: '%',
      refNum: 5,
      figure: '3 scale CPU share of a core',
      value: `${(share * 100).toFixed(2)} %`,
      reference: `${fmtMs(windowMs)} simulated`,
      ratio: share / 0.05,
      goal: '< 5 %',
      pass: share < 0.05,
      note,
    },
    {
      id: 'scale.rss.mb',
      num: rssMedian,
      unit: 'MB',
      refNum: 100,
      figure: '3 scale peak RSS',
      value: mb(rssMedian),
      reference: `${mb(median(plain.map((r) => r.result.rssBeforeMb)))} after baseline`,
      ratio: rssMedian / 100,
      goal: '< 100 MB',
      pass: rssMedian < 100,
      note: rssNote,
    },
    {
      figure: '3 peak RSS incl. start-up',
      value: mb(lifeMedian),
      reference: `window ${mb(rssMedian)}`,
      ratio: lifeMedian / 150,
      goal: 'info (< 150 MB)',
      pass: undefined,
      note: `whole-life peak RSS of the same processes (median of ${life.map(mb).join(', ')}): it includes the baseline cycle before the window, where all ${p.siteCount} sites are due at once at start-up and ${p.concurrency} polls run in parallel (production's default concurrency is 4). Ratio is against 150 MB.`,
    },
    {
      figure: '3 peak RSS, heap cap',
      value: mb(windowPeak(capped)),
      reference: `default flags ${mb(rssMedian)}`,
      ratio: windowPeak(capped) / rssMedian,
      goal: 'info (< 150 MB)',
      pass: undefined,
      note: `the same load in a bot process started with \`${HEAP_CAP_ARGS.join(' ')}\` (set through NODE_OPTIONS in a deployment), same window: CPU share ${((cpuMsOf(capped) / windowMs) * 100).toFixed(2)} %, whole-life peak ${mb(c.maxRssMb)}, live heap at the end ${mb(c.heapLiveEndMb)}, sampled peak heap total ${mb(c.sampledPeak.heapTotalMb)}. One process, information only: the goal rows above use node's default flags.`,
    },
    {
      figure: '3 peak RSS, real time',
      value: mb(windowPeak(real)),
      reference: `fake clock ${mb(rssMedian)}`,
      ratio: windowPeak(real) / 100,
      goal: 'info (< 100 MB)',
      pass: undefined,
      note: `the same ${rt.siteCount} sites in REAL time at production's pace: system clock, the watcher's own timer, concurrency ${rt.concurrency} (WATCH_CONCURRENCY's default), default flags; one process. After the baseline cycle the watcher's timer runs ONE warm-up interval of ${fmtMs(rt.intervalMs)} (the start-up burst settles: ${r.warmupPolls} polls), THEN the high-water mark is reset and the window of ${rt.cycles} interval(s) measured, as the floor row below. ${r.polls} polls in the window, CPU share ${(realShare * 100).toFixed(2)} % of a core over ${fmtMs(r.realMs)}; RSS ${mb(r.rssLoadedMb)} with the modules loaded, ${mb(r.rssBeforeMb)} when the window started; highest RSS sampled ${mb(r.sampledPeak.rssMb)} (V8 heap total ${mb(r.sampledPeak.heapTotalMb)} = ${spaces(r)}). ${rssComposition(r)}Whole-life peak ${mb(r.maxRssMb)}, live heap at the end ${mb(r.heapLiveEndMb)}. Ratio is against the 100 MB goal.`,
    },
    {
      id: 'scale.rss.mb.floor',
      num: floorPeak,
      unit: 'MB',
      refNum: realPeak,
      figure: '3 floor: minimal poller, real time',
      value: mb(floorPeak),
      reference: `bot real time ${mb(realPeak)}`,
      ratio: realPeak / floorPeak,
      goal: 'info (bot / floor)',
      pass: undefined,
      note: floorNote,
    },
    {
      figure: '3 SQLite store CPU share',
      value: `${(sqliteShare * 100).toFixed(2)} %`,
      reference: `memory store ${(share * 100).toFixed(2)} %`,
      ratio: sqliteShare / 0.05,
      goal: 'info (< 5 %)',
      pass: undefined,
      note: `the fake-clock load above with the bot on a SQLite file store (STORE_URL's default in production; the rows above use the memory store, which holds every document in the JS heap): one process, CPU ${fmtMs(cpuMsOf(sqlite))} over ${fmtMs(windowMs)} simulated; peak RSS in the window ${mb(windowPeak(sqlite))} (V8 heap total ${mb(q.sampledPeak.heapTotalMb)} = ${spaces(q)}); live heap at the end ${mb(q.heapLiveEndMb)}. Ratio is against the 5 % goal.`,
    },
    ...otherRows,
  ];
}
