/**
 * Change-group modal submission: workspace check, admin re-check (the kit's gate: no Slack call
 * before the ack), change, audit, list replaced.
 */
import { z } from 'zod';
import type { ServiceClient } from '../../../api/types.js';
import { changeGroup, listMembers } from '../../../ops/service/index.js';
import type { Message } from '../../kit/blocks/blocks.js';
import { cardMetaOf } from '../../kit/blocks/cards.js';
import { code, esc, userMention } from '../../kit/blocks/mrkdwn.js';
import { explainError, outcomeUnknown, renderError } from '../../kit/context/errors.js';
import { audited, errorOptions, logError, replyFromModal } from '../../kit/context/support.js';
import { modal } from '../../kit/interactions/registry.js';
import { infoView } from '../../shared/svc/support.js';
import { SVC_VIEWS } from '../../shared/svc/values.js';
import { GROUP_BLOCK, MEMBERS_PAGE_SIZE, membersMessage } from './render.js';

const metaSchema = z.object({
  w: z.string().min(1),
  p: z.number().int().min(1),
  m: z.number().int().positive(),
  ru: z.string().max(1000).optional(),
});
type Meta = z.infer<typeof metaSchema>;

export const groupModal = modal<Meta, { group: string }>({
  name: 'members.change-group',
  command: '/drm',
  callbackId: SVC_VIEWS.memberGroup,
  meta: metaSchema,
  stale: { block: GROUP_BLOCK, text: 'This form is out of date: run /drm members again.' },
  role: 'admin',
  // When the role must be asked from Slack, the modal shows "Changing…" and ends on a short line.
  gate: () => ({
    block: GROUP_BLOCK,
    what: "change a sub-member's group",
    action: 'members.changeGroup',
    pending: infoView('Change group', ':hourglass_flowing_sand: Changing the group…'),
  }),
  failure: "Couldn't change the group",
  check(_ctx, _meta, view) {
    const group = view.state.values[GROUP_BLOCK]?.value?.selected_option?.value;
    return group ? { ok: { group } } : { errors: { [GROUP_BLOCK]: 'Choose a group.' } };
  },
  async submit(ctx, meta, { group }, { view, client, gated }) {
    const closeWith = async (text: string) => {
      if (!gated) return;
      await client.views
        .update({ view_id: view.id, view: infoView('Change group', text) })
        .catch((err: unknown) => ctx.logger.warn({ err }, 'could not update the change-group view'));
    };
    const deliver = (msg: Message, replace: boolean) => replyFromModal(ctx, meta.ru, msg, replace);
    let svc: ServiceClient;
    let r: Awaited<ReturnType<typeof changeGroup>>;
    try {
      svc = (await ctx.clients()).service();
      r = await audited(ctx, 'members.changeGroup', `member ${meta.m} to group ${group}`, undefined, () =>
        changeGroup(svc, meta.m, group),
      );
    } catch (e) {
      const opts = await errorOptions(ctx);
      logError(ctx, 'change group failed', e, opts);
      await deliver(renderError("Couldn't change the group", e, opts), false).catch(() => undefined);
      await closeWith(
        `:warning: ${outcomeUnknown(e) ? '' : 'The group was not changed. '}${explainError(e, opts).why}`,
      );
      return;
    }
    // Changed: a failure from here on (reading the list again, Slack) must not say otherwise.
    const banner = `:white_check_mark: ${userMention(ctx.userId)} moved ${esc(r.before.email)} (no. ${code(meta.m)}) from ${esc(r.before.groupLabel)} to ${esc(r.groupLabel)}.`;
    try {
      const [page, tz] = await Promise.all([
        listMembers(svc, { page: meta.p, pageSize: MEMBERS_PAGE_SIZE }),
        ctx.timeZone(),
      ]);
      await deliver(membersMessage(page, { workspace: ctx.workspace, ...cardMetaOf(ctx, tz), banner }), true);
    } catch (err) {
      ctx.logger.warn({ err, refId: ctx.refId }, 'group changed, but the member list could not be shown');
      await deliver({ text: banner }, false).catch((e: unknown) =>
        ctx.logger.error({ err: e, refId: ctx.refId }, 'could not tell the user the group was changed'),
      );
    }
    await closeWith(':white_check_mark: Done. The member list shows the new group.');
  },
});
