/**
 * Inline errors of a modal form (`{ errors }` from a `modal({ check })`, answered with
 * `response_action: 'errors'`), keyed by the block id of each input. The kit cuts each message to
 * Slack's limit at the ack. Pure.
 */
import type { StepSentence } from '../../../next-step.js';
import { issueText } from '../blocks/next-step.js';

/**
 * Errors from validation issues (`ValidationError.issues`, a parser's issues): each on the block of
 * its field, `fallback` when the field has no input of its own; a block shows its first issue, in
 * the words of `issueText` (an issue that names a step names its command).
 */
export function issueErrors(
  issues: readonly { field: string; message: string; sentence?: StepSentence }[],
  blockOf: Readonly<Record<string, string>>,
  fallback: string,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const i of issues) out[blockOf[i.field] ?? fallback] ??= issueText(i);
  return out;
}

/**
 * The `check` answer of a form read by a parser: its issues as inline errors (`issueErrors`), or,
 * with none, the parsed data.
 */
export function issuesOr<D>(
  issues: readonly { field: string; message: string }[],
  data: D,
  blockOf: Readonly<Record<string, string>>,
  fallback: string,
): { errors: Record<string, string> } | { ok: D } {
  return issues.length ? { errors: issueErrors(issues, blockOf, fallback) } : { ok: data };
}

/** Errors from messages keyed by form field (`undefined`: no error), on each field's block. */
export function fieldErrors<F extends string>(
  errors: Partial<Record<F, string | undefined>>,
  blockOf: Readonly<Record<F, string>>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [field, message] of Object.entries(errors) as [F, string | undefined][]) {
    if (message) out[blockOf[field]] = message;
  }
  return out;
}

/** Under a form's first field when its submission could not run because the store is down. */
export const STORE_DOWN_INLINE =
  "The bot's storage is unavailable right now, so nothing was saved. Submit again in a minute.";

/**
 * The ack that keeps a submitted form open, with what the user typed, and `message` under its
 * first input (Slack shows inline errors only on input blocks); undefined when the view has none.
 */
export function keepFormOpen(
  view: { blocks?: ReadonlyArray<{ type?: string; block_id?: string }> } | undefined,
  message: string,
): { response_action: 'errors'; errors: Record<string, string> } | undefined {
  const block = view?.blocks?.find((b) => b.type === 'input' && typeof b.block_id === 'string')?.block_id;
  return block ? { response_action: 'errors', errors: { [block]: message } } : undefined;
}
