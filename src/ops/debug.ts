/**
 * `/dwm debug` data: what an admin (or the support person they forward it to) needs to tell what
 * this deployment is doing for the workspace. Ids, modes, store backend, poll leases and the last
 * poll per site (read from the store, so it is right whichever replica polls), pending outbox,
 * versions. Never a secret: no token, key, URL credentials or account key appear here.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Config } from '../config.js';
import type { Store, WorkspaceKey } from '../store/types.js';
import type { WatcherStatus } from '../watch/index.js';
import { Outbox } from '../watch/outbox.js';
import { pollStateRepo } from '../watch/poll-state.js';
import { loadCredentials, type OpsDeps } from './workspace.js';

/** The watch runtime's status, when this replica runs one. */
export type RuntimeStatus = WatcherStatus;

export interface SiteDebug {
  siteId: string;
  /** Replica holding the poll lease (its holder id), if any. */
  leaseHolder?: string;
  /** Start of the last completed poll cycle (any replica), epoch ms. */
  lastPollAt?: number;
  /** This replica's view, when it runs the watcher. */
  lastError?: string;
  consecutiveFailures?: number;
  nextPollAt?: number;
}

export interface DebugInfo {
  workspace: WorkspaceKey;
  teamId?: string;
  enterpriseId?: string;
  botId?: string;
  botUserId?: string;
  mode: Config['mode'];
  distribution: Config['distribution'];
  storeBackend: Store['backend'];
  storeReachable: boolean;
  credentials: 'env' | 'store' | 'none';
  pollIntervalSeconds: number;
  pollingPausedReason?: string;
  sites: SiteDebug[];
  outboxPending: number | 'unavailable';
  runtime?: { running: boolean; holderId: string };
  versions: { app: string; node: string; bolt: string };
}

const require = createRequire(import.meta.url);

function readVersion(candidates: string[]): string {
  for (const c of candidates) {
    try {
      const pkg = JSON.parse(readFileSync(c, 'utf8')) as { version?: unknown };
      if (typeof pkg.version === 'string') return pkg.version;
    } catch {
      // next candidate
    }
  }
  return 'unknown';
}

/** Versions of the app (package.json from src/ or dist/src/), Node and Bolt. */
export function versions(): DebugInfo['versions'] {
  const app = readVersion([
    new URL('../../package.json', import.meta.url).pathname,
    new URL('../../../package.json', import.meta.url).pathname,
  ]);
  let boltPkg: string[] = [];
  try {
    // Bolt's main entry lives in dist/; its package.json is one level up.
    const main = require.resolve('@slack/bolt');
    boltPkg = [new URL('../package.json', `file://${main}`).pathname];
  } catch {
    boltPkg = [];
  }
  return { app, node: process.version, bolt: readVersion(boltPkg) };
}

export interface DebugInput {
  workspace: WorkspaceKey;
  teamId?: string;
  enterpriseId?: string;
  botId?: string;
  botUserId?: string;
  runtime?: RuntimeStatus;
}

export async function gatherDebug(
  deps: OpsDeps & { config: Pick<Config, 'mode' | 'distribution' | 'pollIntervalSeconds'> },
  input: DebugInput,
): Promise<DebugInfo> {
  const ws = input.workspace;
  const [loaded, settings, reachable] = await Promise.all([
    loadCredentials(deps, ws).catch(() => undefined),
    deps.store.settings.get(ws).catch(() => undefined),
    deps.store.ping().catch(() => false),
  ]);
  const siteIds = loaded?.credentials.siteIds ?? [];
  const states = pollStateRepo(deps.store);
  const mine = new Map(
    (input.runtime?.sites ?? []).filter((s) => s.workspace === ws).map((s) => [s.siteId, s]),
  );
  const sites: SiteDebug[] = await Promise.all(
    siteIds.map(async (siteId) => {
      const [holder, state] = await Promise.all([
        deps.store.leases.holder(`poll:${ws}:${siteId}`).catch(() => undefined),
        states.get(ws, siteId).catch(() => undefined),
      ]);
      const d: SiteDebug = { siteId };
      if (holder) d.leaseHolder = holder;
      if (state?.lastCycleStartMs) d.lastPollAt = state.lastCycleStartMs;
      const r = mine.get(siteId);
      if (r) {
        if (r.lastPollAt !== undefined && (d.lastPollAt === undefined || r.lastPollAt > d.lastPollAt))
          d.lastPollAt = r.lastPollAt;
        if (r.lastError) d.lastError = r.lastError;
        d.consecutiveFailures = r.consecutiveFailures;
        d.nextPollAt = r.nextPollAt;
      }
      return d;
    }),
  );
  let outboxPending: DebugInfo['outboxPending'] = 'unavailable';
  try {
    outboxPending = await new Outbox(deps.store).size(ws);
  } catch {
    outboxPending = input.runtime?.outboxPending[ws] ?? 'unavailable';
  }
  const info: DebugInfo = {
    workspace: ws,
    mode: deps.config.mode,
    distribution: deps.config.distribution,
    storeBackend: deps.store.backend,
    storeReachable: reachable,
    credentials: loaded?.source ?? 'none',
    pollIntervalSeconds: deps.config.pollIntervalSeconds,
    sites,
    outboxPending,
    versions: versions(),
  };
  for (const k of ['teamId', 'enterpriseId', 'botId', 'botUserId'] as const) {
    const v = input[k];
    if (v) info[k] = v;
  }
  const paused = settings?.pollingPausedReason ?? input.runtime?.pausedWorkspaces[ws];
  if (paused) info.pollingPausedReason = paused;
  if (input.runtime) info.runtime = { running: input.runtime.running, holderId: input.runtime.holderId };
  return info;
}
