/**
 * The admission checks the kit calls: the ONE place each kind of request is checked against the
 * standing policy (./standing.ts). Commands (the registry dispatcher) and buttons
 * (../../interactions/registry.ts) go through `admit` (`requireAdmin` / `admitToModal` are its admin
 * forms); modal submissions through `adminGateForView` / `barredAtSubmit` (nothing may call Slack
 * before the 3-second ack); workflow steps through `stepBarred`. A refusal is audited and answered
 * (./refusals.ts). Also the short wait for the role of a request that opens a modal (the trigger
 * id lasts 3 s), and who reads a reply (`replyAudience`, `mayRender`: which buttons to render).
 */

import { appState } from '../../app-state.js';
import { LIMITS, type ModalView } from '../../blocks/blocks.js';
import { truncate } from '../../blocks/mrkdwn.js';
import type { CommandContext, Role, Standing } from '../types.js';
import {
  barredParts,
  barredView,
  checkingView,
  refusalDetail,
  refusalFor,
  refusedView,
  renderBarred,
} from './refusals.js';
import { type Barred, inUserGroups, isBarred, localStanding, roleOfStanding } from './standing.js';

/**
 * How long a modal-opening command or button waits for the role before it opens a "Checking…"
 * modal with the trigger id (which lasts 3 s). Normally users.info answers in well under a
 * second and members get a plain refusal with no modal; when Slack is slow or rate-limits
 * users.info (Tier 4, SDK retries of 0.5-3 s), the modal opens in time and the answer follows in
 * it. 1 s leaves room for the views.open round trip.
 */
const DEFAULT_ROLE_BUDGET_MS = 1_000;
const budgetOf = appState(() => ({ ms: DEFAULT_ROLE_BUDGET_MS }));

/** Change the budget above for one app (tests); returns the previous value. */
export function setRoleCheckBudgetMs(deps: { config: object }, ms: number): number {
  const st = budgetOf(deps);
  const before = st.ms;
  st.ms = ms;
  return before;
}

/** The role if it is known within the budget, else undefined (the check goes on in the background). */
export async function roleWithin(
  ctx: CommandContext,
  budgetMs = budgetOf(ctx.deps).ms,
): Promise<Role | undefined> {
  const s = await standingWithin(ctx, budgetMs);
  return s === undefined ? undefined : roleOfStanding(s);
}

/** The standing if it is known within the budget, else undefined (the check goes on). */
export async function standingWithin(
  ctx: CommandContext,
  budgetMs = budgetOf(ctx.deps).ms,
): Promise<Standing | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), budgetMs);
    timer.unref?.();
  });
  try {
    return await Promise.race([ctx.standing(), late]);
  } finally {
    clearTimeout(timer);
  }
}

export interface AdmitOptions {
  /** What the user tried, after "Only admins can …" ("change the DRM settings"). */
  what: string;
  /** Audit action of a refusal. */
  action: string;
  /** Audit detail of a refusal (default "refused: <what>"). */
  detail?: string;
  /** Title of the "Checking…" modal (default "Please wait"). */
  title?: string;
}

export interface AdmitRequest extends AdmitOptions {
  /** The role the request needs: 'member' (anyone the bot serves) or 'admin'. */
  role: Role;
  /**
   * With `role: 'admin'`: Slack user groups whose members pass too (PERSONAL_DATA_USERGROUP for
   * the requests that show end viewers' personal data; `personalDataGroups`).
   */
  groups?: readonly string[];
  /** The request opens a modal with the trigger id (3 s): wait for the role only briefly. */
  modal?: boolean;
}

function allowed(s: Standing, role: Role): boolean {
  return !isBarred(s) && (role === 'member' || s === 'admin');
}

/**
 * The check of a command or button (the only one: the registry and ../../interactions/registry.ts call it):
 * barred users (GUEST_ACCESS=none: guests, users Slack does not know in this workspace, users of
 * another organisation) are refused
 * whatever the role; `role: 'admin'` refuses members too. A refusal is audited and answered
 * (ephemeral). Returns true when the caller may go on.
 *
 * With `modal` (the caller opens a modal with the trigger id, which lasts 3 s) the standing is
 * awaited only for a short budget (`standingWithin`):
 * - known in time: as above (a refusal is a reply, no modal);
 * - not known in time: a "Checking…" modal is opened with the trigger id, then the standing is
 *   awaited: a refused user sees the modal turn into the refusal (audited); otherwise
 *   `ctx.openView` is replaced so that the caller's modal fills the one already open
 *   (views.update).
 */
export async function admit(ctx: CommandContext, o: AdmitRequest): Promise<boolean> {
  const refuse = async (s: Standing) => {
    await ctx.audit({ action: o.action, detail: refusalDetail(s, o), result: 'refused' });
  };
  const pass = async (s: Standing) =>
    allowed(s, o.role) ||
    (!isBarred(s) &&
      (o.groups?.length ?? 0) > 0 &&
      (await inUserGroups(ctx.deps, ctx.client, ctx.workspace, ctx.userId, o.groups ?? [])));
  const quick = o.modal ? await standingWithin(ctx) : await ctx.standing();
  if (quick !== undefined) {
    if (await pass(quick)) return true;
    await refuse(quick);
    await ctx.respond(await refusalFor(ctx, quick, o.what), { share: false });
    return false;
  }
  const viewId = await ctx.openView(checkingView(o.title ?? 'Please wait'));
  const s = await ctx.standing();
  if (await pass(s)) {
    ctx.openView = async (view) => {
      if (!viewId) throw new Error('views.open returned no view id');
      await ctx.client.views.update({ view_id: viewId, view: view });
      return viewId;
    };
    return true;
  }
  await refuse(s);
  if (viewId) {
    const admins = await ctx.admins();
    await ctx.client.views.update({
      view_id: viewId,
      view: isBarred(s) ? barredView(s, admins) : refusedView(o.what, admins),
    });
  }
  return false;
}

/**
 * The admin check of a command or button that opens a modal (`admit` with `role: 'admin'` and
 * `modal`): the trigger id lasts 3 s, so the standing is awaited only for a short budget.
 * Returns true when the caller may go on (its `ctx.openView` may then fill the "Checking…" modal).
 */
export async function admitToModal(ctx: CommandContext, o: AdmitOptions): Promise<boolean> {
  return admit(ctx, { ...o, role: 'admin', modal: true });
}

/**
 * The role check for block actions (buttons, menus): the same rule as the dispatcher. When the
 * user is not an admin: audited as 'refused', told who can do it, and false is returned.
 */
export async function requireAdmin(ctx: CommandContext, what: string, action: string): Promise<boolean> {
  return admit(ctx, { role: 'admin', what, action });
}

/** Ok to go on; `acked` says whether the submission was already answered with the pending view. */
export type ViewGate = { ok: true; acked: boolean } | { ok: false };

/**
 * The role check of an admin-only modal submission, run after the form's own checks
 * (so inline errors stay possible). It never calls Slack before the ack:
 * - role known locally (`localRole`): an admin goes on with nothing acked; a member gets an
 *   inline refusal on `blockId` (the modal stays open) and the refusal is audited after the ack;
 * - not known locally: the submission is acked with `pending` (`response_action: 'update'`,
 *   e.g. "Saving…"), then the role is asked from Slack; an admin goes on (`acked: true`: the
 *   caller ends with views.update on `viewId`), a member sees the modal become a refusal view.
 * The modal was opened only for admins (the opening is checked too): this is the re-check.
 */
export async function adminGateForView(
  ctx: CommandContext,
  // biome-ignore lint/suspicious/noExplicitAny: Bolt's view ack is a union of AckFn types
  ack: (r?: any) => Promise<void>,
  o: { viewId: string; blockId: string; what: string; action: string; pending: ModalView },
): Promise<ViewGate> {
  const known = await localStanding(ctx.deps, ctx.workspace, ctx.userId);
  if (known === 'admin') return { ok: true, acked: false };
  if (isBarred(known)) {
    await refuseSubmission(ctx, ack, known, o);
    return { ok: false };
  }
  if (known === 'member') {
    const admins = (await ctx.admins())
      .replace(/<@([A-Z0-9]+)>/g, '@$1')
      .replace(/<!subteam\^([A-Z0-9]+)>/g, 'the admin group');
    await ack({
      response_action: 'errors',
      errors: { [o.blockId]: truncate(`Only admins can ${o.what}. Ask ${admins}.`, LIMITS.inlineError) },
    });
    await ctx.audit({ action: o.action, detail: `refused: ${o.what}`, result: 'refused' });
    return { ok: false };
  }
  await ack({ response_action: 'update', view: o.pending });
  const s = await ctx.standing();
  if (s === 'admin') return { ok: true, acked: true };
  await ctx.audit({ action: o.action, detail: refusalDetail(s, o), result: 'refused' });
  const admins = await ctx.admins();
  await ctx.client.views
    .update({ view_id: o.viewId, view: isBarred(s) ? barredView(s, admins) : refusedView(o.what, admins) })
    .catch((err: unknown) => ctx.logger.warn({ err }, 'could not show the refusal in the modal'));
  return { ok: false };
}

/** A barred user's submission known before the ack: the form becomes the refusal (audited). */
async function refuseSubmission(
  ctx: CommandContext,
  // biome-ignore lint/suspicious/noExplicitAny: Bolt's view ack is a union of AckFn types
  ack: (r?: any) => Promise<void>,
  s: Barred,
  o: { what: string; action: string },
): Promise<void> {
  await ack({ response_action: 'update', view: barredView(s, await ctx.admins()) });
  await ctx.audit({ action: o.action, detail: refusalDetail(s, o), result: 'refused' });
}

/**
 * The guest check of every modal submission (../../interactions/registry.ts), in two steps because nothing
 * may call Slack before the ack:
 * - `before` (ahead of the form's own checks, no Slack call): a user known to be barred
 *   (`localStanding`) sees the form become the refusal; returns false;
 * - `after` (once the submission is acked, before `submit` runs): when the standing was not
 *   known locally it is asked from Slack now; a barred user is refused (audited), in the modal
 *   when it is still open (`viewId`, the view shown at the ack), else by a direct message.
 *   Returns false then, and `submit` must not run.
 * Admin submissions get the same through `adminGateForView`.
 */
export function barredAtSubmit(ctx: CommandContext, o: { what: string; action: string }) {
  let known: Standing | undefined;
  return {
    async before(
      // biome-ignore lint/suspicious/noExplicitAny: Bolt's view ack is a union of AckFn types
      ack: (r?: any) => Promise<void>,
    ): Promise<boolean> {
      known = await localStanding(ctx.deps, ctx.workspace, ctx.userId);
      if (!isBarred(known)) return true;
      await refuseSubmission(ctx, ack, known, o);
      return false;
    },
    async after(viewId: string | undefined): Promise<boolean> {
      if (known !== undefined) return true;
      const s = await ctx.standing();
      if (!isBarred(s)) return true;
      await ctx.audit({ action: o.action, detail: refusalDetail(s, o), result: 'refused' });
      const admins = await ctx.admins();
      const shown = viewId
        ? await ctx.client.views
            .update({ view_id: viewId, view: barredView(s, admins) })
            .then(() => true)
            .catch(() => false)
        : false;
      if (!shown) await ctx.respond(renderBarred(s, admins), { share: false });
      return false;
    },
  };
}

/**
 * The check of a Workflow Builder step run for `userId` (../../interactions/steps.ts): the text the step
 * fails with when that user is barred, else undefined. A step that names no user runs as the
 * workflow (its builder, a member, chose so) and is not checked here.
 */
export async function stepBarred(ctx: CommandContext): Promise<string | undefined> {
  const s = await ctx.standing();
  if (!isBarred(s)) return undefined;
  const p = barredParts(s, await ctx.admins());
  return [p.what, p.why, p.next].join(' ');
}

/**
 * Who reads a reply, for deciding which buttons to render: the ephemeral reader's role, or
 * 'everyone' when the reply goes to the channel (the `share` flag). Hidden is not a guard: every
 * admin-only button is checked again when clicked (`role` of the button, `requireAdmin`).
 */
export type Audience = Role | 'everyone';

/** The audience of `ctx`'s replies (`share` overrides the command's own flag). */
export async function replyAudience(ctx: CommandContext, share: boolean = ctx.share): Promise<Audience> {
  return share ? 'everyone' : ctx.role();
}

/**
 * Whether a button needing `role` may be rendered for `audience`: member buttons for all; admin
 * buttons only for an admin reading alone (a channel message is read by members too: it names the
 * admin command instead).
 */
export function mayRender(audience: Audience, role: Role): boolean {
  return role === 'member' || audience === 'admin';
}
