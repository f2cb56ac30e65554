/**
 * Change-group modal submission: workspace check, admin re-check (the kit's gate: no Slack call
 * before the ack), change, audit, list replaced.
 */
import { z } from 'zod';
import type { ServiceClient } from '../../../api/types.js';
import { changeGroup, listMembers } from '../../../ops/service/index.js';
import { cardMetaOf } from '../../kit/blocks/cards.js';
import { code, esc, userMention } from '../../kit/blocks/mrkdwn.js';
import { explainError, outcomeUnknown, renderError } from '../../kit/context/errors.js';
import { audited, errorOptions, logError } from '../../kit/context/support.js';
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
  // The reply replaces the member list the form was opened from; the modal shows "Changing…"
  // only when the gate had to ask Slack, and then ends on a short line (`closing`).
  async submit(ctx, meta, { group }) {
    const closing = (text: string) => infoView('Change group', text);
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
      return {
        reply: { message: renderError("Couldn't change the group", e, opts), responseUrl: meta.ru },
        closing: closing(
          `:warning: ${outcomeUnknown(e) ? '' : 'The group was not changed. '}${explainError(e, opts).why}`,
        ),
      };
    }
    // Changed: a failure from here on (reading the list again, Slack) must not say otherwise.
    const banner = `:white_check_mark: ${userMention(ctx.userId)} moved ${esc(r.before.email)} (no. ${code(meta.m)}) from ${esc(r.before.groupLabel)} to ${esc(r.groupLabel)}.`;
    const done = closing(':white_check_mark: Done. The member list shows the new group.');
    try {
      const [page, tz] = await Promise.all([
        listMembers(svc, { page: meta.p, pageSize: MEMBERS_PAGE_SIZE }),
        ctx.timeZone(),
      ]);
      const list = membersMessage(page, { workspace: ctx.workspace, ...cardMetaOf(ctx, tz), banner });
      return { reply: { message: list, responseUrl: meta.ru, replace: true }, closing: done };
    } catch (err) {
      ctx.logger.warn({ err, refId: ctx.refId }, 'group changed, but the member list could not be shown');
      return { reply: { message: { text: banner }, responseUrl: meta.ru }, closing: done };
    }
  },
});
