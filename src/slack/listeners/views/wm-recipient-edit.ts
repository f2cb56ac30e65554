/**
 * Recipient edit modal submission. Only changed fields are sent. Problems appear inline on the
 * field (`response_action: 'errors'`): the rules of the spec, a name taken by another recipient,
 * and the "in use by pre-embedding" refusal in plain words. On success the modal closes and the
 * card the Edit button was on is replaced (through its response_url) with the saved values.
 *
 * The 3-second rule: the service call races a 2 s budget. Within it, the answer goes in the ack
 * (inline errors work); past it, the modal is switched to "Saving…" and the outcome follows with
 * views.update (an error is then shown on top of the form instead of inline).
 */
import type { App, SlackViewAction } from '@slack/bolt';
import { z } from 'zod';
import type { RecipientPatch } from '../../../api/types.js';
import { type EditResult, editRecipient } from '../../../ops/recipients.js';
import type { AppDeps } from '../../deps.js';
import { modal, section } from '../../render/blocks.js';
import { explainError } from '../../render/errors.js';
import { code, esc } from '../../render/mrkdwn.js';
import { WM_VIEWS } from '../../render/wm/common.js';
import { RECIPIENT_EDIT_BLOCK, recipientCardMessage } from '../../render/wm/recipients.js';
import { modalMeta, replaceViaResponseUrl, viewContext } from '../support.js';

const metaSchema = z.object({
  w: z.string(),
  s: z.string(),
  r: z.number().int().positive(),
  u: z.string().optional(),
});

/** How long the submission waits for the service before answering with "Saving…". */
export const EDIT_ACK_BUDGET_MS = 2000;

function fieldErrors(r: Extract<EditResult, { ok: false }>): Record<string, string> {
  if (r.reason === 'validation') {
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(r.fieldErrors)) {
      const block = k === 'description' ? RECIPIENT_EDIT_BLOCK.description : RECIPIENT_EDIT_BLOCK.name;
      out[block] = v.slice(0, 150);
    }
    return Object.keys(out).length ? out : { [RECIPIENT_EDIT_BLOCK.name]: r.message.slice(0, 150) };
  }
  return { [RECIPIENT_EDIT_BLOCK.name]: r.message.slice(0, 150) };
}

export function register(app: App, deps: AppDeps): void {
  app.view<SlackViewAction>(WM_VIEWS.recipientEdit, async ({ ack, body, view, client, context }) => {
    const ctx = viewContext(deps, { body, client, context });
    const meta = await modalMeta(
      ctx,
      ack,
      metaSchema,
      view.private_metadata,
      RECIPIENT_EDIT_BLOCK.name,
      'This form is out of date. Close it and press Edit again.',
    );
    if (!meta) return;
    const values = view.state.values;
    const name = (values[RECIPIENT_EDIT_BLOCK.name]?.value?.value ?? '').trim();
    const description = (values[RECIPIENT_EDIT_BLOCK.description]?.value?.value ?? '').trim();

    let site: string;
    let wm: ReturnType<Awaited<ReturnType<typeof ctx.clients>>['watermarking']>;
    let current: { name: string; description: string };
    try {
      const c = await ctx.clients();
      site = c.site(meta.s);
      wm = c.watermarking();
      // Compare with the initial values shown (from the view blocks' initial_value).
      const init = (id: string) => {
        const b = (view.blocks as Array<{ block_id?: string; element?: { initial_value?: string } }>).find(
          (x) => x.block_id === id,
        );
        return b?.element?.initial_value ?? '';
      };
      current = {
        name: init(RECIPIENT_EDIT_BLOCK.name),
        description: init(RECIPIENT_EDIT_BLOCK.description),
      };
    } catch (e) {
      const ex = explainError(e, { refId: ctx.refId });
      await ack({
        response_action: 'errors',
        errors: { [RECIPIENT_EDIT_BLOCK.name]: ex.why.replace(/[`*]/g, '').slice(0, 150) },
      });
      return;
    }
    const patch: RecipientPatch = {};
    if (name !== current.name) patch.name = name;
    if (description !== current.description) patch.description = description;
    if (patch.name === undefined && patch.description === undefined) {
      await ack({
        response_action: 'errors',
        errors: {
          [RECIPIENT_EDIT_BLOCK.name]: 'Nothing changed. Change the name or the description, or Cancel.',
        },
      });
      return;
    }

    const detail = `recipient ${meta.r} on site ${site}: ${[
      patch.name !== undefined ? `name "${current.name}" -> "${patch.name}"` : '',
      patch.description !== undefined ? 'description changed' : '',
    ]
      .filter(Boolean)
      .join(', ')}`;
    const pending = editRecipient(wm, site, meta.r, patch).then(
      (r) => ({ kind: 'done' as const, r }),
      (err: unknown) => ({ kind: 'error' as const, err }),
    );
    const raced = await Promise.race([
      pending,
      new Promise<{ kind: 'slow' }>((resolve) =>
        setTimeout(() => resolve({ kind: 'slow' }), EDIT_ACK_BUDGET_MS).unref(),
      ),
    ]);

    const finish = async (outcome: Awaited<typeof pending>, acked: boolean) => {
      if (outcome.kind === 'done' && outcome.r.ok) {
        if (!acked) await ack();
        await ctx.audit({ action: 'recipient.edit', detail, result: 'ok', siteId: site });
        try {
          const [fresh, tz] = await Promise.all([wm.getRecipient(site, meta.r), ctx.timeZone()]);
          const card = recipientCardMessage({
            recipient: fresh,
            workspace: ctx.workspace,
            siteId: site,
            timeZone: tz,
            notice: `:white_check_mark: Saved by <@${ctx.userId}>.`,
            meta: { siteId: site, userId: ctx.userId, atMs: deps.now(), refId: ctx.refId, timeZone: tz },
          });
          const replaced = meta.u ? await replaceViaResponseUrl(deps, meta.u, card) : false;
          if (!replaced) await ctx.respond(card);
          if (acked) {
            await client.views.update({
              view_id: view.id,
              view: modal(WM_VIEWS.recipientEdit, 'Edit recipient', [section(':white_check_mark: Saved.')], {
                close: 'Close',
              }) as never,
            });
          }
        } catch (err) {
          ctx.logger.warn({ err, refId: ctx.refId }, 'saved, but could not refresh the recipient card');
        }
        return;
      }
      if (outcome.kind === 'done' && !outcome.r.ok) {
        const r = outcome.r;
        await ctx.audit({
          action: 'recipient.edit',
          detail: `${detail}: refused (${r.reason})`,
          result: 'error',
          siteId: site,
        });
        if (!acked) {
          await ack({ response_action: 'errors', errors: fieldErrors(r) });
          return;
        }
        await client.views.update({
          view_id: view.id,
          view: modal(WM_VIEWS.recipientEdit, 'Edit recipient', [section(`:warning: ${esc(r.message)}`)], {
            close: 'Close',
          }) as never,
        });
        return;
      }
      const err = outcome.kind === 'error' ? outcome.err : undefined;
      const ex = explainError(err, { refId: ctx.refId });
      if (ex.unexpected) ctx.logger.error({ err, refId: ctx.refId }, 'recipient edit failed');
      await ctx.audit({
        action: 'recipient.edit',
        detail: `${detail}: failed`,
        result: 'error',
        siteId: site,
      });
      const why = `Nothing was saved. ${ex.why.replace(/[`*]/g, '')} ${ex.next.replace(/[`*]/g, '')}`;
      if (!acked) {
        await ack({ response_action: 'errors', errors: { [RECIPIENT_EDIT_BLOCK.name]: why.slice(0, 150) } });
        return;
      }
      await client.views.update({
        view_id: view.id,
        view: modal(
          WM_VIEWS.recipientEdit,
          'Edit recipient',
          [section(`:warning: ${esc(why)}`), section(`Reference ${code(ctx.refId)}`)],
          { close: 'Close' },
        ) as never,
      });
    };

    if (raced.kind !== 'slow') {
      await finish(raced, false);
      return;
    }
    await ack({
      response_action: 'update',
      view: modal(WM_VIEWS.recipientEdit, 'Edit recipient', [
        section(':hourglass_flowing_sand: Saving…'),
      ]) as never,
    });
    await finish(await pending, true);
  });
}
