/** The `/drm audit` list. */
import type { AuditEntry } from '../../../store/types.js';
import { type Block, context, header, type Message, message, section } from '../../kit/blocks/blocks.js';
import { code, dateToken, esc, truncate, userMention } from '../../kit/blocks/mrkdwn.js';

const ICON: Record<AuditEntry['result'], string> = {
  ok: ':white_check_mark: ok',
  error: ':warning: error',
  refused: ':lock: refused',
};

export function auditLineText(e: AuditEntry, timeZone: string): string {
  const site = e.siteId ? ` · site ${code(e.siteId)}` : '';
  return `${dateToken(Date.parse(e.at), timeZone)} · ${code(e.action)} · ${userMention(e.userId)} · ${ICON[e.result]}${site}\n${esc(truncate(e.detail, 300))}`;
}

export function auditListMessage(entries: AuditEntry[], timeZone: string): Message {
  if (entries.length === 0) {
    return message('No audited actions yet.', [section('No audited actions yet.')]);
  }
  const blocks: Block[] = [header(`Audit log: ${entries.length} most recent`)];
  for (const e of entries) blocks.push(section(auditLineText(e, timeZone)));
  return message(
    `Audit log: ${entries.length} most recent entries`,
    [...blocks, context('Newest first.')],
    (hidden) => `…and ${hidden} more not shown. Ask for fewer with ${code('/drm audit 20')}.`,
  );
}
