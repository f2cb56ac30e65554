/**
 * Uninstall grace period and data retention (docs/security.md "Data retention").
 *
 * An uninstall (app_uninstalled, or the bot token revoked) no longer deletes a workspace's data at
 * once. It records a retention document and deletes only the installation (its bot token is dead
 * anyway). For UNINSTALL_GRACE_DAYS the rest stays, and nothing runs for the workspace: the
 * runtimes read credentials through `activeCredentials`, which answers none during the grace.
 * Reinstalling within the grace (a new installation saved, or in single-workspace mode the
 * configured token working again) removes the document: everything is as it was.
 *
 * After the grace, the sweep (`sweepRetention`, run periodically under a lease) deletes the
 * workspace's data except its audit entries; a failure (store down) leaves the document as it was
 * and the next sweep tries again, until it succeeds. The audit entries are kept
 * AUDIT_RETENTION_DAYS more, then deleted with the document.
 *
 * Documents: namespace `retention`, under the reserved workspace key `_global`, one per workspace
 * (id = the workspace key).
 */
import type { Config } from '../config.js';
import type { Store, WorkspaceKey } from '../store/types.js';
import { type LoadedCredentials, loadCredentials, type OpsDeps } from './workspace.js';

export const RETENTION_NS = 'retention';
const GLOBAL = '_global';
const DAY_MS = 86_400_000;

export interface RetentionDoc {
  workspace: WorkspaceKey;
  reason: string;
  /** When the uninstall was seen (ISO). */
  uninstalledAt: string;
  /** 'grace': data kept, a reinstall restores it. 'audit': data deleted, audit entries kept. */
  phase: 'grace' | 'audit';
  /** End of the phase (ISO): data deleted after it ('grace'), audit deleted after it ('audit'). */
  until: string;
  /** Failed deletion attempts so far (retried every sweep). */
  attempts: number;
  /** Kind of the last failure (never a value). */
  lastError?: string;
}

type Deps = {
  store: Store;
  config: Pick<Config, 'uninstallGraceDays' | 'auditRetentionDays'>;
  now: () => number;
};

const repo = (store: Store) => store.docs<RetentionDoc>(RETENTION_NS);

/** Records an uninstall: the grace period starts; the dead installation goes at once. */
export async function markUninstalled(deps: Deps, ws: WorkspaceKey, reason: string): Promise<RetentionDoc> {
  const now = deps.now();
  const doc: RetentionDoc = {
    workspace: ws,
    reason,
    uninstalledAt: new Date(now).toISOString(),
    phase: 'grace',
    until: new Date(now + deps.config.uninstallGraceDays * DAY_MS).toISOString(),
    attempts: 0,
  };
  await repo(deps.store).put(GLOBAL, ws, doc);
  await deps.store.installations.delete(ws);
  return doc;
}

/** The workspace's retention state, if it was uninstalled and not reinstalled. */
export async function retentionOf(store: Store, ws: WorkspaceKey): Promise<RetentionDoc | undefined> {
  return repo(store).get(GLOBAL, ws);
}

/** Reinstalled: the workspace is live again (its data, if still there, is kept). */
export async function clearRetention(store: Store, ws: WorkspaceKey): Promise<RetentionDoc | undefined> {
  const doc = await repo(store).get(GLOBAL, ws);
  if (doc) await repo(store).delete(GLOBAL, ws);
  return doc;
}

/**
 * Credentials for background work (watcher, notifications): none while the workspace is
 * uninstalled (its grace period), so nothing polls or posts for it.
 */
export async function activeCredentials(
  deps: OpsDeps,
  ws: WorkspaceKey,
): Promise<LoadedCredentials | undefined> {
  if ((await retentionOf(deps.store, ws))?.phase === 'grace') return undefined;
  return loadCredentials(deps, ws);
}

export interface SweepResult {
  restored: WorkspaceKey[];
  deleted: WorkspaceKey[];
  auditDeleted: WorkspaceKey[];
  failed: WorkspaceKey[];
}

/**
 * One pass over the uninstalled workspaces. `reinstalled(ws)` says whether the app works there
 * again (a restore). Never throws for one workspace: its failure is counted and retried next time.
 */
export async function sweepRetention(
  deps: Deps & { logger: { info(o: object, m: string): void; error(o: object, m: string): void } },
  reinstalled: (ws: WorkspaceKey) => Promise<boolean>,
): Promise<SweepResult> {
  const out: SweepResult = { restored: [], deleted: [], auditDeleted: [], failed: [] };
  const docs = repo(deps.store);
  for (const ws of await docs.list(GLOBAL)) {
    const doc = await docs.get(GLOBAL, ws);
    if (!doc) continue;
    const now = deps.now();
    try {
      if (await reinstalled(ws)) {
        // Live again: within the grace everything is back; after it, the workspace starts afresh
        // and its audit entries are kept like any live workspace's.
        await docs.delete(GLOBAL, ws);
        out.restored.push(ws);
        deps.logger.info(
          { workspace: ws, phase: doc.phase },
          'uninstalled workspace reinstalled: nothing more is deleted',
        );
        continue;
      }
      if (Date.parse(doc.until) > now) continue;
      if (doc.phase === 'grace') {
        await deps.store.purgeWorkspace(ws, { keepAudit: true });
        const next: RetentionDoc = {
          ...doc,
          phase: 'audit',
          until: new Date(now + deps.config.auditRetentionDays * DAY_MS).toISOString(),
          attempts: 0,
        };
        delete next.lastError;
        await docs.put(GLOBAL, ws, next);
        out.deleted.push(ws);
        deps.logger.info(
          { workspace: ws, auditUntil: next.until },
          'workspace data deleted after the grace period',
        );
      } else {
        await deps.store.audit.deleteAll(ws);
        await docs.delete(GLOBAL, ws);
        out.auditDeleted.push(ws);
        deps.logger.info(
          { workspace: ws },
          'audit entries of an uninstalled workspace deleted after retention',
        );
      }
    } catch (err) {
      out.failed.push(ws);
      const kind = err instanceof Error ? err.name : 'error';
      deps.logger.error(
        { workspace: ws, err },
        'could not delete an uninstalled workspace’s data; retried next sweep',
      );
      await docs
        .put(GLOBAL, ws, { ...doc, attempts: doc.attempts + 1, lastError: kind })
        .catch(() => undefined);
    }
  }
  return out;
}
