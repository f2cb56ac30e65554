/**
 * The watcher wired like production for fault scenarios: real emulator, real API clients, real
 * store, the REAL Slack poster (src/slack/poster.ts) talking to the fake Slack over loopback, and
 * one virtual clock shared by all of them (Retry-After and backoff waits cost no real time).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebClient } from '@slack/web-api';
import { startEmulator } from '../../../dev/emulator/index.js';
import type { EmulatorHandle } from '../../../dev/emulator/types.js';
import { type FakeMessage, FakeSlack } from '../../../dev/fakeslack/index.js';
import { createApi } from '../../../src/api/index.js';
import type { WorkspaceCredentials } from '../../../src/api/types.js';
import { blockRenderer } from '../../../src/slack/features/watch/render-card.js';
import { watchWords } from '../../../src/slack/kit/blocks/paused-reason.js';
import { createPoster } from '../../../src/slack/poster.js';
import { createStore } from '../../../src/store/index.js';
import type { Store } from '../../../src/store/types.js';
import {
  createWatcher,
  DELIVERY_EVENT_TYPE,
  FakeClock,
  type WatchEvent,
  type Watcher,
  type WatcherOptions,
} from '../../../src/watch/index.js';
import { type TestWorkspace, testWorkspace } from '../../harness/index.js';

export const SITE = 'AB12';
export const ENCRYPTION_KEY = '3f9c1a7e5b2d4c6e8a0b1c2d3e4f50617283948a5b6c7d8e9fa0b1c2d3e4f506';

export interface WatchRig {
  clock: FakeClock;
  emu: EmulatorHandle;
  fake: FakeSlack;
  store: Store;
  ws: TestWorkspace;
  creds: WorkspaceCredentials;
  api: ReturnType<typeof createApi>;
  events: WatchEvent[];
  watcher(o?: Partial<WatcherOptions>): Watcher;
  /** Delivery keys of the messages the fake Slack holds (top level and threads). */
  keys(): string[];
  duplicateKeys(): string[];
  close(): Promise<void>;
}

/** Subscribe the rig's channel to every job of SITE, then poll once for the baseline (no notices). */
export async function subscribeAll(rig: WatchRig, w: Watcher): Promise<void> {
  await w.subscriptions.create(rig.ws.teamId, {
    channelId: rig.ws.channel,
    siteId: SITE,
    filters: { statuses: [], mode: 'all' },
    createdBy: rig.ws.admin,
  });
  await w.pollOnce(rig.ws.teamId, SITE);
}

export function deliveryKeyOf(m: FakeMessage): string | undefined {
  if (m.metadata?.event_type !== DELIVERY_EVENT_TYPE) return undefined;
  const p = m.metadata.event_payload as { key?: unknown } | undefined;
  return typeof p?.key === 'string' ? p.key : undefined;
}

export function duplicates(keys: string[]): string[] {
  const n = new Map<string, number>();
  for (const k of keys) n.set(k, (n.get(k) ?? 0) + 1);
  return [...n].filter(([, c]) => c > 1).map(([k]) => k);
}

export async function startWatchRig(
  o: { store?: 'memory' | 'sqlite'; storeUrl?: string; namespace?: string } = {},
): Promise<WatchRig> {
  const clock = new FakeClock(Date.now());
  const emu = await startEmulator({ seed: false, now: () => clock.now() });
  const creds: WorkspaceCredentials = {
    siteIds: [SITE],
    defaultSiteId: SITE,
    watermarking: {
      accountId: 'faults-wm',
      accessKey: 'AKfaultswatch000000000000001',
      baseUrl: emu.wmBaseUrl,
    },
  };
  emu.addWatermarkingAccount({
    accountId: 'faults-wm',
    accessKey: creds.watermarking!.accessKey,
    siteIds: [SITE],
  });
  const fake = await FakeSlack.start({ now: () => clock.now() });
  const { spec, ...ws } = testWorkspace(0);
  fake.addWorkspace(spec);
  const api = createApi({
    clock: () => clock.now(),
    sleep: (ms) => clock.sleep(ms),
    random: () => 0.5,
    retries: { max: 1, baseMs: 10 },
    timeouts: { headersMs: 1500, bodyMs: 1500 },
  });
  let dir: string | undefined;
  let url = o.storeUrl ?? 'memory://';
  if (o.store === 'sqlite') {
    dir = mkdtempSync(join(tmpdir(), 'faults-watch-'));
    url = `sqlite://${join(dir, 'w.sqlite')}`;
  }
  const store = await createStore({ url, encryptionKey: ENCRYPTION_KEY, namespace: o.namespace ?? 'faults' });
  const client = new WebClient(ws.botToken, {
    slackApiUrl: fake.apiUrl,
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
  });
  const poster = createPoster(async () => client);
  const events: WatchEvent[] = [];
  const watchers: Watcher[] = [];
  const keys = () =>
    fake
      .allMessages()
      .map(deliveryKeyOf)
      .filter((k): k is string => k !== undefined);
  return {
    clock,
    emu,
    fake,
    store,
    ws,
    creds,
    api,
    events,
    watcher(over = {}) {
      const w = createWatcher({
        store,
        api,
        credentials: async () => creds,
        poster: () => poster,
        renderer: blockRenderer,
        words: watchWords,
        clock,
        intervalMs: 60_000,
        jitter: 0,
        holderId: 'faults-a',
        events: (e) => events.push(e),
        ...over,
      });
      watchers.push(w);
      return w;
    },
    keys,
    duplicateKeys: () => duplicates(keys()),
    async close() {
      for (const w of watchers) await w.stop().catch(() => undefined);
      await api.close();
      await emu.close();
      await fake.close();
      await store.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Per job: exactly one card (`|card:<status>`) and exactly one final thread message
 * (`|final:<status>`). lost = jobs missing either; duplicated = keys posted twice + extra cards.
 */
export function completeness(
  keys: string[],
  ws: string,
  channel: string,
  jobIds: number[],
  finalStatus = 'DM500',
  /** Texts (and blocks, as JSON) of digest messages: a burst of finals is announced in one digest. */
  digests: string[] = [],
): { lost: number; duplicated: number; missing: string[] } {
  const missing: string[] = [];
  let duplicated = duplicates(keys).length;
  for (const j of jobIds) {
    const prefix = `${ws}|${channel}|${j}|`;
    const cards = new Set(keys.filter((k) => k.startsWith(`${prefix}card:`)));
    if (cards.size === 0) missing.push(`job ${j}: no card`);
    if (cards.size > 1) duplicated += cards.size - 1;
    const inDigest = digests.some((d) => d.includes(`Job \`${j}\``));
    if (!keys.includes(`${prefix}final:${finalStatus}`) && !inDigest)
      missing.push(`job ${j}: no final:${finalStatus}`);
  }
  return { lost: missing.length, duplicated, missing };
}

/** Digest messages on the fake Slack (text + blocks as one string each). */
export function digestTexts(messages: FakeMessage[]): string[] {
  return messages
    .filter((m) => deliveryKeyOf(m)?.includes('|digest|'))
    .map((m) => `${m.text ?? ''}\n${JSON.stringify(m.blocks ?? [])}`);
}
