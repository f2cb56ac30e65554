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
    polls: z.number().int(),
    pollErrors: z.number().int(),
    posts: z.number().int(),
    updates: z.number().int(),
    rssBeforeMb: z.number(),
    rssLoadedMb: z.number(),
    rssEndMb: z.number(),
    /** JS heap in use after a full GC at the end (live data). */
    heapLiveEndMb: z.number(),
    /** maxRSS when the baseline cycle (every site's first poll and token) was over. */
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
    /** process.version of the bot process (the node binary it actually ran on, BENCH_NODE or not). */
    nodeVersion: z.string(),
    /** process.versions.v8 of the bot process. */
    v8Version: z.string(),
  }),
  z.object({ type: z.literal('error'), message: z.string() }),
]);
export type ChildMessage = z.infer<typeof childMessageSchema>;
