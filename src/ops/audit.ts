/**
 * The audit log: who did what, when, with what result. Appended to `store.audit` and mirrored to
 * the audit channel when one is configured (workspace setting, else AUDIT_CHANNEL_ID). The mirror
 * is a callback so this module stays free of Slack; a mirror failure is logged, never raised
 * (the store entry is the record). The Slack layer's mirror only queues the line (paced, retried
 * on 429: src/slack/background-sender.ts), so an audit call never waits for Slack. Details are plain text and never contain a secret.
 */
import type { AuditEntry, WorkspaceKey } from '../store/types.js';
import type { OpsDeps } from './workspace.js';

export type AuditInput = Omit<AuditEntry, 'id' | 'at'>;

/** Posts one entry to a channel (the slack layer supplies it). */
export type AuditMirror = (channelId: string, entry: AuditEntry) => Promise<void>;

export interface AuditLogger {
  warn(obj: object, msg: string): void;
}

/** The channel the audit log is mirrored to, if any: the workspace setting wins over the env. */
export async function auditChannel(deps: OpsDeps, workspace: WorkspaceKey): Promise<string | undefined> {
  const settings = await deps.store.settings.get(workspace);
  return settings.auditChannelId ?? deps.config.auditChannelId;
}

export async function audit(
  deps: OpsDeps & { logger?: AuditLogger },
  workspace: WorkspaceKey,
  entry: AuditInput,
  mirror?: AuditMirror,
): Promise<AuditEntry> {
  const saved = await deps.store.audit.append(workspace, {
    ...entry,
    detail: entry.detail.slice(0, 500),
  });
  if (mirror) {
    try {
      const channel = await auditChannel(deps, workspace);
      if (channel) await mirror(channel, saved);
    } catch (err) {
      deps.logger?.warn({ err, workspace, action: entry.action }, 'audit mirror to channel failed');
    }
  }
  return saved;
}

/** Recent entries, newest first; limit clamped to 1..100. */
export async function recentAudit(deps: OpsDeps, workspace: WorkspaceKey, limit = 20): Promise<AuditEntry[]> {
  const n = Math.min(100, Math.max(1, Math.floor(limit)));
  return deps.store.audit.list(workspace, { limit: n });
}
