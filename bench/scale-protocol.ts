/** Messages between the scale figure (parent, holds the emulator) and its bot process (child). */
import { z } from 'zod';

export const scaleStartSchema = z.object({
  type: z.literal('start'),
  wmBaseUrl: z.string().url(),
  accountId: z.string(),
  accessKey: z.string(),
  sites: z.array(z.string()),
  sitesPerWorkspace: z.number().int().positive(),
  t0: z.number(),
  intervalMs: z.number().int().positive(),
  cycles: z.number().int().positive(),
  concurrency: z.number().int().positive(),
  /**
   * Real time (the system clock and the watcher's own timer, as in production) instead of the
   * virtual clock: the parent applies each cycle's changes on its own timer and sends `go` at
   * every boundary without waiting for the bot.
   */
  realTime: z.boolean().default(false),
  /** The bot's store (STORE_URL): memory by default; a SQLite file for the production-default row. */
  storeUrl: z.string().default('memory://'),
});
export type ScaleStart = z.infer<typeof scaleStartSchema>;

/** Parent -> child: the emulator applied this cycle's changes. */
export const scaleGoSchema = z.object({ type: z.literal('go') });

export const childMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  /** The virtual clock reached a cycle boundary: apply the changes for cycle `cycle`, at `now`. */
  z.object({ type: z.literal('boundary'), cycle: z.number().int(), now: z.number() }),
  z.object({
    type: z.literal('result'),
    baselineErrors: z.number().int(),
    cpuUserMs: z.number(),
    cpuSystemMs: z.number(),
    simulatedMs: z.number(),
    realMs: z.number(),
    /** Poll cycles in the measured window, and those that failed. */
    polls: z.number().int(),
    pollErrors: z.number().int(),
    /** Real time: poll cycles in the warm-up interval before the window, and those that failed. */
    warmupPolls: z.number().int().default(0),
    warmupErrors: z.number().int().default(0),
    posts: z.number().int(),
    updates: z.number().int(),
    rssBeforeMb: z.number(),
    rssLoadedMb: z.number(),
    rssEndMb: z.number(),
    /** JS heap in use after a full GC at the end (live data). */
    heapLiveEndMb: z.number(),
    /**
     * maxRSS when the window started: after the baseline cycle (every site's first poll and token)
     * and, in real time, the warm-up interval.
     */
    maxRssAfterBaselineMb: z.number(),
    /** memoryUsage() at the highest RSS sampled after each tick of the measured window. */
    sampledPeak: z.object({
      rssMb: z.number(),
      heapTotalMb: z.number(),
      heapUsedMb: z.number(),
      externalMb: z.number(),
      /** V8 heap spaces (committed MB) at that moment: new_space, old_space, code_space, ... */
      spacesMb: z.record(z.string(), z.number()),
      /**
       * /proc/self/status at that moment (Linux; absent elsewhere): RssFile = file-backed pages
       * (node's own binary and shared libraries), RssAnon = anonymous memory (the V8 heap, malloc,
       * WebAssembly memory, thread stacks).
       */
      rssFileMb: z.number().optional(),
      rssAnonMb: z.number().optional(),
    }),
    /** The same split once the modules are loaded, before anything runs. */
    loadedSplit: z.object({ rssFileMb: z.number(), rssAnonMb: z.number() }).optional(),
    /** Peak RSS of the whole life, baseline cycle included. */
    maxRssMb: z.number(),
    /** Peak RSS of the measured window (the 5 cycles), when peakReset. */
    windowPeakRssMb: z.number(),
    /** The RSS high-water mark was reset at the start of the window (Linux /proc/self/clear_refs). */
    peakReset: z.boolean(),
    /** The floor process (bench/scale-floor.ts) only: what it kept and fetched. */
    floor: z
      .object({
        /** Token calls made at start (one per site, Basic credentials, as src/api/wm-token.ts). */
        tokenCalls: z.number().int(),
        /** GET requests in the window (two per poll). */
        requests: z.number().int(),
        /** State documents in keyv at the end, and their total JSON size. */
        stateDocs: z.number().int(),
        stateKb: z.number(),
        /** Jobs parsed per poll in the window (both lists), mean. */
        jobsPerPoll: z.number(),
        /** Highest number of polls queued behind the concurrency limit. */
        maxQueued: z.number().int(),
      })
      .optional(),
    /** process.version of the bot process (the node binary it actually ran on, BENCH_NODE or not). */
    nodeVersion: z.string(),
    /** process.versions.v8 of the bot process. */
    v8Version: z.string(),
  }),
  z.object({ type: z.literal('error'), message: z.string() }),
]);
export type ChildMessage = z.infer<typeof childMessageSchema>;

// -- The child side (bench/scale-bot.ts, bench/scale-floor.ts) -----------------------------------

/** A message to the parent (no-op when the process was not forked). */
export function send(m: ChildMessage): void {
  process.send?.(m);
}

let goWaiter: (() => void) | undefined;
/** Resolves at the parent's next `go` (ask before sending the boundary it answers). */
export function waitGo(): Promise<void> {
  return new Promise((resolve) => {
    goWaiter = resolve;
  });
}

/**
 * Serve the parent: `go` releases `waitGo`, `start` runs `run` once (its failure is sent as an
 * `error` message), and the process disconnects when it ends. Says `ready` at once.
 */
export function serveScaleChild(run: (cfg: ScaleStart) => Promise<void>): void {
  process.on('message', (raw: unknown) => {
    if (scaleGoSchema.safeParse(raw).success) {
      goWaiter?.();
      return;
    }
    const start = scaleStartSchema.safeParse(raw);
    if (!start.success) {
      send({ type: 'error', message: `bad message from the parent: ${start.error.message}` });
      return;
    }
    run(start.data)
      .catch((e: unknown) =>
        send({ type: 'error', message: e instanceof Error ? (e.stack ?? e.message) : String(e) }),
      )
      .finally(() => process.disconnect?.());
  });
  send({ type: 'ready' });
}
