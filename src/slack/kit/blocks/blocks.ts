/**
 * Typed Block Kit builders and limit enforcement. Builders never throw on long input: they cut
 * text to Slack's limits (with `…`), so a message never fails with `invalid_blocks`.
 * Slack's Block Kit limits are named in ONE place, `LIMITS` below (Slack docs: 50 blocks per
 * message, 100 per view, section text 3000, fields 10 of 2000, header 150, button text 75, ids 255,
 * 25 elements per actions block, 10 per context, modal title and buttons 24, confirm dialog title
 * 100 / text 300 / buttons 30, inline errors 150, 100 options per select or option group).
 */
import type {
  Button,
  ConfirmationDialog,
  InputBlock,
  KnownBlock,
  MrkdwnElement,
  PlainTextElement,
  PlainTextOption,
  SectionBlock,
  HomeView as SlackHomeView,
  ModalView as SlackModalView,
} from '@slack/types';
import { neutralise, truncate, truncateMrkdwn } from './mrkdwn.js';

export const LIMITS = {
  messageBlocks: 50,
  viewBlocks: 100,
  sectionText: 3000,
  fields: 10,
  fieldText: 2000,
  header: 150,
  buttonText: 75,
  id: 255,
  actionsElements: 25,
  contextElements: 10,
  modalTitle: 24,
  modalButton: 24,
  buttonValue: 2000,
  optionText: 75,
  inputLabel: 2000,
  privateMetadata: 3000,
  messageText: 40_000,
  confirmTitle: 100,
  confirmText: 300,
  confirmButton: 30,
  placeholder: 150,
  selectOptions: 100,
  /** A `response_action: 'errors'` message (per block). */
  inlineError: 150,
} as const;

// The Block Kit shapes are Slack's own (@slack/types, the types @slack/web-api and Bolt check
// payloads against); the builders below only narrow them where this app relies on a field.
export type PlainText = PlainTextElement;
export type Mrkdwn = MrkdwnElement;
export type TextObject = PlainTextElement | MrkdwnElement;
/** A confirmation dialog: `text` is plain_text only (Slack's Block Kit reference). */
export type ConfirmDialog = ConfirmationDialog & { title: PlainTextElement; text: PlainTextElement };
export type ButtonElement = Button;
export type OptionObject = PlainTextOption;
/** Elements of input blocks. */
export type InputElement = InputBlock['element'];
export type Block = KnownBlock;
export type SectionBlockT = SectionBlock;
/** A modal this app builds: always with a callback id and known blocks. */
export type ModalView = SlackModalView & { callback_id: string; blocks: KnownBlock[] };
/** The App Home tab. */
export type HomeView = SlackHomeView & { blocks: KnownBlock[] };

/**
 * plain_text, cut at `max`. Control, bidi and zero-width characters are neutralised here (as
 * `esc` does for mrkdwn), so no caller can forget it: headers, titles, labels, options and
 * buttons often carry upstream strings (site names, recipient names, e-mails).
 */
export const plain = (text: string, max: number = LIMITS.sectionText): PlainText => ({
  type: 'plain_text',
  text: truncate(neutralise(text), max) || ' ',
  emoji: true,
});
/** mrkdwn text, cut at `max` without splitting an entity, a `<…>` token or a code span. */
export const md = (text: string, max: number = LIMITS.sectionText): Mrkdwn => ({
  type: 'mrkdwn',
  text: truncateMrkdwn(text, max) || ' ',
});

const id = (s: string) => truncate(s, LIMITS.id);

export function header(text: string): Block {
  return { type: 'header', text: plain(text, LIMITS.header) };
}

/** A section of mrkdwn text (cut at 3000) with optional fields (at most 10, each cut at 2000). */
export function section(
  text: string | undefined,
  opts: { fields?: string[]; accessory?: ButtonElement; blockId?: string } = {},
): Block {
  const b: SectionBlock = { type: 'section' };
  if (text !== undefined) b.text = md(text);
  if (opts.fields?.length) b.fields = opts.fields.slice(0, LIMITS.fields).map((f) => md(f, LIMITS.fieldText));
  if (!b.text && !b.fields) b.text = md(' ');
  if (opts.accessory) b.accessory = opts.accessory;
  if (opts.blockId) b.block_id = id(opts.blockId);
  return b;
}

/** Section fields from label/value pairs: "*Label*\nvalue". More than 10 are dropped. */
export function fields(pairs: Array<[label: string, value: string]>): string[] {
  return pairs.slice(0, LIMITS.fields).map(([l, v]) => `*${l}*\n${v}`);
}

export function context(...texts: string[]): Block {
  const parts = texts.filter((t) => t.length > 0);
  return {
    type: 'context',
    elements: (parts.length ? parts : [' '])
      .slice(0, LIMITS.contextElements)
      .map((t) => md(t, LIMITS.sectionText)),
  };
}

export function divider(): Block {
  return { type: 'divider' };
}

/** A confirmation dialog. `text` is plain text (not mrkdwn): pass strings unescaped. */
export function confirmDialog(
  title: string,
  text: string,
  confirm = 'Yes',
  deny = 'Cancel',
  style?: 'primary' | 'danger',
): ConfirmDialog {
  const d: ConfirmDialog = {
    title: plain(title, LIMITS.confirmTitle),
    text: plain(text, LIMITS.confirmText),
    confirm: plain(confirm, LIMITS.confirmButton),
    deny: plain(deny, LIMITS.confirmButton),
  };
  if (style) d.style = style;
  return d;
}

export function button(
  text: string,
  actionId: string,
  opts: { value?: string; style?: 'primary' | 'danger'; confirm?: ConfirmDialog; url?: string } = {},
): ButtonElement {
  const b: ButtonElement = { type: 'button', text: plain(text, LIMITS.buttonText), action_id: id(actionId) };
  if (opts.value !== undefined) b.value = opts.value.slice(0, LIMITS.buttonValue);
  if (opts.style) b.style = opts.style;
  if (opts.confirm) b.confirm = opts.confirm;
  if (opts.url) b.url = opts.url;
  return b;
}

/** Actions block; more than 25 elements are dropped (put paging in the message instead). */
export function actions(elements: ButtonElement[], blockId?: string): Block {
  const b: Block = { type: 'actions', elements: elements.slice(0, LIMITS.actionsElements) };
  if (blockId) b.block_id = id(blockId);
  return b;
}

export function textInput(
  blockId: string,
  label: string,
  opts: {
    actionId?: string;
    initial?: string;
    placeholder?: string;
    hint?: string;
    multiline?: boolean;
    optional?: boolean;
    maxLength?: number;
  } = {},
): Block {
  const element: InputElement = { type: 'plain_text_input', action_id: opts.actionId ?? 'value' };
  if (opts.initial) element.initial_value = cutUnits(opts.initial, opts.maxLength ?? 3000);
  if (opts.placeholder) element.placeholder = plain(opts.placeholder, LIMITS.placeholder);
  if (opts.multiline) element.multiline = true;
  if (opts.maxLength) element.max_length = opts.maxLength;
  return input(blockId, label, element, opts);
}

/**
 * At most `max` UTF-16 units without splitting a surrogate pair (an emoji cut in half makes Slack
 * refuse the whole view) and without `…`: the value of a field is sent back as typed.
 */
function cutUnits(text: string, max: number): string {
  if (text.length <= max) return text;
  const c = text.charCodeAt(max - 1);
  return text.slice(0, c >= 0xd800 && c <= 0xdbff ? max - 1 : max);
}

/** An input block around `element`: id, label and hint cut to Slack's limits. */
function input(
  blockId: string,
  label: string,
  element: InputElement,
  opts: { hint?: string; optional?: boolean },
): Block {
  const b: InputBlock = {
    type: 'input',
    block_id: id(blockId),
    label: plain(label, LIMITS.inputLabel),
    element,
  };
  if (opts.hint) b.hint = plain(opts.hint, LIMITS.inputLabel);
  if (opts.optional) b.optional = true;
  return b;
}

/** A file input taking one file of `filetypes` (extensions without the dot). */
export function fileInput(
  blockId: string,
  label: string,
  filetypes: string[],
  opts: { actionId?: string; hint?: string; optional?: boolean } = {},
): Block {
  const element: InputElement = {
    type: 'file_input',
    action_id: opts.actionId ?? 'value',
    filetypes,
    max_files: 1,
  };
  return input(blockId, label, element, opts);
}

export function staticSelect(
  blockId: string,
  label: string,
  options: Array<{ text: string; value: string }>,
  opts: { actionId?: string; initial?: string; optional?: boolean } = {},
): Block {
  const opt = options
    .slice(0, LIMITS.selectOptions * LIMITS.selectOptions)
    .map((o) => ({ text: plain(o.text, LIMITS.optionText), value: o.value }));
  const element: InputElement = { type: 'static_select', action_id: opts.actionId ?? 'value' };
  if (opt.length <= LIMITS.selectOptions) element.options = opt;
  else {
    // Over Slack's 100 options: groups of 100 (up to 100 groups), each labelled "first – last",
    // so that no option (a configured site) drops out of the list.
    element.option_groups = [];
    for (let i = 0; i < opt.length; i += LIMITS.selectOptions) {
      const group = opt.slice(i, i + LIMITS.selectOptions);
      const label = `${group[0]!.text.text} – ${group.at(-1)!.text.text}`;
      element.option_groups.push({ label: plain(label, LIMITS.optionText), options: group });
    }
  }
  const initial = opt.find((o) => o.value === opts.initial);
  if (initial) element.initial_option = initial;
  return input(blockId, label, element, opts);
}

/** A modal; the title is cut to 24 characters, blocks fitted to 100. */
export function modal(
  callbackId: string,
  title: string,
  blocks: Block[],
  opts: { submit?: string; close?: string; privateMetadata?: string; externalId?: string } = {},
): ModalView {
  const v: ModalView = {
    type: 'modal',
    callback_id: id(callbackId),
    title: plain(title, LIMITS.modalTitle),
    blocks: fitView(blocks),
  };
  if (opts.submit) v.submit = plain(opts.submit, LIMITS.modalButton);
  v.close = plain(opts.close ?? 'Cancel', LIMITS.modalButton);
  if (opts.privateMetadata !== undefined) {
    if (opts.privateMetadata.length > LIMITS.privateMetadata) {
      throw new Error('private_metadata is over 3000 characters: store state in the store and pass its id');
    }
    v.private_metadata = opts.privateMetadata;
  }
  if (opts.externalId) v.external_id = id(opts.externalId);
  return v;
}

function fitBlocks(blocks: Block[], max: number, more?: (hidden: number) => string): Block[] {
  if (blocks.length <= max) return blocks;
  const kept = blocks.slice(0, max - 1);
  const hidden = blocks.length - kept.length;
  return [...kept, context(more ? more(hidden) : `…and ${hidden} more not shown.`)];
}

/**
 * At most 50 blocks: when over, keeps the first 49 and ends with an "and N more" context line
 * (`more(hidden)` says how to see the rest, e.g. "use Export CSV").
 */
export function fitMessage(blocks: Block[], more?: (hidden: number) => string): Block[] {
  return fitBlocks(blocks, LIMITS.messageBlocks, more);
}

/** At most 100 blocks (modals, App Home). */
export function fitView(blocks: Block[], more?: (hidden: number) => string): Block[] {
  return fitBlocks(blocks, LIMITS.viewBlocks, more);
}

/** A message payload: notification text (required by Slack for accessibility) plus blocks. */
export interface Message {
  text: string;
  blocks?: Block[];
}

export function message(text: string, blocks?: Block[], more?: (hidden: number) => string): Message {
  const m: Message = { text: truncateMrkdwn(text, LIMITS.messageText) };
  if (blocks) m.blocks = fitMessage(blocks, more);
  return m;
}
