/**
 * What a modal submission ended in, shown (`SubmitOutcome`, ./registry.ts): the view in the modal
 * (a view Slack will not take goes to the user as a message), the form again after a failure (a
 * reply when Slack will not take it), or a reply and the modal's closing line. The one place these
 * steps are written, so that no form can forget one.
 */
import type { ViewOutput } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import { type ModalView, modal as modalView } from '../blocks/blocks.js';
import type { CommandContext } from '../context/context.js';
import { errorBlocks, renderError } from '../context/errors.js';
import { errorOptions, logError, replyFromModal, showOutcome } from '../context/support.js';
import { formAgain } from './form-again.js';
import type { FormFailure, SubmitOutcome, SubmitReply } from './registry.js';

/** Whether the modal still shows a view to replace (the pending view), and the "Couldn't …" line. */
export interface OutcomeScene {
  ctx: CommandContext;
  client: WebClient;
  /** The submitted view (its id is the modal's). */
  view: ViewOutput;
  /** A pending view ("Saving…") is on screen: the modal can show the outcome. */
  pendingShown: boolean;
  /** The declaration's `failure`. */
  failure: string;
}

/** Show `outcome`; 'error' when it is a failure (the metric's outcome), else 'ok'. */
export async function showSubmitOutcome(s: OutcomeScene, outcome: SubmitOutcome): Promise<'ok' | 'error'> {
  if (!outcome) return 'ok';
  if ('view' in outcome) {
    await showOutcome(s.ctx, s.client, s.view.id, outcome.view);
    if (outcome.reply) await reply(s.ctx, outcome.reply);
    return 'ok';
  }
  if ('again' in outcome) {
    await showFailure(s, outcome.again);
    return 'error';
  }
  if (outcome.reply) await reply(s.ctx, outcome.reply);
  if (outcome.closing && s.pendingShown) await close(s, outcome.closing);
  return 'ok';
}

/**
 * A failed submission: logged, then the form again when the modal shows a pending view (left on
 * "Saving…" the user would wait for nothing), else (or when Slack will not take it) a reply.
 */
export async function showFailure(s: OutcomeScene, f: FormFailure): Promise<void> {
  const { ctx } = s;
  const what = f.what ?? s.failure;
  const opts = await errorOptions(ctx);
  logError(ctx, what, f.error, opts);
  if (s.pendingShown) {
    const failure = () => errorBlocks(what, f.error, opts);
    const title = typeof s.view.title?.text === 'string' ? s.view.title.text : 'Error';
    const next =
      f.view ?? formAgain(s.view, failure()) ?? modalView(`${s.view.callback_id}_failed`, title, failure());
    const shown = await s.client.views.update({ view_id: s.view.id, view: next }).then(
      () => true,
      (x: unknown) => {
        ctx.logger.warn({ err: x, refId: ctx.refId }, 'could not show the failed form again');
        return false;
      },
    );
    if (shown) return;
  }
  try {
    await ctx.respond(renderError(what, f.error, opts), { share: false });
  } catch (e) {
    ctx.logger.error({ err: e, refId: ctx.refId }, 'could not deliver the error reply');
  }
}

async function reply(ctx: CommandContext, r: SubmitReply): Promise<void> {
  await replyFromModal(ctx, r.responseUrl, r.message, r.replace ?? false, r.inChannel).catch((err: unknown) =>
    ctx.logger.error({ err, refId: ctx.refId }, 'could not deliver the reply of the form'),
  );
}

/** The modal's last line (it shows a pending view); a failure only logged (the reply said it). */
async function close(s: OutcomeScene, v: ModalView): Promise<void> {
  await s.client.views
    .update({ view_id: s.view.id, view: v })
    .catch((err: unknown) => s.ctx.logger.warn({ err, refId: s.ctx.refId }, 'could not end the form'));
}
