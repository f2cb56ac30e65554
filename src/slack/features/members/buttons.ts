/**
 * Member buttons (admins only, re-checked on every click): Previous/Next, Reset password,
 * Activate/Deactivate (each behind a confirm dialog on the button, and once per card: a
 * second click is told it is already done) and Change group (opens a
 * modal; the member is read after the modal is open, then the modal is updated).
 * Every change is audited and the list is replaced with a fresh page and a line saying what
 * was done.
 */
import { findMember, resetPassword, setMemberActive } from '../../../ops/service/index.js';
import { code, esc, userMention } from '../../kit/blocks/mrkdwn.js';
import type { CommandContext } from '../../kit/context/context.js';
import { audited } from '../../kit/context/support.js';
import { type ButtonArgs, button, type Interaction } from '../../kit/interactions/registry.js';
import { infoView, showLoadFailure } from '../../shared/svc/support.js';
import { decodeValue, SVC_ACTIONS } from '../../shared/svc/values.js';
import { showMembers } from './commands.js';
import { groupModal } from './render.js';
import { type MembersValue, membersValue } from './values.js';

type MemberValue = MembersValue & { m: number };

/** A button on one member's row (the value names the member). */
function memberButton(o: {
  actionId: string;
  name: string;
  what: string;
  audit: string;
  opensModal?: boolean;
  once?: string;
  run: (ctx: CommandContext, v: MemberValue, a: ButtonArgs) => Promise<void>;
}): Interaction {
  return button<MemberValue>({
    name: o.name,
    command: '/drm',
    actionId: o.actionId,
    value: (raw) => {
      const v = decodeValue(membersValue, raw);
      return v?.m ? { ...v, m: v.m } : undefined;
    },
    role: 'admin',
    refusal: () => ({ what: o.what, action: o.audit, title: 'Change group' }),
    ...(o.opensModal ? { opensModal: true } : {}),
    ...(o.once ? { once: { done: o.once } } : {}),
    failure: `Couldn't ${o.what}`,
    run: o.run,
  });
}

export const pageButton = button({
  name: 'members.page',
  command: '/drm',
  actionId: new RegExp(`^${SVC_ACTIONS.membersPage}_`),
  value: membersValue,
  role: 'admin',
  refusal: () => ({ what: 'list sub-members', action: 'members.list' }),
  failure: "Couldn't list sub-members",
  run: (ctx, v) => showMembers(ctx, v.p, { replace: true }),
});

/**
 * The member list again with `banner` (mrkdwn) after a change made at the service. Reading the
 * list can fail on its own (the service busy again): the change still stands, so the banner alone
 * is said then, never an error that would have the user do it again.
 */
async function showAfterChange(ctx: CommandContext, page: number, banner: string): Promise<void> {
  try {
    await showMembers(ctx, page, { replace: true, banner });
  } catch (err) {
    ctx.logger.warn({ err, refId: ctx.refId }, 'member changed, but the member list could not be shown');
    await ctx.respond({ text: banner });
  }
}

export const resetPasswordButton = memberButton({
  actionId: SVC_ACTIONS.memberResetPassword,
  name: 'members.reset-password',
  what: 'reset a password',
  audit: 'members.resetPassword',
  once: 'A password reset was already asked for from this card.',
  async run(ctx, v) {
    const svc = (await ctx.clients()).service();
    await audited(ctx, 'members.resetPassword', `member ${v.m}`, undefined, () => resetPassword(svc, v.m));
    await showAfterChange(
      ctx,
      v.p,
      `:white_check_mark: ${userMention(ctx.userId)} asked the service to reset the password of member ${code(v.m)}; they get an e-mail.`,
    );
  },
});

const activeButton = (active: boolean) => {
  const verb = active ? 'activate' : 'deactivate';
  return memberButton({
    actionId: active ? SVC_ACTIONS.memberActivate : SVC_ACTIONS.memberDeactivate,
    name: `members.${verb}`,
    what: `${verb} a sub-member`,
    audit: `members.${verb}`,
    once: `This sub-member was already ${verb}d from this card.`,
    async run(ctx, v) {
      const svc = (await ctx.clients()).service();
      const r = await audited(ctx, `members.${verb}`, `member ${v.m}`, undefined, () =>
        setMemberActive(svc, v.m, active),
      );
      await showAfterChange(
        ctx,
        v.p,
        `:white_check_mark: ${userMention(ctx.userId)} ${verb}d ${esc(r.before.email)}.`,
      );
    },
  });
};

export const activateButton = activeButton(true);
export const deactivateButton = activeButton(false);

export const groupButton = memberButton({
  actionId: SVC_ACTIONS.memberGroup,
  name: 'members.change-group',
  what: "change a sub-member's group",
  audit: 'members.changeGroup',
  opensModal: true,
  async run(ctx, v, { responseUrl }) {
    // Open first (the trigger id lasts 3 s), then read the member and fill the modal in.
    const viewId = await ctx.openView(infoView('Change group', 'Loading the member…', 'Cancel'));
    try {
      const member = await findMember((await ctx.clients()).service(), v.m);
      const view = member
        ? groupModal(
            member,
            JSON.stringify({ w: v.w, p: v.p, m: v.m, ...(responseUrl ? { ru: responseUrl } : {}) }),
          )
        : infoView(
            'Change group',
            `There is no sub-member number ${code(v.m)} any more: run \`/drm members\` again.`,
          );
      if (viewId) await ctx.client.views.update({ view_id: viewId, view: view });
    } catch (e) {
      await showLoadFailure(
        ctx,
        viewId,
        'Change group',
        "Couldn't read the member.",
        'member lookup failed',
        e,
      );
    }
  },
});
