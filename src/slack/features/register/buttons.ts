/**
 * Buttons inside the registration modals: "Back to edit" (the form again, with the draft's text
 * and kept file) and "Download the list" (the preview's skipped and invalid lines as a CSV in the
 * user's DM). Open to members, like the command (members register recipients).
 */
import type { App, BlockButtonAction } from '@slack/bolt';
import { z } from 'zod';
import { loadDraft, planIssuesCsv } from '../../../ops/wm-registration.js';
import type { AppDeps } from '../../deps.js';
import { uploadFile } from '../../kit/files.js';
import { dmChannel, respondError, viewContext } from '../../kit/support.js';
import { decodeValue, WM_ACTIONS } from '../../kit/wm-values.js';
import { formMetadata } from './modals.js';
import { previewIssuesCsvComment, registerFormView } from './render.js';

const metaSchema = z.object({ w: z.string(), s: z.string(), d: z.string().optional() });

export function register(app: App, deps: AppDeps): void {
  app.action<BlockButtonAction>(WM_ACTIONS.registerBack, async (a) => {
    await a.ack();
    const ctx = viewContext(deps, a);
    const viewId = a.body.view?.id;
    const meta = decodeValue(metaSchema, a.action.value);
    if (!viewId || !meta || meta.w !== ctx.workspace) return;
    try {
      const draft = meta.d ? await loadDraft(deps, ctx.workspace, meta.d, ctx.userId) : undefined;
      const c = await ctx.clients();
      const site = c.site(draft?.siteId ?? meta.s);
      await a.client.views.update({
        view_id: viewId,
        view: registerFormView({
          siteIds: c.siteIds,
          siteId: site,
          ...(draft?.text ? { text: draft.text } : {}),
          ...(draft?.file ? { keptFile: { name: draft.file.name, lines: draft.file.lines } } : {}),
          ...(meta.d && !draft
            ? { problem: 'Your earlier list has expired (kept one hour); enter it again.' }
            : {}),
          privateMetadata: formMetadata(ctx.workspace, site, draft?.id),
        }) as never,
      });
    } catch (e) {
      await respondError(ctx, "Couldn't go back to the form", e);
    }
  });

  app.action<BlockButtonAction>(WM_ACTIONS.registerInvalidCsv, async (a) => {
    await a.ack();
    const ctx = viewContext(deps, a);
    const meta = decodeValue(metaSchema, a.action.value);
    if (!meta?.d || meta.w !== ctx.workspace) return;
    try {
      const draft = await loadDraft(deps, ctx.workspace, meta.d, ctx.userId);
      if (!draft?.plan) {
        await ctx.respond({
          text: 'This preview has expired (lists are kept one hour). Run /dwm register again.',
        });
        return;
      }
      const p = draft.plan;
      const rows = p.invalid.length + p.duplicatesInInput.length + p.alreadyRegistered.length;
      const channel = await dmChannel(ctx.client, ctx.userId);
      await uploadFile(ctx.client, channel, {
        filename: `registration-preview-${draft.siteId}.csv`,
        content: planIssuesCsv(p),
        comment: previewIssuesCsvComment(draft.siteId, rows),
      });
    } catch (e) {
      await respondError(ctx, "Couldn't send the list", e);
    }
  });
}
