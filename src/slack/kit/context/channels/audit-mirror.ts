/**
 * The audit channel's mirror: one line per audit entry, queued on the app's paced background
 * sender (never awaited in a user's request). The channel (`/dwm setup audit-channel`, else
 * AUDIT_CHANNEL_ID) follows the rule of channels shared with another organisation
 * (./access.ts): when its turn comes, a line for a channel shared with another
 * organisation that no admin allowed is not posted (audit lines name people, sites and what they
 * did), and that is logged once per channel until it may be posted there again. The store entry
 * stays the record (`/drm audit`).
 */
import type { WebClient } from '@slack/web-api';
import type { AuditMirror } from '../../../../ops/audit.js';
import type { AuditEntry } from '../../../../store/types.js';
import { appSender } from '../../../background-sender.js';
import type { AppDeps } from '../../../deps.js';
import { appState } from '../../app-state.js';
import { code, esc, userMention } from '../../blocks/mrkdwn.js';
import type { CommandContext } from '../types.js';
import { sharedAndNotAllowed } from './access.js';

/** One line for the audit channel: "`setup.save` by @U1: ok: saved sites AB12". */
export function auditLine(e: AuditEntry): string {
  const icon = e.result === 'ok' ? ':white_check_mark:' : e.result === 'refused' ? ':lock:' : ':warning:';
  const site = e.siteId ? ` site ${code(e.siteId)}` : '';
  return `${icon} ${code(e.action)} by ${userMention(e.userId)}${site}: ${e.result}. ${esc(e.detail)}`;
}

/** Per app: `ws|channel` of audit channels found shared (and said so in the log). */
const toldShared = appState(() => new Set<string>());

type MirrorDeps = Pick<AppDeps, 'config' | 'store' | 'logger' | 'now'>;

/**
 * Queue the line of `entry` for the audit channel `channel` of workspace `ws`, posted with
 * `client` (the request's, or the background one). Never throws, never waits for Slack.
 */
export function mirrorAuditLine(
  deps: MirrorDeps,
  ws: string,
  channel: string,
  entry: AuditEntry,
  client: () => WebClient | Promise<WebClient>,
): void {
  const key = `${ws}|${channel}`;
  appSender(deps).send(ws, channel, { text: auditLine(entry) }, client, `audit ${entry.action}`, {
    async mayPost(c) {
      const told = toldShared(deps);
      if (!(await sharedAndNotAllowed(deps, ws, async () => c, channel))) {
        told.delete(key);
        return true;
      }
      if (!told.has(key)) {
        told.add(key);
        deps.logger.warn(
          { workspace: ws, channel },
          'The audit channel is shared with another organisation (Slack Connect) and not allowed: audit lines are not mirrored there (they stay in /drm audit). Choose another channel with /dwm setup audit-channel, or allow it with /dwm setup shared-channel allow.',
        );
      }
      return false;
    },
  });
}

/** The audit mirror of a request: one line queued for the audit channel (paced), never awaited. */
export function auditMirrorOf(ctx: CommandContext): AuditMirror {
  return async (channel, entry) => mirrorAuditLine(ctx.deps, ctx.workspace, channel, entry, () => ctx.client);
}
