/**
 * Buttons inside the registration modals: "Back to edit" (the form again, with the draft's text
 * and kept file) and "Download the list" (the preview's skipped and invalid lines as a CSV in the
 * user's DM). Open to members, like the command (members register recipients).
 */
import { loadDraft, planIssuesCsv } from '../../../ops/watermarking/registration/records.js';
import { dmChannel } from '../../kit/context/support.js';
import { button } from '../../kit/interactions/registry.js';
import { uploadFile } from '../../kit/web/files.js';
import { WM_ACTIONS } from '../../shared/wm/values.js';
import { formMetadata, keptText } from './modals.js';
import { previewIssuesCsvComment, registerFormView } from './render.js';
import { formMetaValue } from './values.js';

export const backButton = button({
  name: 'register.back',
  actionId: WM_ACTIONS.registerBack,
  surface: 'modal',
  value: formMetaValue, // the modal's metadata: workspace, site, draft id
  failure: "Couldn't go back to the form",
  async run(ctx, meta, { viewId, client }) {
    if (!viewId) return;
    const draft = meta.d ? await loadDraft(ctx.deps, ctx.workspace, meta.d, ctx.userId) : undefined;
    const c = await ctx.clients();
    const site = c.site(draft?.siteId ?? meta.s);
    const kept = keptText(draft);
    await client.views.update({
      view_id: viewId,
      view: registerFormView({
        siteIds: c.siteIds,
        siteId: site,
        ...(draft?.text && !kept ? { text: draft.text } : {}),
        ...(kept ? { keptText: { lines: kept.split(/\r\n|\n|\r/).length } } : {}),
        ...(draft?.file ? { keptFile: { name: draft.file.name, lines: draft.file.lines } } : {}),
        ...(meta.d && !draft
          ? { problem: 'Your earlier list has expired (kept one hour); enter it again.' }
          : {}),
        privateMetadata: formMetadata(ctx.workspace, site, draft?.id),
      }),
    });
  },
});

export const invalidCsvButton = button({
  name: 'register.invalid-csv',
  actionId: WM_ACTIONS.registerInvalidCsv,
  surface: 'modal',
  value: formMetaValue, // the modal's metadata: workspace, site, draft id
  failure: "Couldn't send the list",
  async run(ctx, meta) {
    const draft = meta.d ? await loadDraft(ctx.deps, ctx.workspace, meta.d, ctx.userId) : undefined;
    if (!draft?.plan) {
      await ctx.respond({
        text: 'This preview has expired (lists are kept one hour). Run /dwm register again.',
      });
      return;
    }
    const p = draft.plan;
    const rows = p.invalid.length + p.duplicatesInInput.length + p.alreadyRegistered.length;
    const channel = await dmChannel(ctx.client, ctx.userId);
    await uploadFile(
      ctx.client,
      channel,
      {
        filename: `registration-preview-${draft.siteId}.csv`,
        content: planIssuesCsv(p),
        comment: previewIssuesCsvComment(draft.siteId, rows),
      },
      ctx,
    );
    // Recipient names left the form for a file in a DM: an export, audited like the others.
    await ctx.audit({
      action: 'register.export.preview',
      detail: `exported ${rows} rows of a registration preview`,
      result: 'ok',
      siteId: draft.siteId,
    });
  },
});
