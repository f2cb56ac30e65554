/**
 * Test harness for the watcher: the real emulator (loopback), the real API factory and store,
 * a virtual clock shared by all three, and a recording ChannelPoster with fault injection.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator } from '../../../dev/emulator/index.js';
import type { EmulatorHandle } from '../../../dev/emulator/types.js';
import { createApi } from '../../../src/api/index.js';
import type { WorkspaceCredentials } from '../../../src/api/types.js';
import { watchWords } from '../../../src/slack/kit/blocks/paused-reason.js';
import { createStore } from '../../../src/store/index.js';
import type { Store } from '../../../src/store/types.js';
import { FakeClock } from '../../../src/watch/clock.js';
import { createWatcher, type Watcher, type WatcherOptions } from '../../../src/watch/index.js';
import { plainRenderer } from '../../../src/watch/render.js';
import type { ChannelMessage, ChannelPoster, PostOptions, WatchEvent } from '../../../src/watch/types.js';

export const WS = 'T0WATCH01';
export const SITE = 'AB12';
export const SITE2 = 'CD34';
export const ENCRYPTION_KEY = '0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef';

export interface PostedMessage {
  channel: string;
  ts: string;
  text: string;
  threadTs?: string;
  broadcast: boolean;
  key: string;
  /** Texts of later chat.update calls, in order. */
  updates: string[];
}

type Fault = (call: 'post' | 'update', channel: string) => 'before' | 'after' | undefined | Error;

/** Records every post/update; `faults` decide per call to throw before or after the effect. */
export class RecordingPoster implements ChannelPoster {
  messages: PostedMessage[] = [];
  calls = 0;
  private seq = 0;
  faults: Fault[] = [];
  afterError: () => Error = () => new Error('simulated crash after posting');

  constructor(private readonly clock: FakeClock) {}

  private check(call: 'post' | 'update', channel: string): 'after' | undefined {
    this.calls++;
    for (const f of this.faults) {
      const r = f(call, channel);
      if (r instanceof Error) throw r;
      if (r === 'before') throw new Error('simulated crash before posting');
      if (r === 'after') return 'after';
    }
    return undefined;
  }

  async post(channel: string, message: ChannelMessage, opts: PostOptions): Promise<{ ts: string }> {
    const when = this.check('post', channel);
    const ms = this.clock.now();
    const ts = `${Math.floor(ms / 1000)}.${String(++this.seq).padStart(6, '0')}`;
    this.messages.push({
      channel,
      ts,
      text: message.text,
      ...(opts.threadTs ? { threadTs: opts.threadTs } : {}),
      broadcast: opts.broadcast === true,
      key: opts.metadata.event_payload.key,
      updates: [],
    });
    if (when === 'after') throw this.afterError();
    return { ts };
  }

  async update(channel: string, ts: string, message: ChannelMessage): Promise<void> {
    const when = this.check('update', channel);
    const m = this.messages.find((x) => x.channel === channel && x.ts === ts);
    if (!m) throw new Error(`update of unknown message ${ts}`);
    m.updates.push(message.text);
    if (when === 'after') throw this.afterError();
  }

  async findByMetadata(channel: string, key: string, sinceTs: string, threadTs?: string) {
    const m = this.messages.find(
      (x) =>
        x.channel === channel &&
        x.key === key &&
        Number(x.ts) >= Number(sinceTs) &&
        (threadTs === undefined || x.threadTs === threadTs),
    );
    return m ? { ts: m.ts } : undefined;
  }

  topLevel(channel: string): PostedMessage[] {
    return this.messages.filter((m) => m.channel === channel && !m.threadTs);
  }
  inThread(channel: string, parentTs: string): PostedMessage[] {
    return this.messages.filter((m) => m.channel === channel && m.threadTs === parentTs);
  }
  /** Messages visible in the channel itself: top level plus broadcast replies. */
  visible(channel: string): PostedMessage[] {
    return this.messages.filter((m) => m.channel === channel && (!m.threadTs || m.broadcast));
  }
  /** Delivery keys posted more than once (must stay empty). */
  duplicateKeys(): string[] {
    const seen = new Map<string, number>();
    for (const m of this.messages) seen.set(m.key, (seen.get(m.key) ?? 0) + 1);
    return [...seen].filter(([, n]) => n > 1).map(([k]) => k);
  }
  cardOf(channel: string, jobId: number): PostedMessage | undefined {
    return this.topLevel(channel).find(
      (m) => m.key.split('|')[2] === String(jobId) && m.key.includes('|card:'),
    );
  }
}

export interface Harness {
  clock: FakeClock;
  emu: EmulatorHandle;
  store: Store;
  api: ReturnType<typeof createApi>;
  poster: RecordingPoster;
  events: WatchEvent[];
  creds: WorkspaceCredentials;
  watcher(overrides?: Partial<WatcherOptions>): Watcher;
  /** Advance the virtual clock by one poll interval (job update times move on). */
  tick(ms?: number): void;
  close(): Promise<void>;
}

export interface HarnessOptions {
  storeUrl?: 'memory' | 'sqlite' | string;
  /** Share a store (restart tests re-open the same one). */
  store?: Store;
}

export async function startHarness(opts: HarnessOptions = {}): Promise<Harness> {
  const clock = new FakeClock();
  const emu = await startEmulator({ seed: false, now: () => clock.now() });
  emu.addWatermarkingAccount({
    accountId: 'acme-wm',
    accessKey: 'AKtestwatch0000000000000001',
    siteIds: [SITE, SITE2],
  });
  const api = createApi({ clock: () => clock.now(), sleep: (ms) => clock.sleep(ms), random: () => 0.5 });
  let dir: string | undefined;
  let store = opts.store;
  if (!store) {
    let url = 'memory://';
    if (opts.storeUrl === 'sqlite') {
      dir = mkdtempSync(join(tmpdir(), 'watch-'));
      url = `sqlite://${join(dir, 'w.sqlite')}`;
    } else if (opts.storeUrl && opts.storeUrl !== 'memory') url = opts.storeUrl;
    store = await createStore({
      url,
      encryptionKey: ENCRYPTION_KEY,
      namespace: `t-${Math.random().toString(36).slice(2)}`,
    });
  }
  const poster = new RecordingPoster(clock);
  const events: WatchEvent[] = [];
  const creds: WorkspaceCredentials = {
    siteIds: [SITE, SITE2],
    defaultSiteId: SITE,
    watermarking: { accountId: 'acme-wm', accessKey: 'AKtestwatch0000000000000001', baseUrl: emu.wmBaseUrl },
  };
  const s = store;
  const watchers: Watcher[] = [];
  return {
    clock,
    emu,
    store: s,
    api,
    poster,
    events,
    creds,
    watcher(overrides = {}) {
      const w = createWatcher({
        store: s,
        api,
        credentials: async () => creds,
        poster: () => poster,
        renderer: plainRenderer,
        words: watchWords,
        clock,
        intervalMs: 60_000,
        holderId: 'holder-A',
        events: (e) => events.push(e),
        ...overrides,
      });
      watchers.push(w);
      return w;
    },
    tick(ms = 60_000) {
      clock.advance(ms);
    },
    async close() {
      for (const w of watchers) await w.stop();
      await api.close();
      await emu.close();
      if (!opts.store) await s.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}
