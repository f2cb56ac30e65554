/** The `/dwm setup admins` card: who counts as an admin and where the audit log is mirrored. */
import type { WorkspaceSettings } from '../../../store/types.js';
import { type Block, context, header, type Message, message, section } from '../../kit/blocks/blocks.js';
import { code, esc, userMention } from '../../kit/blocks/mrkdwn.js';

export interface AdminsView {
  settings: WorkspaceSettings;
  /** ADMIN_USER_IDS from the environment (read-only here). */
  envAdminIds: string[];
  /** AUDIT_CHANNEL_ID from the environment (read-only here). */
  envAuditChannelId?: string;
  /** A line saying what just changed, bot-authored. */
  changed?: string;
}

const mention = (id: string) => `<@${esc(id)}>`;

export function adminsMessage(v: AdminsView): Message {
  const s = v.settings;
  const users = s.adminUserIds.length ? s.adminUserIds.map(mention).join(', ') : '_none_';
  const env = v.envAdminIds.length ? v.envAdminIds.map(mention).join(', ') : '_none_';
  const group = s.adminUsergroupId ? `<!subteam^${esc(s.adminUsergroupId)}>` : '_none_';
  const audit = s.auditChannelId
    ? `<#${esc(s.auditChannelId)}>`
    : v.envAuditChannelId
      ? `<#${esc(v.envAuditChannelId)}> (from AUDIT_CHANNEL_ID)`
      : '_not mirrored_';
  const blocks: Block[] = [header('Admins of drm-chatops')];
  if (v.changed) blocks.push(section(`:white_check_mark: ${v.changed}`));
  blocks.push(
    section('Slack workspace admins and owners are always admins here. Also admins:', {
      fields: [
        `*Users*\n${users}`,
        `*User group*\n${group}`,
        `*From the environment*\n${env}`,
        `*Audit log mirrored to*\n${audit}`,
      ],
    }),
    context(
      `Change with ${code('/dwm setup admins add @user')} · ${code('remove @user')} · ${code('group @group')} (or ${code('group none')}) · ${code('/dwm setup audit-channel #channel')} (or ${code('none')})`,
    ),
  );
  return message(v.changed ?? 'Admins of drm-chatops', blocks);
}

/** What `/dwm setup erase-user` erased, per person. */
export function erasedMessage(
  results: Array<{
    userId: string;
    erased: { watches: number; alerts: number; digests: number; requests: number; pendingDms: number };
  }>,
): Message {
  const lines = results.map(({ userId, erased: e }) => {
    const parts = [
      `${e.watches} job watch(es)`,
      `${e.alerts} license alert(s)`,
      `${e.digests} daily digest(s)`,
      `${e.requests} tracked request(s)`,
      `${e.pendingDms} pending direct message(s)`,
    ];
    return `${userMention(userId)}: erased ${parts.join(', ')}.`;
  });
  const note = 'The audit log keeps what they did (it holds no secret); their Slack account is not touched.';
  return message(lines.join('\n'), [section(lines.join('\n')), context(note)]);
}
