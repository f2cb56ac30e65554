/**
 * App lifecycle:
 * - Uninstall cleanup: on `app_uninstalled`, and on `tokens_revoked` when bot tokens are revoked,
 *   everything stored for that workspace goes (installation, service credentials, settings, audit,
 *   every feature document) through store.purgeWorkspace. Revoked user tokens alone change nothing:
 *   the bot stores no user tokens.
 * - Uninstall hooks: per-process caches of a workspace are dropped through hooks the parts that keep
 *   them register (`onUninstall`), so this file imports no feature; the Web API clients of
 *   kit/web-client.ts are forgotten here directly.
 * - Hooks: background jobs (watcher, outbox drain...) register a stop function; main.ts runs them
 *   at shutdown in reverse order of registration, each bounded by a timeout.
 */
import type { App } from '@slack/bolt';
import type { Logger } from '../log.js';
import { workspaceKeyOf } from '../store/keys.js';
import type { WorkspaceKey } from '../store/types.js';
import type { AppDeps } from './deps.js';
import { appState } from './kit/app-state.js';
import { webClients } from './kit/web-client.js';

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

/** Remove every trace of a workspace. Never throws: logs and reports false instead. */
export async function purgeWorkspace(
  deps: AppDeps,
  key: WorkspaceKey,
  reason: UninstallReason,
): Promise<boolean> {
  // Per-process caches of the workspace go too.
  webClients(deps).forget(key);
  for (const hook of uninstallHooks(deps)) {
    try {
      hook(key);
    } catch (err) {
      deps.logger.warn({ workspace: key, err }, 'an uninstall hook failed');
    }
  }
  try {
    await deps.store.purgeWorkspace(key);
    deps.logger.info({ workspace: key, reason }, 'workspace data removed after uninstall');
    return true;
  } catch (err) {
    deps.logger.error({ workspace: key, reason, err }, 'could not remove the workspace data after uninstall');
    return false;
  }
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
    await purgeWorkspace(deps, key, 'app_uninstalled');
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
    await purgeWorkspace(deps, key, 'tokens_revoked');
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
