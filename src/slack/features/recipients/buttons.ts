/**
 * Buttons of the recipients list and card: Previous/Next (in place), Details (a new card), Edit
 * (open to members, the project's rule: opens the edit modal with the trigger id first,
 * "Loading…", then views.update with the current values read from the service).
 */
import { explainError } from '../../kit/context/errors.js';
import { respondError } from '../../kit/context/support.js';
import { button } from '../../kit/interactions/registry.js';
import { encodeValue, WM_ACTIONS, wmDayPageQuery } from '../../shared/wm/values.js';
import { showRecipient, showRecipients } from './commands.js';
import { recipientEditFailedView, recipientEditView, recipientLoadingView } from './render.js';
import { recipientsPageValue, recipientValue } from './values.js';

export const pageButton = button({
  name: 'recipients.page',
  actionId: new RegExp(`^${WM_ACTIONS.recipientsPage}`),
  value: recipientsPageValue,
  failure: "Couldn't list recipients",
  run: (ctx, v) => showRecipients(ctx, { ...wmDayPageQuery(v), ...(v.k ? { keywords: v.k } : {}) }, true),
});

export const detailsButton = button({
  name: 'recipients.details',
  actionId: WM_ACTIONS.recipientDetails,
  value: recipientValue,
  failure: (v) => `Couldn't show recipient ${v.r}`,
  run: (ctx, v) => showRecipient(ctx, v.s, String(v.r)),
});

export const editButton = button({
  name: 'recipients.edit',
  actionId: WM_ACTIONS.recipientEdit,
  value: recipientValue,
  // The user check waits only briefly before the form opens (trigger id: 3 s).
  opensModal: true,
  failure: "Couldn't open the edit form",
  async run(ctx, v, { responseUrl, inChannel }) {
    let viewId: string | undefined;
    try {
      // The trigger id lasts 3 s: open first, then read the service.
      viewId = await ctx.openView(recipientLoadingView());
      const c = await ctx.clients();
      const site = c.site(v.s);
      const r = await c.watermarking().getRecipient(site, v.r);
      const meta = encodeValue({
        w: ctx.workspace,
        s: site,
        r: v.r,
        u: responseUrl ?? '',
        ...(inChannel ? { c: inChannel } : {}),
      });
      await ctx.client.views.update({
        view_id: viewId ?? '',
        view: recipientEditView(r, site, meta),
      });
    } catch (e) {
      if (!viewId) {
        await respondError(ctx, "Couldn't open the edit form", e);
        return;
      }
      const ex = explainError(e, { refId: ctx.refId });
      if (ex.unexpected) ctx.logger.error({ err: e, refId: ctx.refId }, 'recipient edit form failed');
      await ctx.client.views
        .update({
          view_id: viewId,
          view: recipientEditFailedView(
            `Couldn't load recipient ${v.r}. ${ex.why.replace(/[`*]/g, '')} ${ex.next.replace(/[`*]/g, '')}`,
          ),
        })
        .catch((err: unknown) => ctx.logger.error({ err }, 'could not update the edit view'));
    }
  },
});
