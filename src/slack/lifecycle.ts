/**
 * App lifecycle:
 * - Uninstall: on `app_uninstalled`, and on `tokens_revoked` when bot tokens are revoked, the
 *   workspace enters its grace period (src/ops/retention.ts): the installation goes, the rest is
 *   kept UNINSTALL_GRACE_DAYS (a reinstall restores it), then the retention sweep deletes it (audit
 *   entries AUDIT_RETENTION_DAYS later). Revoked user tokens alone change nothing: the bot stores
 *   no user tokens.
 * - Uninstall hooks: per-process caches of a workspace are dropped through hooks the parts that keep
 *   them register (`onUninstall`), so this file imports no feature; the Web API clients of
 *   kit/web/client.ts are forgotten here directly.
 * - Hooks: background jobs (watcher, outbox drain...) register a stop function; main.ts runs them
 *   at shutdown in reverse order of registration, each bounded by a timeout.
 */
import type { App } from '@slack/bolt';
import type { Logger } from '../log.js';
import { markUninstalled, type SweepResult, sweepRetention } from '../ops/retention.js';
import { workspaceKeyOf } from '../store/keys.js';
import type { WorkspaceKey } from '../store/types.js';
import type { AppDeps } from './deps.js';
import { appState } from './kit/app-state.js';
import { webClients } from './kit/web/client.js';

export type UninstallReason = 'app_uninstalled' | 'tokens_revoked';

export type UninstallHook = (workspace: WorkspaceKey) => void;

/** The app's hooks (kit/app-state.ts: per app, like the Web API clients). */
const uninstallHooks = appState(() => new Set<UninstallHook>());

/**
 * Run `hook` when a workspace is uninstalled (drop its per-process caches). Returns a function that
 * unregisters it (call it when the part that registered stops).
 */
export function onUninstall(deps: Pick<AppDeps, 'config'>, hook: UninstallHook): () => void {
  const hooks = uninstallHooks(deps);
  hooks.add(hook);
  return () => hooks.delete(hook);
}

/**
 * A workspace uninstalled (or its bot token revoked): its per-process caches go at once; its data
 * is kept for the grace period (UNINSTALL_GRACE_DAYS, src/ops/retention.ts), during which nothing
 * runs for it and a reinstall restores it; the retention sweep deletes it afterwards. Recording
 * the uninstall is retried (bounded, in the background) when the store does not take it at once.
 * Never throws: resolves false when the first attempt failed (the retries carry on).
 */
export async function workspaceUninstalled(
  deps: AppDeps,
  key: WorkspaceKey,
  reason: UninstallReason,
  retry: { attempts?: number; delayMs?: number } = {},
): Promise<boolean> {
  webClients(deps).forget(key);
  for (const hook of uninstallHooks(deps)) {
    try {
      hook(key);
    } catch (err) {
      deps.logger.warn({ workspace: key, err }, 'an uninstall hook failed');
    }
  }
  const attempts = retry.attempts ?? 8;
  const attempt = async (n: number): Promise<boolean> => {
    try {
      const doc = await markUninstalled(deps, key, reason);
      deps.logger.info(
        { workspace: key, reason, deleteAfter: doc.until },
        'workspace uninstalled: its data is kept until the end of the grace period, then deleted',
      );
      return true;
    } catch (err) {
      deps.logger.error(
        { workspace: key, reason, err, attempt: n + 1, attempts },
        'could not record the uninstall',
      );
      return false;
    }
  };
  if (await attempt(0)) return true;
  void (async () => {
    for (let n = 1; n < attempts; n++) {
      await new Promise((r) =>
        setTimeout(r, Math.min(30_000, (retry.delayMs ?? 1000) * 2 ** (n - 1))).unref(),
      );
      if (await attempt(n)) return;
    }
  })();
  return false;
}

/**
 * Has the app been installed again in a workspace under its grace period? OAuth: a new
 * installation was saved. One workspace (SLACK_BOT_TOKEN): the configured token works again there.
 */
async function reinstalled(deps: AppDeps, ws: WorkspaceKey): Promise<boolean> {
  if (deps.config.distribution === 'oauth') return (await deps.store.installations.get(ws)) !== undefined;
  const client = await webClients(deps).forWorkspace(ws);
  if (!client) return false;
  try {
    const r = await client.auth.test();
    return r.ok === true && (r.team_id === ws || r.enterprise_id === ws);
  } catch {
    return false;
  }
}

/** One retention sweep now (under the `retention-sweep` lease: one replica at a time). */
export async function runRetentionSweep(
  deps: AppDeps,
  holder = `sweep-${process.pid}`,
): Promise<SweepResult | undefined> {
  if (!(await deps.store.leases.acquire('retention-sweep', holder, 10 * 60_000))) return undefined;
  try {
    return await sweepRetention(deps, (ws) => reinstalled(deps, ws));
  } finally {
    await deps.store.leases.release('retention-sweep', holder).catch(() => undefined);
  }
}

/**
 * The periodic retention sweep (uninstalled workspaces past their grace, audit entries past
 * their retention), every `intervalMs` (default an hour) and once shortly after the start.
 * Returns its stop function.
 */
export function startRetentionSweeper(
  deps: AppDeps,
  o: { intervalMs?: number; firstMs?: number } = {},
): () => void {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const run = async () => {
    try {
      const r = await runRetentionSweep(deps);
      if (r && (r.deleted.length || r.auditDeleted.length || r.restored.length || r.failed.length)) {
        deps.logger.info(r, 'retention sweep');
      }
    } catch (err) {
      deps.logger.error({ err }, 'retention sweep failed; retried at the next one');
    }
    if (!stopped) schedule(o.intervalMs ?? 3_600_000);
  };
  const schedule = (ms: number) => {
    timer = setTimeout(() => void run(), ms);
    timer.unref();
  };
  schedule(o.firstMs ?? 10_000);
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

interface EventContextLike {
  teamId?: string;
  enterpriseId?: string;
  isEnterpriseInstall?: boolean;
}

function keyFrom(
  context: EventContextLike,
  body: { team_id?: string; enterprise_id?: string },
): WorkspaceKey {
  return workspaceKeyOf({
    isEnterpriseInstall: context.isEnterpriseInstall,
    ...((context.enterpriseId ?? body.enterprise_id)
      ? { enterpriseId: context.enterpriseId ?? body.enterprise_id }
      : {}),
    ...((context.teamId ?? body.team_id) ? { teamId: context.teamId ?? body.team_id } : {}),
  });
}

/** Registers the uninstall listeners. Called by createSlackApp for every app. */
export function registerLifecycle(app: App, deps: AppDeps): void {
  app.event('app_uninstalled', async ({ context, body }) => {
    const key = keyFrom(context, body as { team_id?: string; enterprise_id?: string });
    await workspaceUninstalled(deps, key, 'app_uninstalled');
  });

  app.event('tokens_revoked', async ({ event, context, body }) => {
    const key = keyFrom(context, body as { team_id?: string; enterprise_id?: string });
    const bots = event.tokens.bot ?? [];
    if (bots.length === 0) {
      deps.logger.info(
        { workspace: key, users: event.tokens.oauth?.length ?? 0 },
        'user tokens revoked; nothing stored for them',
      );
      return;
    }
    await workspaceUninstalled(deps, key, 'tokens_revoked');
  });
}

// -------------------------------------------------------------------------------------------------
// Shutdown hooks
// -------------------------------------------------------------------------------------------------

export interface Lifecycle {
  /** Register a stop function (background job, pool...). Returns a function that unregisters it. */
  onStop(name: string, stop: () => Promise<void> | void): () => void;
  /** Run every stop function, newest first, each bounded by timeoutMs. Safe to call twice. */
  stopAll(logger: Logger, timeoutMs?: number): Promise<void>;
}

export function createLifecycle(): Lifecycle {
  const hooks: { name: string; stop: () => Promise<void> | void }[] = [];
  let stopping: Promise<void> | undefined;
  return {
    onStop(name, stop) {
      const entry = { name, stop };
      hooks.push(entry);
      return () => {
        const i = hooks.indexOf(entry);
        if (i >= 0) hooks.splice(i, 1);
      };
    },
    stopAll(logger, timeoutMs = 10_000) {
      stopping ??= (async () => {
        for (const h of [...hooks].reverse()) {
          let timer: NodeJS.Timeout | undefined;
          const timeout = new Promise<'timeout'>((resolve) => {
            timer = setTimeout(() => resolve('timeout'), timeoutMs);
            timer.unref();
          });
          try {
            const r = await Promise.race([Promise.resolve(h.stop()).then(() => 'done' as const), timeout]);
            if (r === 'timeout') logger.warn({ hook: h.name, timeoutMs }, 'shutdown hook timed out');
          } catch (err) {
            logger.error({ hook: h.name, err }, 'shutdown hook failed');
          } finally {
            clearTimeout(timer);
          }
        }
      })();
      return stopping;
    },
  };
}
