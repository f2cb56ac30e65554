/**
 * Who may do what: the bot admins by id (ADMIN_USER_IDS, and `configAdminIds`, the ones that
 * apply in one workspace), guests and people of another organisation, who may read personal data
 * and how long its exports stay in Slack, and which workflow steps run unattended.
 */
import { z } from 'zod';
import { commaList, intIn, type VariableSpec } from '../spec.js';
import { type Config, GUEST_ACCESS_VALUES, WORKFLOW_UNATTENDED_VALUES } from '../types.js';

const adminEntry = z
  .string()
  .regex(
    /^([TE][A-Z0-9]{2,}:)?[UW][A-Z0-9]{2,}$/,
    'each must be a Slack user id scoped to its workspace, like T0123ABCD:U0123ABCD (or U0123ABCD with one workspace)',
  );

/**
 * The ADMIN_USER_IDS entries that apply in one workspace: the ones scoped to it (TEAM:USER) and,
 * with one workspace, the bare ones. Never the ids scoped to another workspace.
 */
export function configAdminIds(config: Pick<Config, 'adminUserIds'>, workspace: string): string[] {
  const out: string[] = [];
  for (const entry of config.adminUserIds) {
    const i = entry.indexOf(':');
    if (i < 0) out.push(entry);
    else if (entry.slice(0, i) === workspace) out.push(entry.slice(i + 1));
  }
  return out;
}

export const ACCESS_VARIABLES: VariableSpec[] = [
  {
    name: 'ADMIN_USER_IDS',
    required: 'no',
    description:
      'Comma-separated Slack user ids that are bot admins besides workspace admins and owners. Scope each id to its workspace as TEAM:USER (T0123:U0456; an org install: E0123:U0456); a bare user id (U0456) is allowed with one workspace (SLACK_BOT_TOKEN) only.',
    schema: commaList(adminEntry),
  },
  {
    name: 'GUEST_ACCESS',
    required: 'no',
    default: 'none',
    description:
      'What Slack guest accounts (single- and multi-channel guests, often partners) and people of another organisation reaching the bot through a shared Slack Connect channel may do with the bot. `none`: they are refused every command, button, form, workflow step and the Home tab, and told who to ask. `member`: they act as members (never as admins, even admins of their own organisation, unless their id is in ADMIN_USER_IDS or added with `/dwm setup admins add`). With `none`, a user Slack does not know in this workspace (users.info: user_not_found) is refused too; when Slack cannot answer at all, members keep working (never as admins). See docs/security.md.',
    schema: z.enum(GUEST_ACCESS_VALUES, { error: `must be one of ${GUEST_ACCESS_VALUES.join(', ')}` }),
  },
  {
    name: 'PERSONAL_DATA_USERGROUP',
    required: 'no',
    description:
      'Comma-separated Slack user group ids (S0123ABCD) whose members may read end viewers\' personal data besides the bot admins: `/drm licenses`, `users`, `devices`, `cids`, `packaging`, their paging buttons and CSV exports. Empty (default): admins only. See docs/security.md ("Personal data").',
    schema: commaList(
      z.string().regex(/^S[A-Z0-9]{2,}$/, 'each must be a Slack user group id, like S0123ABCD'),
    ),
  },
  {
    name: 'EXPORT_RETENTION_DAYS',
    required: 'no',
    default: '30',
    description:
      'Days the CSV files the bot uploads (DRM data and job exports, in the requester\'s direct messages) are kept before the bot deletes them from Slack (files.delete). 0 keeps them. See docs/security.md ("Personal data").',
    schema: intIn(0, 3650),
  },
  {
    name: 'WORKFLOW_UNATTENDED',
    required: 'no',
    default: 'read-only',
    description:
      'Which Workflow Builder steps run when the bot cannot tell who runs them (Requested by empty and no person in the event: a scheduled or webhook workflow). `read-only`: only the steps that read (job status, wait for a job); the others fail saying so. `all`: every step (register recipients, trial extension too), audited under the bot. See docs/workflow-builder.md.',
    schema: z.enum(WORKFLOW_UNATTENDED_VALUES, {
      error: `must be one of ${WORKFLOW_UNATTENDED_VALUES.join(', ')}`,
    }),
  },
];
