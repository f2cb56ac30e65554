/**
 * A submitted form shown again after its submission failed past the ack (a service or store call
 * that failed while "Saving…" was on screen): the same form, with what the user had entered as the
 * fields' initial values and the failure on top, so they can submit it again once the cause is
 * gone instead of filling it in from scratch. Pure.
 *
 * The blocks come back from the submission payload (what the bot built, as Slack echoes it); each
 * input's state (`view.state.values[block][action]`) becomes its initial value. Options are taken
 * from the element's own options by value (Slack refuses an initial option that is not one of
 * them). Elements whose state cannot be an initial value (file inputs) are shown empty.
 */
import type { KnownBlock } from '@slack/types';
import { type Block, LIMITS, type ModalView } from '../blocks/blocks.js';

interface Option {
  value?: string;
}
interface StateEntry {
  type?: string;
  value?: string | null;
  selected_option?: Option | null;
  selected_options?: Option[] | null;
  selected_conversation?: string | null;
  selected_conversations?: string[] | null;
  selected_channel?: string | null;
  selected_channels?: string[] | null;
  selected_user?: string | null;
  selected_users?: string[] | null;
  selected_date?: string | null;
  selected_time?: string | null;
  rich_text_value?: unknown;
}

/** The parts of a submitted view this reads (Bolt's ViewOutput has them all). */
export interface SubmittedView {
  callback_id: string;
  title: ModalView['title'];
  submit?: ModalView['submit'] | null;
  close?: ModalView['close'] | null;
  private_metadata?: string;
  blocks?: ReadonlyArray<unknown>;
  state?: { values?: Record<string, Record<string, StateEntry | undefined> | undefined> };
}

/** The block ids of the failure shown on top of a form shown again start with this. */
export const FAILURE_BLOCK = 'form_again_failure';

type Element = Record<string, unknown> & { type?: string; action_id?: string };

const INITIAL_KEYS = [
  'initial_value',
  'initial_option',
  'initial_options',
  'initial_conversation',
  'initial_conversations',
  'initial_channel',
  'initial_channels',
  'initial_user',
  'initial_users',
  'initial_date',
  'initial_time',
] as const;

function optionsOf(el: Element): Option[] {
  const flat = Array.isArray(el.options) ? (el.options as Option[]) : [];
  const groups = Array.isArray(el.option_groups) ? (el.option_groups as Array<{ options?: Option[] }>) : [];
  return [...flat, ...groups.flatMap((g) => g.options ?? [])];
}

/** The element with the state as its initial value (a copy; the initial value it had is dropped). */
function withState(el: Element, s: StateEntry | undefined): Element {
  const out: Element = { ...el };
  for (const k of INITIAL_KEYS) delete out[k];
  if (!s) return out;
  const pick = (v: string | undefined) => optionsOf(el).find((o) => o.value === v);
  const set = (k: string, v: unknown) => {
    if (v === undefined || v === null || v === '' || (Array.isArray(v) && v.length === 0)) return;
    out[k] = v;
  };
  switch (el.type) {
    case 'plain_text_input':
    case 'email_text_input':
    case 'url_text_input':
    case 'number_input':
      set('initial_value', s.value);
      break;
    case 'rich_text_input':
      set('initial_value', s.rich_text_value);
      break;
    case 'static_select':
    case 'radio_buttons':
      set('initial_option', pick(s.selected_option?.value ?? undefined));
      break;
    case 'multi_static_select':
    case 'checkboxes':
      set(
        'initial_options',
        (s.selected_options ?? []).map((o) => pick(o.value)).filter((o): o is Option => o !== undefined),
      );
      break;
    case 'conversations_select':
      set('initial_conversation', s.selected_conversation);
      break;
    case 'multi_conversations_select':
      set('initial_conversations', s.selected_conversations);
      break;
    case 'channels_select':
      set('initial_channel', s.selected_channel);
      break;
    case 'multi_channels_select':
      set('initial_channels', s.selected_channels);
      break;
    case 'users_select':
      set('initial_user', s.selected_user);
      break;
    case 'multi_users_select':
      set('initial_users', s.selected_users);
      break;
    case 'datepicker':
      set('initial_date', s.selected_date);
      break;
    case 'timepicker':
      set('initial_time', s.selected_time);
      break;
    default:
      // file_input and anything newer: shown empty (no initial value can carry it).
      break;
  }
  return out;
}

/**
 * The form `view` again with its entries kept and the `failure` blocks (errorBlocks: what failed,
 * what to do) on top; undefined when the payload has no input block to keep or no room for the
 * failure (show a plain result then).
 */
export function formAgain(view: SubmittedView, failure: readonly Block[]): ModalView | undefined {
  const values = view.state?.values ?? {};
  let inputs = 0;
  const blocks = (view.blocks ?? [])
    // A form shown again and failing again: one failure on top, the latest.
    .filter((b) => !String((b as { block_id?: unknown }).block_id ?? '').startsWith(FAILURE_BLOCK))
    .map((b) => {
      const block = b as Record<string, unknown> & { type?: string; block_id?: string; element?: Element };
      if (block.type !== 'input' || !block.element || typeof block.block_id !== 'string') return block;
      inputs++;
      const action = block.element.action_id;
      const state = typeof action === 'string' ? values[block.block_id]?.[action] : undefined;
      return { ...block, element: withState(block.element, state) };
    });
  const top = failure.map((b, i) => ({ ...b, block_id: `${FAILURE_BLOCK}_${i}` }));
  // No input to keep, or no room for the failure on top (a form near Slack's 100 blocks).
  if (inputs === 0 || blocks.length + top.length > LIMITS.viewBlocks) return undefined;
  const v: ModalView = {
    type: 'modal',
    callback_id: view.callback_id,
    title: view.title,
    blocks: [...top, ...blocks] as KnownBlock[],
  };
  if (view.submit) v.submit = view.submit;
  if (view.close) v.close = view.close;
  if (view.private_metadata !== undefined) v.private_metadata = view.private_metadata;
  return v;
}
