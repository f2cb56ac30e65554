/**
 * Recipient edit modal submission. Only changed fields are sent.
 *
 * The 3-second rule: nothing slow runs before Slack is answered. The local checks
 * (nothing changed, the name and description rules of the spec) answer inline
 * (`response_action: 'errors'`; the refusal is audited after the ack). Otherwise the modal is
 * switched to "Saving…" at once, then the service is called, the change audited, and the outcome
 * shown with views.update: "Saved" (and the card the Edit button was on is replaced through its
 * response_url), or the form again with the service's refusal on top (a name taken by another
 * recipient, a refusal of the service's rules, a failure such as the service being down), or a
 * closing line (in use by pre-embedding, gone). The values first shown travel in the metadata (`n`, `d`), so a form shown again
 * keeps what the user typed and still sends only what changed.
 */
import { z } from 'zod';
import type { Recipient, RecipientPatch } from '../../../api/types.js';
import { checkRecipientDescription, checkRecipientName } from '../../../api/validate.js';
import { type EditResult, editRecipient } from '../../../ops/recipients.js';
import { context, type ModalView, modal, section } from '../../kit/blocks/blocks.js';
import { cardMetaOf } from '../../kit/blocks/cards.js';
import { code, esc } from '../../kit/blocks/mrkdwn.js';
import { explainError, outcomeUnknown } from '../../kit/context/errors.js';
import { modal as declareModal } from '../../kit/interactions/registry.js';
import { WM_VIEWS } from '../../shared/wm/values.js';
import { RECIPIENT_EDIT_BLOCK, recipientCardMessage, recipientEditView } from './render.js';

const metaSchema = z.object({
  w: z.string(),
  s: z.string(),
  r: z.number().int().positive(),
  u: z.string().optional(),
  /** The card `u` replaces is read by everyone in this channel (ButtonArgs.inChannel). */
  c: z.string().max(30).optional(),
  /** The name and description first shown (set when the form is shown again after a refusal). */
  n: z.string().max(200).optional(),
  d: z.string().max(200).optional(),
});

type Meta = z.infer<typeof metaSchema>;

/** A one-line modal (Saving…, Saved, a failure) with only Close. */
function lineView(text: string): ModalView {
  return modal(WM_VIEWS.recipientEdit, 'Edit recipient', [section(text)], { close: 'Close' });
}

/**
 * The form again after a refusal: `problem` (mrkdwn, escaped) on top, the user's values in the
 * fields, and the values first shown kept in the metadata (the next save compares with those).
 */
function formAgain(
  meta: Meta,
  site: string,
  first: { name: string; description: string },
  typed: { name: string; description: string },
  problem: string,
): ModalView {
  const r: Recipient = {
    dwmId: meta.r,
    name: typed.name,
    description: typed.description,
    regTime: { raw: '', epochMs: null },
    updateTime: { raw: '', epochMs: null },
  };
  const m = JSON.stringify({ ...meta, n: first.name, d: first.description });
  const v = recipientEditView(r, site, m);
  return { ...v, blocks: [section(`:warning: ${problem}`), ...v.blocks] };
}

interface Data {
  name: string;
  description: string;
  first: { name: string; description: string };
  patch: RecipientPatch;
  detail: string;
}

export const recipientEditModal = declareModal<Meta, Data>({
  name: 'recipients.edit',
  callbackId: WM_VIEWS.recipientEdit,
  meta: metaSchema,
  stale: {
    block: RECIPIENT_EDIT_BLOCK.name,
    text: 'This form is out of date. Close it and press Edit again.',
  },
  ackView: () => lineView(':hourglass_flowing_sand: Saving…'),
  failure: "Couldn't save the recipient",
  check(ctx, meta, view) {
    const values = view.state.values;
    const name = (values[RECIPIENT_EDIT_BLOCK.name]?.value?.value ?? '').trim();
    const description = (values[RECIPIENT_EDIT_BLOCK.description]?.value?.value ?? '').trim();
    // The values first shown: from the metadata when the form was shown again, else the
    // fields' initial values (the view's blocks).
    const init = (id: string) => {
      const blk = (view.blocks as Array<{ block_id?: string; element?: { initial_value?: string } }>).find(
        (x) => x.block_id === id,
      );
      return blk?.element?.initial_value ?? '';
    };
    const first = {
      name: meta.n ?? init(RECIPIENT_EDIT_BLOCK.name),
      description: meta.d ?? init(RECIPIENT_EDIT_BLOCK.description),
    };
    const patch: RecipientPatch = {};
    if (name !== first.name) patch.name = name;
    if (description !== first.description) patch.description = description;
    if (patch.name === undefined && patch.description === undefined) {
      return {
        errors: {
          [RECIPIENT_EDIT_BLOCK.name]: 'Nothing changed. Change the name or the description, or Cancel.',
        },
      };
    }
    const detail = `recipient ${meta.r} on site ${meta.s}: ${[
      patch.name !== undefined ? `name "${first.name}" -> "${patch.name}"` : '',
      patch.description !== undefined ? 'description changed' : '',
    ]
      .filter(Boolean)
      .join(', ')}`;

    // Local checks first: answered inline, audited only after the ack.
    const local: Record<string, string> = {};
    const nameProblem = patch.name === undefined ? null : checkRecipientName(patch.name);
    if (nameProblem) local[RECIPIENT_EDIT_BLOCK.name] = nameProblem;
    const descProblem = patch.description === undefined ? null : checkRecipientDescription(patch.description);
    if (descProblem) local[RECIPIENT_EDIT_BLOCK.description] = descProblem;
    if (Object.keys(local).length > 0) {
      return {
        errors: local,
        after: () =>
          ctx
            .audit({
              action: 'recipient.edit',
              detail: `${detail}: refused (validation)`,
              result: 'error',
              siteId: meta.s,
            })
            .catch((err: unknown) => ctx.logger.warn({ err }, 'audit append failed')),
      };
    }
    return { ok: { name, description, first, patch, detail } };
  },
  async submit(ctx, meta, { name, description, first, patch, detail }) {
    let site = meta.s;
    let outcome: EditResult;
    let wm: ReturnType<Awaited<ReturnType<typeof ctx.clients>>['watermarking']>;
    try {
      const c = await ctx.clients();
      site = c.site(meta.s);
      wm = c.watermarking();
      outcome = await editRecipient(wm, site, meta.r, patch);
    } catch (err) {
      const ex = explainError(err, { refId: ctx.refId });
      await ctx
        .audit({ action: 'recipient.edit', detail: `${detail}: failed`, result: 'error', siteId: site })
        .catch((ae: unknown) => ctx.logger.warn({ err: ae }, 'audit append failed'));
      // The form again with what the user typed (an outage must not cost them their edit), the
      // failure on top. ex.why and ex.next are mrkdwn, already escaped: not escaped again.
      const again = formAgain(
        meta,
        site,
        first,
        { name, description },
        `${outcomeUnknown(err) ? '' : 'Nothing was saved. '}${ex.why} ${ex.next}`,
      );
      // A reference id only for an unexpected error (the style guide; kit/context/errors.ts errorBlocks).
      if (ex.unexpected) again.blocks = [...again.blocks, context(`Reference ${code(ctx.refId)}`)];
      return { again: { error: err, view: again } };
    }

    if (!outcome.ok) {
      await ctx
        .audit({
          action: 'recipient.edit',
          detail: `${detail}: refused (${outcome.reason})`,
          result: 'error',
          siteId: site,
        })
        .catch((ae: unknown) => ctx.logger.warn({ err: ae }, 'audit append failed'));
      const problem = esc(outcome.message);
      // A name taken, or the service's own rules: the form again, to fix it. In use or gone: no
      // point in editing again now.
      return {
        view:
          outcome.reason === 'duplicate' || outcome.reason === 'validation'
            ? formAgain(meta, site, first, { name, description }, problem)
            : lineView(`:warning: ${problem}`),
      };
    }

    await ctx
      .audit({ action: 'recipient.edit', detail, result: 'ok', siteId: site })
      .catch((ae: unknown) => ctx.logger.warn({ err: ae }, 'audit append failed'));
    const saved = lineView(':white_check_mark: Saved.');
    try {
      const [fresh, tz] = await Promise.all([wm.getRecipient(site, meta.r), ctx.timeZone()]);
      const card = recipientCardMessage({
        recipient: fresh,
        workspace: ctx.workspace,
        siteId: site,
        timeZone: tz,
        notice: `:white_check_mark: Saved by <@${ctx.userId}>.`,
        meta: cardMetaOf(ctx, tz, site),
      });
      // "Saved", then the card the Edit button was on, replaced.
      return {
        view: saved,
        reply: { message: card, responseUrl: meta.u || undefined, replace: true, inChannel: meta.c },
      };
    } catch (err) {
      ctx.logger.warn({ err, refId: ctx.refId }, 'saved, but could not refresh the recipient card');
      return { view: saved };
    }
  },
});
