/** Change-group modal submission: admin re-check, workspace check, change, audit, list replaced. */
import type { App, SlackViewAction } from '@slack/bolt';
import { z } from 'zod';
import { changeGroup, listMembers } from '../../../ops/service/index.js';
import type { AppDeps } from '../../deps.js';
import type { Message } from '../../render/blocks.js';
import { renderError } from '../../render/errors.js';
import { code, esc, userMention } from '../../render/mrkdwn.js';
import { SVC_VIEWS } from '../../render/svc/common.js';
import { GROUP_BLOCK, MEMBERS_PAGE_SIZE, membersMessage } from '../../render/svc/members.js';
import { requireAdminForView } from '../../roles.js';
import { audited, errorOptions, logError, modalMeta, replyFromModal, viewContext } from '../support.js';

const metaSchema = z.object({
  w: z.string().min(1),
  p: z.number().int().min(1),
  m: z.number().int().positive(),
  ru: z.string().max(1000).optional(),
});

export function register(app: App, deps: AppDeps): void {
  app.view<SlackViewAction>(SVC_VIEWS.memberGroup, async ({ ack, body, view, client, context }) => {
    const ctx = viewContext(deps, { body, client, context }, '/drm');
    const meta = await modalMeta(
      ctx,
      ack,
      metaSchema,
      view.private_metadata,
      GROUP_BLOCK,
      'This form is out of date: run /drm members again.',
    );
    if (!meta) return;
    if (
      !(await requireAdminForView(
        ctx,
        ack,
        GROUP_BLOCK,
        "change a sub-member's group",
        'members.changeGroup',
      ))
    )
      return;
    const group = view.state.values[GROUP_BLOCK]?.value?.selected_option?.value;
    if (!group) {
      await ack({ response_action: 'errors', errors: { [GROUP_BLOCK]: 'Choose a group.' } });
      return;
    }
    await ack();
    const deliver = (msg: Message, replace: boolean) => replyFromModal(ctx, meta.ru, msg, replace);
    try {
      const svc = (await ctx.clients()).service();
      const r = await audited(
        ctx,
        'members.changeGroup',
        `member ${meta.m} to group ${group}`,
        undefined,
        () => changeGroup(svc, meta.m, group),
      );
      const [page, tz] = await Promise.all([
        listMembers(svc, { page: meta.p, pageSize: MEMBERS_PAGE_SIZE }),
        ctx.timeZone(),
      ]);
      await deliver(
        membersMessage(page, {
          workspace: ctx.workspace,
          userId: ctx.userId,
          atMs: deps.now(),
          refId: ctx.refId,
          timeZone: tz,
          banner: `:white_check_mark: ${userMention(ctx.userId)} moved ${esc(r.before.email)} (no. ${code(meta.m)}) from ${esc(r.before.groupLabel)} to ${esc(r.groupLabel)}.`,
        }),
        true,
      );
    } catch (e) {
      const opts = await errorOptions(ctx);
      logError(ctx, 'change group failed', e, opts);
      await deliver(renderError("Couldn't change the group", e, opts), false).catch(() => undefined);
    }
  });
}
