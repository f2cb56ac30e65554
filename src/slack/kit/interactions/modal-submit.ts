/**
 * A modal submission, run: acked exactly once (inline errors, the pending view, or empty), the
 * metadata read and its workspace checked, the form's own checks, the role (guests barred before
 * the checks, the admin gate after them), then the feature's `submit`, whose outcome
 * ./submit-outcome.ts shows. The steps are described with the declarations in ./registry.ts.
 */
import { commandsTotal } from '../../../metrics.js';
import { StoreUnavailableError } from '../../../store/errors.js';
import type { AppDeps } from '../../deps.js';
import { LIMITS } from '../blocks/blocks.js';
import { neutralise, truncate } from '../blocks/mrkdwn.js';
import type { CommandRegistry } from '../commands/registry.js';
import { adminGateForView, barredAtSubmit } from '../context/roles/admission.js';
import { viewContext } from '../context/support.js';
import { keepFormOpen, STORE_DOWN_INLINE } from './form-errors.js';
import {
  type AnyBody,
  type CheckResult,
  type ModalInteraction,
  read,
  roleOf,
  sameWorkspace,
  tagOf,
} from './registry.js';
import { showFailure, showSubmitOutcome } from './submit-outcome.js';

// biome-ignore lint/suspicious/noExplicitAny: Bolt's view ack is a union of AckFn types
type ViewAck = (r?: any) => Promise<void>;

export async function runModal(
  deps: AppDeps,
  spec: ModalInteraction,
  registry: CommandRegistry,
  args: AnyBody,
): Promise<void> {
  const { body, view, client } = args;
  let acked = false;
  const ack: ViewAck = async (r?: unknown) => {
    if (acked) return;
    acked = true;
    await args.ack(r);
  };
  const ctx = viewContext(deps, { body, client, context: args.context }, spec.command);
  let outcome = 'ok';
  const staleAnswer = () =>
    'view' in spec.stale
      ? ack({
          response_action: 'update',
          view: typeof spec.stale.view === 'function' ? spec.stale.view(view) : spec.stale.view,
        })
      : ack({ response_action: 'errors', errors: { [spec.stale.block]: spec.stale.text } });
  // Guests (GUEST_ACCESS=none) submit nothing: refused before the form's checks when known.
  const barred = barredAtSubmit(ctx, { what: `submit ${spec.name}`, action: spec.name });
  // The modal shows a "Saving…" view (the gate's or the ack's) while `submit` runs.
  let pendingShown = false;
  const scene = () => ({ ctx, client, view, pendingShown, failure: spec.failure });
  try {
    if (!(await barred.before(ack))) {
      outcome = 'refused';
      return;
    }
    const m = read(spec.meta, view?.private_metadata);
    if (m === undefined || !sameWorkspace(spec, ctx, m)) {
      outcome = 'stale';
      if (m !== undefined)
        ctx.logger.warn(
          { valueWorkspace: tagOf(spec, m), view: spec.name },
          'form from another workspace refused',
        );
      await staleAnswer();
      return;
    }
    const checked: CheckResult<unknown> = spec.check
      ? await spec.check(ctx, m, view, registry)
      : { ok: undefined };
    if ('stale' in checked) {
      outcome = 'stale';
      await staleAnswer();
      return;
    }
    if ('errors' in checked) {
      outcome = 'invalid';
      // Slack refuses an error over its limit, or with half of a surrogate pair (a typed value
      // quoted after a cut): cut and neutralised here, so no form has to remember it.
      const errors = Object.fromEntries(
        Object.entries(checked.errors).flatMap(([k, v]) =>
          v ? [[k, truncate(neutralise(v), LIMITS.inlineError)]] : [],
        ),
      );
      await ack({ response_action: 'errors', errors });
      await checked.after?.();
      return;
    }
    if ('answer' in checked) {
      await ack(checked.answer === 'close' ? undefined : { response_action: 'update', view: checked.answer });
      return;
    }
    const d = checked.ok;
    let gated = false;
    if (roleOf(spec, m) === 'admin') {
      // registerInteractions refuses an admin modal without a gate.
      const g = spec.gate!(m, d);
      const gate = await adminGateForView(ctx, ack, {
        viewId: view.id,
        blockId: g.block,
        what: g.what,
        action: g.action,
        pending: g.pending,
      });
      if (!gate.ok) {
        outcome = 'refused';
        return;
      }
      gated = gate.acked;
    }
    let shown = gated;
    if (!acked) {
      const v = spec.ackView?.(m, d);
      shown = v !== undefined;
      await ack(v ? { response_action: 'update', view: v } : undefined);
    }
    if (!gated && !(await barred.after(shown ? view.id : undefined))) {
      outcome = 'refused';
      return;
    }
    pendingShown = shown;
    const result = await spec.submit(ctx, m, d, {
      view,
      body,
      context: args.context,
      client,
      gated,
      registry,
    });
    outcome = await showSubmitOutcome(scene(), result);
  } catch (e) {
    outcome = 'error';
    // The store down before the ack: the form stays open with what the user typed and the reason
    // under its first field (closing it would lose the values; they submit again later).
    const keep =
      !acked && e instanceof StoreUnavailableError
        ? keepFormOpen(view as Parameters<typeof keepFormOpen>[0], STORE_DOWN_INLINE)
        : undefined;
    if (keep) {
      ctx.logger.warn({ refId: ctx.refId, view: spec.name }, 'form kept open: the store is unavailable');
      await ack(keep).catch(() => undefined);
      return;
    }
    // Never leave Slack waiting: an error before the ack closes the modal, then the user is told.
    if (!acked) await ack().catch(() => undefined);
    // A submit that threw: as `{ again }` (the form again while "Saving…" shows, else a reply).
    await showFailure(scene(), { error: e });
  } finally {
    commandsTotal.inc({ command: spec.metric ?? `modal:${spec.name}`, outcome });
  }
}
