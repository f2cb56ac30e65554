/**
 * What a refused user is told, and who to ask: the words and views of a refusal. A barred user
 * (a guest with GUEST_ACCESS=none, a user Slack does not know here, a user of another
 * organisation: ./standing.ts) reads what / why / next as a reply, a modal or the Home tab; a
 * member who tried an admin action reads who can do it. Also the "Checking…" modal that stands
 * in while the role is asked from Slack, and the audit detail of a refusal. Pure, but for the
 * admin contacts (the workspace settings).
 */

import { configAdminIds } from '../../../../config.js';
import type { WorkspaceKey } from '../../../../store/types.js';
import type { AppDeps } from '../../../deps.js';
import {
  context,
  type HomeView,
  header,
  type Message,
  type ModalView,
  message,
  modal,
  section,
} from '../../blocks/blocks.js';
import { esc, userMention } from '../../blocks/mrkdwn.js';
import { renderRefused } from '../errors.js';
import type { CommandContext, Standing } from '../types.js';
import { type Barred, isBarred } from './standing.js';

/**
 * Who to ask, mrkdwn: the configured admins by mention (ephemeral replies do not notify), the
 * admin user group, or "a workspace admin".
 */
export async function adminContacts(deps: AppDeps, workspace: WorkspaceKey): Promise<string> {
  const settings = await deps.store.settings.get(workspace);
  const ids = [...new Set([...configAdminIds(deps.config, workspace), ...settings.adminUserIds])];
  const parts: string[] = ids.slice(0, 5).map(userMention);
  if (ids.length > 5) parts.push(`${ids.length - 5} more`);
  if (settings.adminUsergroupId && /^S[A-Z0-9]+$/.test(settings.adminUsergroupId)) {
    parts.push(`<!subteam^${settings.adminUsergroupId}>`);
  }
  parts.push('a workspace admin');
  return parts.length === 1 ? parts[0]! : `${parts.slice(0, -1).join(', ')} or ${parts[parts.length - 1]}`;
}

/** The refusal message for `what` ("change the setup"). */
export async function refusal(deps: AppDeps, workspace: WorkspaceKey, what: string): Promise<Message> {
  return renderRefused(what, await adminContacts(deps, workspace));
}

/** A modal that stands in while the role is asked from Slack. */
export function checkingView(title: string): ModalView {
  return modal(CHECK_CALLBACK, title, [section(':hourglass_flowing_sand: Checking that you can do this…')]);
}

/** A modal that says who can do `what` (a refusal found after the modal opened). */
export function refusedView(what: string, admins: string): ModalView {
  return modal(
    CHECK_CALLBACK,
    'Admins only',
    [
      section(`:lock: *Only admins can ${esc(what)}.*`),
      section(`Ask ${admins} to do it, or to make you an admin.`),
    ],
    { close: 'Close' },
  );
}

/** callback_id of the checking and refusal modals (they have no submit button). */
export const CHECK_CALLBACK = 'role_check';

/** Audit detail of a refusal: why (guest, unverified, external, not an admin) and what was tried. */
export function refusalDetail(s: Standing, o: { what: string; detail?: string }): string {
  const base = o.detail ?? `refused: ${o.what}`;
  if (s === 'guest') return `${base} (guest account)`;
  if (s === 'unverified') return `${base} (Slack does not know the user in this workspace)`;
  if (s === 'external') return `${base} (account of another organisation)`;
  return base;
}

/** The reply to a refused user: barred (guest / unverified / external) or not an admin. */
export async function refusalFor(ctx: CommandContext, s: Standing, what: string): Promise<Message> {
  const admins = await ctx.admins();
  return isBarred(s) ? renderBarred(s, admins) : renderRefused(what, admins);
}

const GUEST_WHAT = "Guest accounts can't use this bot in this workspace.";
const UNVERIFIED_WHAT = "Couldn't confirm your account in this workspace, so nothing was done.";
const EXTERNAL_WHAT = "Accounts of other organisations can't use this bot in this workspace.";

/** What / why / next of a barred user, mrkdwn (`admins` from `adminContacts`). */
export function barredParts(s: Barred, admins: string): { what: string; why: string; next: string } {
  if (s === 'guest') {
    return {
      what: GUEST_WHAT,
      why: 'Your Slack account is a guest account, and this workspace lets only its full members use DRM ChatOps.',
      next: `If you need something done, ask ${admins}.`,
    };
  }
  if (s === 'external') {
    return {
      what: EXTERNAL_WHAT,
      why: 'Your Slack account belongs to another organisation (you reach this workspace through a shared Slack Connect channel), and this workspace lets only its own full members use DRM ChatOps.',
      next: `If you need something done here, ask ${admins}.`,
    };
  }
  return {
    what: UNVERIFIED_WHAT,
    why: 'Slack does not know your account in this workspace (an account of another workspace or organisation), and this workspace lets only its full members use DRM ChatOps.',
    next: `If you need something done here, ask ${admins}.`,
  };
}

/** The reply to a barred user (commands, buttons, submissions answered by message). */
export function renderBarred(s: Barred, admins: string): Message {
  const p = barredParts(s, admins);
  return message(p.what, [section(`:lock: *${p.what}*\n${p.why}`), section(p.next)]);
}

/** The modal a barred user's form or "Checking…" modal turns into. */
export function barredView(s: Barred, admins: string): ModalView {
  const p = barredParts(s, admins);
  return modal(
    CHECK_CALLBACK,
    'Not available',
    [section(`:lock: *${p.what}*`), section(p.why), section(p.next)],
    { close: 'Close' },
  );
}

/** The Home tab of a barred user: what / why / next, no buttons. */
export function barredHomeView(s: Barred, admins: string): HomeView {
  const p = barredParts(s, admins);
  return {
    type: 'home',
    blocks: [
      header('DRM ChatOps'),
      section(`:lock: *${p.what}*`),
      section(p.why),
      section(p.next),
      context('This tab shows no data and no actions to accounts the bot does not serve.'),
    ],
  };
}
