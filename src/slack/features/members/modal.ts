/** Change-group modal submission: workspace check, admin re-check (no Slack call before the ack), change, audit, list replaced. */
import type { App, SlackViewAction } from '@slack/bolt';
import { z } from 'zod';
import { changeGroup, listMembers } from '../../../ops/service/index.js';
import type { AppDeps } from '../../deps.js';
import type { Message } from '../../kit/blocks.js';
import { explainError, renderError } from '../../kit/errors.js';
import { code, esc, userMention } from '../../kit/mrkdwn.js';
import { adminGateForView } from '../../kit/roles.js';
import {
  audited,
  errorOptions,
  logError,
  modalMeta,
  replyFromModal,
  viewContext,
} from '../../kit/support.js';
import { SVC_VIEWS } from '../../kit/svc-values.js';
import { infoView } from '../settings/render.js';
import { GROUP_BLOCK, MEMBERS_PAGE_SIZE, membersMessage } from './render.js';

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
    const group = view.state.values[GROUP_BLOCK]?.value?.selected_option?.value;
    if (!group) {
      await ack({ response_action: 'errors', errors: { [GROUP_BLOCK]: 'Choose a group.' } });
      return;
    }
    // Admin re-check without a Slack call before the ack (review #1); when the role must be asked
    // from Slack, the modal shows "Changing…" and ends on a short line.
    const gate = await adminGateForView(ctx, ack, {
      viewId: view.id,
      blockId: GROUP_BLOCK,
      what: "change a sub-member's group",
      action: 'members.changeGroup',
      pending: infoView('Change group', ':hourglass_flowing_sand: Changing the group…'),
    });
    if (!gate.ok) return;
    if (!gate.acked) await ack();
    const closeWith = async (text: string) => {
      if (!gate.acked) return;
      await client.views
        .update({ view_id: view.id, view: infoView('Change group', text) as never })
        .catch((err: unknown) => ctx.logger.warn({ err }, 'could not update the change-group view'));
    };
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
      await closeWith(':white_check_mark: Done. The member list shows the new group.');
    } catch (e) {
      const opts = await errorOptions(ctx);
      logError(ctx, 'change group failed', e, opts);
      await deliver(renderError("Couldn't change the group", e, opts), false).catch(() => undefined);
      await closeWith(`:warning: The group was not changed. ${explainError(e, opts).why}`);
    }
  });
}
