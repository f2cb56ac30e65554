/**
 * Member buttons (admins only, re-checked on every click): Previous/Next, Reset password,
 * Activate/Deactivate (each behind a confirm dialog on the button) and Change group (opens a
 * modal; the member is read after the modal is open, then the modal is updated).
 * Every change is audited and the list is replaced with a fresh page and a line saying what
 * was done.
 */
import type { App, BlockAction, ButtonAction } from '@slack/bolt';
import { findMember, resetPassword, setMemberActive } from '../../../ops/service/index.js';
import type { AppDeps } from '../../deps.js';
import type { CommandContext } from '../../kit/context.js';
import { code, esc, userMention } from '../../kit/mrkdwn.js';
import { admitToModal, requireAdmin } from '../../kit/roles.js';
import {
  actionContext,
  audited,
  badValue,
  buttonValue,
  respondError,
  sameWorkspace,
} from '../../kit/support.js';
import { showLoadFailure } from '../../kit/svc-support.js';
import { decodeValue, type MembersValue, membersValue, SVC_ACTIONS } from '../../kit/svc-values.js';
import { infoView } from '../settings/render.js';
import { showMembers } from './commands.js';
import { groupModal } from './render.js';

type Handler = (ctx: CommandContext, v: MembersValue & { m: number }, responseUrl?: string) => Promise<void>;

function memberAction(
  app: App,
  deps: AppDeps,
  actionId: string,
  what: string,
  audit: string,
  run: Handler,
  /** `run` opens a modal: the role is awaited only briefly (the trigger id lasts 3 s, review #3). */
  opensModal = false,
): void {
  app.action<BlockAction<ButtonAction>>(actionId, async ({ ack, body, action, client, respond, context }) => {
    await ack();
    const ctx = actionContext(deps, { body, client, respond, context }, '/drm');
    const v = decodeValue(membersValue, action.value);
    if (!v?.m) return badValue(ctx);
    if (!(await sameWorkspace(ctx, v.w))) return;
    try {
      const ok = opensModal
        ? await admitToModal(ctx, { what, action: audit, title: 'Change group' })
        : await requireAdmin(ctx, what, audit);
      if (!ok) return;
      await run(ctx, { ...v, m: v.m }, body.response_url);
    } catch (e) {
      await respondError(ctx, `Couldn't ${what}`, e);
    }
  });
}

export function register(app: App, deps: AppDeps): void {
  app.action<BlockAction<ButtonAction>>(
    new RegExp(`^${SVC_ACTIONS.membersPage}_`),
    async ({ ack, body, action, client, respond, context }) => {
      await ack();
      const ctx = actionContext(deps, { body, client, respond, context }, '/drm');
      const v = await buttonValue(ctx, membersValue, action.value);
      if (!v) return;
      if (!(await requireAdmin(ctx, 'list sub-members', 'members.list'))) return;
      try {
        await showMembers(ctx, v.p, { replace: true });
      } catch (e) {
        await respondError(ctx, "Couldn't list sub-members", e);
      }
    },
  );

  memberAction(
    app,
    deps,
    SVC_ACTIONS.memberResetPassword,
    'reset a password',
    'members.resetPassword',
    async (ctx, v) => {
      const svc = (await ctx.clients()).service();
      await audited(ctx, 'members.resetPassword', `member ${v.m}`, undefined, () => resetPassword(svc, v.m));
      await showMembers(ctx, v.p, {
        replace: true,
        banner: `:white_check_mark: ${userMention(ctx.userId)} asked the service to reset the password of member ${code(v.m)}; they get an e-mail.`,
      });
    },
  );

  for (const active of [true, false]) {
    const verb = active ? 'activate' : 'deactivate';
    memberAction(
      app,
      deps,
      active ? SVC_ACTIONS.memberActivate : SVC_ACTIONS.memberDeactivate,
      `${verb} a sub-member`,
      `members.${verb}`,
      async (ctx, v) => {
        const svc = (await ctx.clients()).service();
        const r = await audited(ctx, `members.${verb}`, `member ${v.m}`, undefined, () =>
          setMemberActive(svc, v.m, active),
        );
        await showMembers(ctx, v.p, {
          replace: true,
          banner: `:white_check_mark: ${userMention(ctx.userId)} ${verb}d ${esc(r.before.email)}.`,
        });
      },
    );
  }

  memberAction(
    app,
    deps,
    SVC_ACTIONS.memberGroup,
    "change a sub-member's group",
    'members.changeGroup',
    async (ctx, v, responseUrl) => {
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
        if (viewId) await ctx.client.views.update({ view_id: viewId, view: view as never });
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
    true,
  );
}
