/**
 * The bot side of figure 3, in its own process so its CPU time and RSS are the bot's alone (the
 * emulator and the harness live in the parent). Started by bench/scale.ts with `fork`; talks over
 * IPC (bench/scale-protocol.ts).
 *
 * Virtual time: a FakeClock steps 1 s at a time and the watcher's own `tick()` runs after every
 * step (what its timer does in production, at most once a second), so each site is polled when
 * its jittered interval is due. CPU share = CPU time of this process / simulated time.
 *
 * Real time (the parent's real-time row): the system clock and the watcher's own timer. Baseline
 * cycle, then ONE warm-up interval with the timer running, then the high-water mark is reset and
 * the window (`cycles` intervals) measured, the same shape as the floor process
 * (bench/scale-floor.ts) that runs next to it.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { createApi } from '../src/api/index.js';
import type { ApiFactory, WorkspaceCredentials } from '../src/api/types.js';
import { createStore } from '../src/store/index.js';
import { FakeClock, systemClock } from '../src/watch/clock.js';
import type { Clock } from '../src/watch/types.js';
import { ENCRYPTION_KEY } from './lib.js';
import { PeakSampler, resetHighWaterMark, rssSplit } from './scale-measure.js';
import { type ScaleStart, send, serveScaleChild, waitGo } from './scale-protocol.js';
import { benchWatcher, CountingPoster } from './support.js';

/**
 * Virtual time where a sleep (delivery pacing, Retry-After) does not move the clock for everyone:
 * in production a sleeping delivery does not delay other sites' polls, and a sleep costs no CPU.
 * (FakeClock.sleep advances the shared clock, which would make every site due early.)
 */
class BenchClock extends FakeClock {
  override async sleep(ms: number): Promise<void> {
    this.slept += Math.max(0, ms);
    await Promise.resolve();
  }
}

/** RSS once the modules are loaded, before anything runs: the floor of every figure below. */
const rssLoaded = process.memoryUsage().rss;
const loadedSplit = rssSplit();

async function run(cfg: ScaleStart): Promise<void> {
  // Real time: the system clock and the API's own defaults, as src/main.ts builds them.
  const fake = cfg.realTime ? undefined : new BenchClock(cfg.t0);
  const clock: Clock = fake ?? systemClock;
  const api = fake
    ? createApi({ clock: () => fake.now(), sleep: (ms) => fake.sleep(ms), random: () => 0.5 })
    : createApi();
  const store = await createStore({ url: cfg.storeUrl, encryptionKey: ENCRYPTION_KEY, namespace: 'bench3' });
  const credsByWs = new Map<string, WorkspaceCredentials>();
  const poster = new CountingPoster(clock);
  let polls = 0;
  let pollErrors = 0;
  // The watcher asks the factory for a client once per poll cycle: count cycles there.
  const countingApi: ApiFactory = {
    ...api,
    watermarking: (c) => {
      polls++;
      return api.watermarking(c);
    },
  };
  const watcher = benchWatcher({
    store,
    api: countingApi,
    clock,
    poster,
    credentials: (ws) => credsByWs.get(ws),
    overrides: {
      intervalMs: cfg.intervalMs,
      // A fixed interval: this figure is the per-site cost at the idle interval (every site here
      // has jobs in flight; adaptive polling would poll them every 2 s, see figure 6 and the note).
      activeIntervalMs: cfg.intervalMs,
      concurrency: cfg.concurrency,
      // As the production entry (src/main.ts) starts the watcher: the watched sites are re-listed
      // every 10 s, not at every tick (without it each virtual second re-read all 1,000
      // subscription documents: most of this figure's garbage and RSS).
      targetsCacheMs: 10_000,
      events: (e) => {
        if (e.type === 'poll-failed' || e.type === 'admin-alert') pollErrors++;
      },
    },
  });
  for (let i = 0; i < cfg.sites.length; i += cfg.sitesPerWorkspace) {
    const ws = `T${String(i / cfg.sitesPerWorkspace).padStart(8, '0')}`;
    const siteIds = cfg.sites.slice(i, i + cfg.sitesPerWorkspace);
    credsByWs.set(ws, {
      siteIds,
      defaultSiteId: siteIds[0] as string,
      watermarking: { accountId: cfg.accountId, accessKey: cfg.accessKey, baseUrl: cfg.wmBaseUrl },
    });
    for (const siteId of siteIds) {
      await watcher.subscriptions.create(ws, {
        channelId: `C${siteId}`,
        siteId,
        filters: { statuses: [], mode: 'all' },
        createdBy: 'UBENCH',
      });
    }
  }
  // Baseline cycle (every site due at t0): silent first poll, tokens issued. Not measured.
  await watcher.tick();
  const baselineErrors = pollErrors;
  const baselinePolls = polls;
  if (!fake) {
    // Real time: ONE warm-up interval with the watcher's own timer running (the start-up burst,
    // every site due within one jittered interval of the baseline, settles), then the window.
    // The parent applies the window's first changes at this boundary (cycle 0).
    watcher.start();
    await new Promise((r) => setTimeout(r, cfg.intervalMs));
  }
  const warmupPolls = polls - baselinePolls;
  const warmupErrors = pollErrors - baselineErrors;
  const maxRssAfterBaseline = process.resourceUsage().maxRSS;
  const sampler = new PeakSampler();
  // No forced GC here: the window starts with whatever the baseline cycle left, as in production.
  const rssBefore = process.memoryUsage().rss;
  // The window's own peak (kernel high-water mark reset); elsewhere the whole-life peak (baseline
  // included) stands in, and the parent says so.
  const peakReset = resetHighWaterMark(maxRssAfterBaseline);
  const windowPolls0 = polls;
  const windowErrors0 = pollErrors;

  // Profiling knob (not used by the suite's figures): BENCH_SCALE_HEAP_PROFILE=FILE samples every
  // allocation of the window (collected ones included) and writes a .heapprofile (Chrome DevTools).
  // BENCH_SCALE_CPU_PROFILE=FILE writes a .cpuprofile of the window the same way.
  const heapProfile = process.env.BENCH_SCALE_HEAP_PROFILE;
  const cpuProfile = process.env.BENCH_SCALE_CPU_PROFILE;
  const inspector = heapProfile || cpuProfile ? new Session() : undefined;
  const post = (method: string, params?: object) =>
    new Promise<unknown>((resolve, reject) =>
      inspector?.post(method, params, (err, res) => (err ? reject(err) : resolve(res))),
    );
  if (inspector) {
    inspector.connect();
    if (heapProfile) {
      await post('HeapProfiler.startSampling', {
        samplingInterval: 16384,
        includeObjectsCollectedByMajorGC: true,
        includeObjectsCollectedByMinorGC: true,
      });
    }
    if (cpuProfile) {
      await post('Profiler.enable');
      await post('Profiler.start');
    }
  }
  const cpu0 = process.cpuUsage();
  const real0 = performance.now();
  const sim0 = clock.now();
  if (fake) {
    const steps = Math.round((cfg.cycles * cfg.intervalMs) / 1000);
    for (let step = 1; step <= steps; step++) {
      fake.advance(1000);
      if ((step * 1000) % cfg.intervalMs === 0 && step < steps) {
        const go = waitGo();
        send({ type: 'boundary', cycle: (step * 1000) / cfg.intervalMs, now: fake.now() });
        await go;
      }
      await watcher.tick();
      sampler.sample();
    }
  } else {
    // Real time: the watcher's own timer (running since the warm-up) polls each site when its
    // jittered interval is due, as in production; RSS is sampled 5 times a second; the parent
    // applies each cycle's changes at its boundary while the watcher keeps running.
    const go = waitGo();
    send({ type: 'boundary', cycle: 0, now: Date.now() });
    await go;
    const timer = setInterval(() => sampler.sample(), 200);
    for (let cycle = 1; cycle <= cfg.cycles; cycle++) {
      await new Promise((r) => setTimeout(r, sim0 + cycle * cfg.intervalMs - Date.now()));
      if (cycle < cfg.cycles) {
        const next = waitGo();
        send({ type: 'boundary', cycle, now: Date.now() });
        await next;
      }
    }
    clearInterval(timer);
    sampler.sample();
  }
  const cpu = process.cpuUsage(cpu0);
  const realMs = performance.now() - real0;
  if (inspector && heapProfile) {
    const { profile } = (await post('HeapProfiler.stopSampling')) as { profile: unknown };
    writeFileSync(heapProfile, JSON.stringify(profile));
  }
  if (inspector && cpuProfile) {
    const { profile } = (await post('Profiler.stop')) as { profile: unknown };
    writeFileSync(cpuProfile, JSON.stringify(profile));
  }
  inspector?.disconnect();
  const simulatedMs = clock.now() - sim0;
  const rssEnd = process.memoryUsage().rss;
  const windowMaxRssKb = process.resourceUsage().maxRSS;
  global.gc?.();
  const heapLiveEnd = process.memoryUsage().heapUsed;
  const maxRssKb = process.resourceUsage().maxRSS;
  await watcher.stop();
  await api.close();
  await store.close();
  send({
    type: 'result',
    baselineErrors,
    cpuUserMs: cpu.user / 1000,
    cpuSystemMs: cpu.system / 1000,
    simulatedMs,
    realMs,
    polls: polls - windowPolls0,
    pollErrors: pollErrors - windowErrors0,
    warmupPolls,
    warmupErrors,
    posts: poster.posts,
    updates: poster.updates,
    rssBeforeMb: rssBefore / 2 ** 20,
    rssLoadedMb: rssLoaded / 2 ** 20,
    rssEndMb: rssEnd / 2 ** 20,
    heapLiveEndMb: heapLiveEnd / 2 ** 20,
    maxRssAfterBaselineMb: maxRssAfterBaseline / 1024,
    sampledPeak: sampler.result(),
    ...(loadedSplit ? { loadedSplit } : {}),
    maxRssMb: Math.max(maxRssKb, maxRssAfterBaseline) / 1024,
    windowPeakRssMb: windowMaxRssKb / 1024,
    peakReset,
    nodeVersion: process.version,
    v8Version: process.versions.v8,
  });
}

serveScaleChild(run);
