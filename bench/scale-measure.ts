/**
 * Memory measurement shared by the figure-3 child processes (bench/scale-bot.ts, the bot;
 * bench/scale-floor.ts, the minimal poller): the RSS split from /proc, the highest RSS sampled
 * with the V8 heap spaces at that moment, and the kernel high-water mark reset at a window's start.
 * No import from src/: the floor process must not load any of the bot's code.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { getHeapSpaceStatistics } from 'node:v8';

export interface RssSplit {
  rssFileMb: number;
  rssAnonMb: number;
}

/**
 * RssFile and RssAnon of /proc/self/status in MB (Linux), undefined elsewhere: which part of the
 * RSS is pages of node's own binary and libraries, which part is anonymous memory.
 */
export function rssSplit(): RssSplit | undefined {
  try {
    const status = readFileSync('/proc/self/status', 'utf8');
    const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1]);
    const file = kb('RssFile');
    const anon = kb('RssAnon');
    return Number.isFinite(file) && Number.isFinite(anon)
      ? { rssFileMb: file / 1024, rssAnonMb: anon / 1024 }
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The highest RSS sampled, with memoryUsage(), the V8 heap spaces and the RSS split at that sample.
 * The first sample is taken when it is made (the window's start), so the detail is there even when
 * the RSS never rises above its level at the start.
 */
export class PeakSampler {
  peak!: NodeJS.MemoryUsage;
  spaces: Record<string, number> = {};
  split: RssSplit | undefined;

  constructor() {
    this.record(process.memoryUsage());
  }

  sample(): void {
    const m = process.memoryUsage();
    if (m.rss > this.peak.rss) this.record(m);
  }

  private record(m: NodeJS.MemoryUsage): void {
    this.peak = m;
    this.spaces = Object.fromEntries(
      getHeapSpaceStatistics().map((x) => [x.space_name, x.space_size / 2 ** 20]),
    );
    this.split = rssSplit();
  }

  /** The `sampledPeak` field of the result message (scale-protocol.ts). */
  result() {
    const p = this.peak;
    return {
      rssMb: p.rss / 2 ** 20,
      heapTotalMb: p.heapTotal / 2 ** 20,
      heapUsedMb: p.heapUsed / 2 ** 20,
      externalMb: p.external / 2 ** 20,
      spacesMb: this.spaces,
      ...(this.split ?? {}),
    };
  }
}

/**
 * Start a window's own peak: Linux resets the process's RSS high-water mark (VmHWM, which
 * getrusage's maxRSS reports) when "5" is written to /proc/self/clear_refs. True when that worked
 * (the mark is back near the current RSS; the process may have grown since `maxRssBeforeKb` was
 * read, so compare with both, 1 MB of slack). False elsewhere: the whole-life peak stands in.
 */
export function resetHighWaterMark(maxRssBeforeKb: number): boolean {
  try {
    writeFileSync('/proc/self/clear_refs', '5');
    const nowKb = process.memoryUsage().rss / 1024;
    return process.resourceUsage().maxRSS <= Math.max(maxRssBeforeKb, nowKb) + 1024;
  } catch {
    return false;
  }
}
