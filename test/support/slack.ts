/** Helpers for the `/drm` end-to-end tests (signed requests through the harness). */
import type { FakeCall } from '../../dev/fakeslack/index.js';
import type { TestBot } from '../harness/index.js';

export function lastSeq(bot: TestBot): number {
  return bot.fake.lastSeq();
}

export function textOf(c: FakeCall | { args?: unknown } | undefined): string {
  return JSON.stringify(c?.args ?? {});
}

/** The next response_url post after `after`. */
export function nextResponse(bot: TestBot, after: number, timeoutMs = 8000): Promise<FakeCall> {
  return bot.fake.waitFor((c) => c.method === 'response_url' && c.seq > after, timeoutMs);
}

/** Run a /drm command and wait for its reply through response_url. */
export async function drm(
  bot: TestBot,
  text: string,
  user: string,
): Promise<{ call: FakeCall; text: string; blocks: Block[] }> {
  const seq = lastSeq(bot);
  const r = await bot.command(text, { command: '/drm', user });
  if (r.status !== 200) throw new Error(`command answered HTTP ${r.status}`);
  const call = await nextResponse(bot, seq);
  return { call, text: textOf(call), blocks: (call.args.blocks ?? []) as Block[] };
}

// biome-ignore lint/suspicious/noExplicitAny: Block Kit JSON as sent
export type Block = any;

/** Every button of a message's blocks. */
export function buttons(
  blocks: Block[],
): Array<{ action_id: string; value?: string; text: { text: string }; style?: string; confirm?: Block }> {
  const out = [];
  for (const b of blocks) {
    if (b.type === 'actions') out.push(...b.elements);
    if (b.type === 'section' && b.accessory?.type === 'button') out.push(b.accessory);
  }
  return out;
}

export function button(
  blocks: Block[],
  match: (b: { action_id: string; text: { text: string } }) => boolean,
) {
  const b = buttons(blocks).find(match);
  if (!b) throw new Error(`no such button in ${JSON.stringify(buttons(blocks).map((x) => x.action_id))}`);
  return b;
}

/** Click a button of an (ephemeral) message and wait for the response_url reply. */
export async function click(
  bot: TestBot,
  b: { action_id: string; value?: string },
  user: string,
): Promise<{ call: FakeCall; text: string; blocks: Block[] }> {
  const seq = lastSeq(bot);
  await bot.action({ actionId: b.action_id, ...(b.value !== undefined ? { value: b.value } : {}), user });
  const call = await nextResponse(bot, seq);
  return { call, text: textOf(call), blocks: (call.args.blocks ?? []) as Block[] };
}

/** plain_text_input state value. */
export function textValue(value: string) {
  return { value: { type: 'plain_text_input', value } };
}

/** static_select state value. */
export function selectValue(value: string) {
  return {
    value: { type: 'static_select', selected_option: { value, text: { type: 'plain_text', text: value } } },
  };
}
