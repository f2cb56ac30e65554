/**
 * What a feature declares for a slash (sub)command: the registry (./registry.ts) runs it, help
 * (./help.ts) lists it. Apart from the registry so help can name it without an import cycle.
 */
import type { CommandContext, Role, SlashCommand } from '../context/types.js';
import type { ArgsOf, ArgsSpec } from './parse.js';

export interface CommandEntry<A extends ArgsSpec = ArgsSpec> {
  /** One command, or both (e.g. setup is `/dwm setup` and `/drm setup`). */
  command: SlashCommand | readonly SlashCommand[];
  /** Subcommand words, e.g. ['plan', 'trial']. [] is the bare command. */
  path: readonly string[];
  /** Other names for the LAST path word (e.g. 'job' for 'jobs'). */
  aliases?: readonly string[];
  args: A;
  role: Role;
  /**
   * The answer shows end viewers' personal data (end-user and device ids): with `role: 'admin'`,
   * members of the PERSONAL_DATA_USERGROUP user groups may run it too (`personalDataGroups`).
   */
  personalData?: boolean;
  /** One line, starts with a verb: "List recent jobs". */
  summary: string;
  /** Longer help text (mrkdwn, bot-authored). */
  description?: string;
  /** Text after the command, e.g. 'jobs status:error site:AB12'. */
  examples?: readonly string[];
  /**
   * A required argument is missing: 'modal' (default: `openModal` when the entry has one, else the
   * registry's generic "fill in what is missing" form, ./missing-args.ts) or
   * 'error' (usage; for arguments no Block Kit input can take, like a user group).
   */
  onMissing?: 'error' | 'modal';
  /** Opens a modal/picker with what was given so far. Must use ctx.triggerId first, before slow calls. */
  openModal?: (ctx: CommandContext, given: Partial<ArgsOf<A>>) => Promise<void>;
  handler: (ctx: CommandContext, args: ArgsOf<A>) => Promise<void>;
  /**
   * The handler (or openModal) may open a modal with `ctx.triggerId` (3 s). Such a command runs at
   * once after its ack, never behind other commands in the handler queue (./slash.ts). The user
   * check (guests, the admin role) also waits only a short budget, then opens a "Checking…" modal
   * so the trigger id is not lost to a slow users.info; `ctx.openView` then fills that modal (see
   * `admit` in ../context/roles/admission.ts).
   */
  opensModal?: boolean;
  /** Shown in help lists only to admins? No: every entry is listed; admin ones are marked. */
  hidden?: boolean;
  /** Running it changes something the Home tab shows (the tab is refreshed after it). */
  changesHome?: boolean;
}

/** A registered entry with its command list normalised. */
export type RegisteredEntry = CommandEntry & { commands: readonly SlashCommand[] };
