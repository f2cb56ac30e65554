/**
 * Pieces shared by the watcher figures: a cheap recording ChannelPoster (the Slack side is not
 * what figures 2 and 3 measure) and a watcher wired to the emulator with a virtual clock.
 */
import type { ApiFactory, WorkspaceCredentials } from '../src/api/types.js';
import { watchWords } from '../src/slack/kit/blocks/paused-reason.js';
import type { Store } from '../src/store/types.js';
import { createWatcher, type Watcher, type WatcherOptions } from '../src/watch/index.js';
import { plainRenderer } from '../src/watch/render.js';
import type { ChannelMessage, ChannelPoster, Clock, PostOptions } from '../src/watch/types.js';

/** Keeps only counts (no message bodies) so it adds next to nothing to CPU and memory. */
export class CountingPoster implements ChannelPoster {
  posts = 0;
  updates = 0;
  private seq = 0;
  constructor(private readonly clock: { now(): number }) {}
  async post(_channel: string, _message: ChannelMessage, _opts: PostOptions): Promise<{ ts: string }> {
    this.posts++;
    return { ts: `${Math.floor(this.clock.now() / 1000)}.${String(++this.seq).padStart(6, '0')}` };
  }
  async update(): Promise<void> {
    this.updates++;
  }
  async findByMetadata(): Promise<undefined> {
    return undefined;
  }
}

export interface BenchWatcherOptions {
  store: Store;
  api: ApiFactory;
  clock: Clock;
  credentials: (ws: string) => WorkspaceCredentials | undefined;
  poster: ChannelPoster;
  overrides?: Partial<WatcherOptions>;
}

export function benchWatcher(o: BenchWatcherOptions): Watcher {
  return createWatcher({
    store: o.store,
    api: o.api,
    credentials: async (ws) => o.credentials(ws),
    poster: () => o.poster,
    renderer: plainRenderer,
    words: watchWords,
    clock: o.clock,
    intervalMs: 60_000,
    holderId: 'bench-holder',
    // Pacing per channel is virtual time under the fake clock: it costs nothing real.
    ...o.overrides,
  });
}
