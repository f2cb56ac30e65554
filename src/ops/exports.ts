/**
 * The files the bot uploaded itself (CSV exports of DRM data and job tasks, registration reports),
 * remembered so they can be deleted from Slack after EXPORT_RETENTION_DAYS (the Slack layer's
 * sweeper calls files.delete; docs/security.md, "Personal data"). One document per file under
 * its workspace (`bot-exports`), and the list of workspaces that have some in one global
 * document, so a sweep reads nothing of a workspace without exports.
 */
import type { AtomicDocRepo, Store, WorkspaceKey } from '../store/types.js';

export const EXPORTS_NS = 'bot-exports';
const REGISTRY_NS = 'bot-exports-registry';
const GLOBAL = '_global';
const DAY_MS = 86_400_000;

export interface ExportRecord {
  fileId: string;
  /** Upload time, epoch ms. */
  at: number;
  /** Where it was uploaded (the requester's DM, or a channel). */
  channel: string;
}

const FILE_ID = /^F[A-Z0-9]{2,}$/;

export class BotExports {
  private readonly docs: AtomicDocRepo<ExportRecord>;
  private readonly registry: AtomicDocRepo<{ workspaces: string[] }>;
  constructor(store: Store) {
    this.docs = store.docs<ExportRecord>(EXPORTS_NS);
    this.registry = store.docs<{ workspaces: string[] }>(REGISTRY_NS);
  }

  /**
   * Remember uploaded files. Kept in the store at most twice the retention (at least 60 days):
   * long enough for a sweep to see them, never forever (EXPORT_RETENTION_DAYS=0 keeps the files in
   * Slack, not these records).
   */
  async record(
    ws: WorkspaceKey,
    fileIds: readonly string[],
    channel: string,
    at: number,
    retentionDays: number,
  ) {
    const ids = fileIds.filter((id) => FILE_ID.test(id));
    if (ids.length === 0) return;
    const ttl = Math.max(60, retentionDays * 2) * DAY_MS;
    for (const fileId of ids) await this.docs.put(ws, fileId, { fileId, at, channel }, ttl);
    if (!(await this.workspaces()).includes(ws)) {
      await this.registry.update(GLOBAL, 'list', (old) => {
        const list = old?.workspaces ?? [];
        return list.includes(ws) ? old : { workspaces: [...list, ws] };
      });
    }
  }

  async workspaces(): Promise<string[]> {
    return (await this.registry.get(GLOBAL, 'list'))?.workspaces ?? [];
  }

  /** Files of `ws` uploaded before `before` (epoch ms), oldest first, at most `max`. */
  async due(ws: WorkspaceKey, before: number, max: number): Promise<ExportRecord[]> {
    const out: ExportRecord[] = [];
    for (const id of await this.docs.list(ws)) {
      const r = await this.docs.get(ws, id).catch(() => undefined);
      if (r && r.at < before) out.push(r);
    }
    return out.sort((a, b) => a.at - b.at).slice(0, max);
  }

  async forget(ws: WorkspaceKey, fileId: string): Promise<void> {
    await this.docs.delete(ws, fileId);
  }

  /** Nothing left for `ws`: drop it from the list (a later upload adds it again). */
  async pruneWorkspace(ws: WorkspaceKey): Promise<void> {
    if ((await this.docs.list(ws)).length > 0) return;
    await this.registry.update(GLOBAL, 'list', (old) =>
      old ? { workspaces: old.workspaces.filter((w) => w !== ws) } : old,
    );
  }
}

/** EXPORT_RETENTION_DAYS (default 30; 0: the files are kept). */
export function exportRetentionDays(config: { exportRetentionDays?: number }): number {
  return config.exportRetentionDays ?? 30;
}
