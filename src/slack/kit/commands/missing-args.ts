/**
 * "Fill in what is missing": when a slash command is run without a required argument, the
 * registry opens this modal (one input per missing argument: a text field, or a users / channel
 * picker) instead of answering with an error. Submitting it runs the command as if it had been
 * typed complete (../interactions/missing-args-form.ts). Pure: data in, view out.
 */
import { z } from 'zod';
import { type Block, context, type ModalView, modal, plain, section, textInput } from '../blocks/blocks.js';
import { code, truncate } from '../blocks/mrkdwn.js';
import type { ArgSpec } from './parse.js';

export const MISSING_ARGS_CALLBACK = 'cmd_missing_args';

/** Block id of the input of argument `name`. */
export const missingArgBlock = (name: string) => `arg_${name}`;

/** What the submission needs to run the command again (private_metadata, at most 3000 chars). */
export const missingArgsMetaSchema = z.object({
  /** workspace */
  w: z.string(),
  /** slash command */
  c: z.enum(['/dwm', '/drm']),
  /** the command text as Slack sent it (still escaped) */
  t: z.string().max(2800),
  /** names of the missing arguments, in order */
  m: z.array(z.string()).min(1).max(10),
  /** channel the command was run in */
  ch: z.string().optional(),
  /** the command's response_url (answers go where the command was run) */
  ru: z.string().optional(),
});
export type MissingArgsMeta = z.infer<typeof missingArgsMetaSchema>;

export interface MissingArgsViewInput {
  /** `/dwm job` */
  name: string;
  /** The words already given (decoded), shown as context; may be empty. */
  given: string;
  missing: Array<{ name: string; spec: ArgSpec }>;
  meta: MissingArgsMeta;
}

function sentence(s: string): string {
  const t = s.trim().replace(/\.$/, '');
  return t ? t[0]!.toUpperCase() + t.slice(1) : t;
}

/** The input block of one missing argument. */
export function missingArgInput(name: string, spec: ArgSpec): Block {
  const label = sentence(spec.description || spec.hint || name) || name;
  if (spec.picker === 'users') {
    return {
      type: 'input',
      block_id: missingArgBlock(name),
      label: plain(label, 2000),
      element: { type: 'multi_users_select', action_id: 'value', max_selected_items: 25 },
    };
  }
  if (spec.picker === 'channel') {
    return {
      type: 'input',
      block_id: missingArgBlock(name),
      label: plain(label, 2000),
      element: { type: 'channels_select', action_id: 'value' },
    };
  }
  return textInput(missingArgBlock(name), label, {
    placeholder: spec.hint || name,
    maxLength: 3000,
    ...(spec.kind === 'rest' ? { hint: 'Several values: separate them with spaces.' } : {}),
  });
}

/** The modal, or undefined when its metadata would not fit (the caller answers with usage then). */
export function missingArgsView(input: MissingArgsViewInput): ModalView | undefined {
  const meta = JSON.stringify(input.meta);
  if (meta.length > 3000) return undefined;
  const blocks: Block[] = [
    section(`${code(input.name)} needs ${input.missing.length > 1 ? 'these' : 'this'} to run:`),
    ...input.missing.map((m) => missingArgInput(m.name, m.spec)),
  ];
  if (input.given.trim()) blocks.push(context(`Already given: ${code(truncate(input.given.trim(), 300))}`));
  return modal(MISSING_ARGS_CALLBACK, input.name, blocks, { submit: 'Run', privateMetadata: meta });
}

/** Slack-escape a value typed in the modal, so decoding the command text gives it back as is. */
export function escapeForCommandText(v: string): string {
  return v.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
