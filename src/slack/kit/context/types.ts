/**
 * The request context's types (see ./context.ts for how one is built), apart so that the role
 * checks (./roles/) and the command entries (../commands/command-entry.ts) can name them without an
 * import cycle.
 */
import type { WebClient } from '@slack/web-api';
import type { Logger } from '../../../log.js';
import type { AuditInput } from '../../../ops/audit.js';
import type { WorkspaceClients } from '../../../ops/workspace.js';
import type { WorkspaceKey } from '../../../store/types.js';
import type { AppDeps } from '../../deps.js';
import type { Message, ModalView } from '../blocks/blocks.js';

export type Role = 'member' | 'admin';

/**
 * The user's standing with the bot: a role, or barred from it altogether (GUEST_ACCESS=none): a
 * Slack guest (`guest`), a user Slack does not know in this workspace (`unverified`), or a user
 * of another organisation reaching it through Slack Connect (`external`).
 */
export type Standing = Role | 'guest' | 'unverified' | 'external';

export type SlashCommand = '/dwm' | '/drm';

export interface RespondOptions {
  /** Post in the channel for everyone (default: the `share` flag of the command). */
  share?: boolean;
  /** Replace the message the action came from (interactive replies). */
  replaceOriginal?: boolean;
  /** The message shows a secret (even masked): always ephemeral, whatever `share` says. */
  secret?: boolean;
}

export interface CommandContext {
  deps: AppDeps;
  workspace: WorkspaceKey;
  teamId?: string;
  enterpriseId?: string;
  userId: string;
  channelId?: string;
  /** Valid for 3 s after the interaction: open modals before any slow call. */
  triggerId?: string;
  /** The slash command in use (help hints say `/dwm …` or `/drm …`). */
  command: SlashCommand;
  /** Short id for this request, in every log line and shown with unexpected errors. */
  refId: string;
  logger: Logger;
  client: WebClient;
  /** Set by the dispatcher from the `share` flag. */
  share: boolean;
  /** Answer the user: ephemeral unless shared. */
  respond(msg: Message, opts?: RespondOptions): Promise<void>;
  /** IANA time zone of the user (users.info, cached). */
  timeZone(): Promise<string>;
  /** The role: `admin`, or `member` (a barred user is never an admin). */
  role(): Promise<Role>;
  /** The role, or why the user may not use the bot (see ./roles/standing.ts `resolveStanding`). */
  standing(): Promise<Standing>;
  /** Who can do admin things, mrkdwn. */
  admins(): Promise<string>;
  /** The workspace's API clients; throws NotConfiguredError when nothing is set up. */
  clients(): Promise<WorkspaceClients>;
  /** Append to the audit log (and mirror to the audit channel). Never throws for the mirror. */
  audit(entry: Omit<AuditInput, 'userId'>): Promise<void>;
  /** views.open with the trigger id. */
  openView(view: ModalView): Promise<string | undefined>;
}
