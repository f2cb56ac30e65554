/**
 * Helpers for the Slack end-to-end tests (signed requests through the harness, what reached the
 * fake Slack): the last call's sequence number, waiting for the next reply, a reply's blocks, text
 * and buttons, clicking, and form state values. One definition each; the tests of every feature,
 * the kit and the guarantees import them from here.
 */
import type { FakeCall, FakeView } from '../../dev/fakeslack/index.js';
import type { TestBot } from '../harness/index.js';

// biome-ignore lint/suspicious/noExplicitAny: Block Kit JSON as sent
export type Block = any;
export type Obj = Record<string, unknown>;

/** Sequence number of the last call the fake Slack recorded: wait for what comes after it. */
export function lastSeq(bot: TestBot): number {
  return bot.fake.lastSeq();
}

/** A call's arguments as JSON text (to search for words). */
export function textOf(c: FakeCall | { args?: unknown } | undefined): string {
  return JSON.stringify(c?.args ?? {});
}

/** Blocks as JSON text (to search for words). */
export function blocksText(blocks: unknown): string {
  return JSON.stringify(blocks ?? []);
}

/** A response_url reply's blocks. */
export function replyBlocks(c: FakeCall): unknown[] {
  return (c.args.blocks as unknown[]) ?? [];
}

/** The next response_url post after `after`. */
export function nextResponse(bot: TestBot, after: number, timeoutMs = 8000): Promise<FakeCall> {
  return bot.fake.waitFor((c) => c.method === 'response_url' && c.seq > after, timeoutMs);
}

/** Run a slash command (/dwm unless `command` says) and wait for its reply through response_url. */
export async function runCommand(
  bot: TestBot,
  text: string,
  o: { command?: '/dwm' | '/drm'; user?: string; channel?: string } = {},
): Promise<FakeCall> {
  const seq = lastSeq(bot);
  await bot.command(text, o);
  return nextResponse(bot, seq);
}

/** The next response_url reply after `after`, as JSON text (its arguments). */
export async function replyText(bot: TestBot, after: number): Promise<string> {
  return textOf(await nextResponse(bot, after));
}

/** The next successful call of `method` after `after`. */
export function nextCall(bot: TestBot, method: string, after: number, timeoutMs = 10_000): Promise<FakeCall> {
  return bot.fake.waitFor((c) => c.method === method && c.seq > after && c.ok, timeoutMs);
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

/** Every button (action_id, value, text as a string, style) in a list of blocks. */
export function buttons(
  blocks: unknown,
): Array<{ action_id: string; value?: string; text: string; style?: string }> {
  const out: Array<{ action_id: string; value?: string; text: string; style?: string }> = [];
  const visit = (b: Obj) => {
    const els: Obj[] = [];
    if (b.type === 'actions') els.push(...((b.elements as Obj[]) ?? []));
    if (b.accessory) els.push(b.accessory as Obj);
    for (const e of els) {
      if (e.type === 'button') {
        out.push({
          action_id: String(e.action_id),
          ...(typeof e.value === 'string' ? { value: e.value } : {}),
          text: String((e.text as Obj).text),
          ...(typeof e.style === 'string' ? { style: e.style } : {}),
        });
      }
    }
  };
  for (const b of (blocks as Obj[]) ?? []) visit(b);
  return out;
}

/** Every element of the actions blocks and every button accessory, as sent (Block Kit JSON). */
export function actionElements(
  blocks: Block[],
): Array<{ action_id: string; value?: string; text: { text: string }; style?: string; confirm?: Block }> {
  const out = [];
  for (const b of blocks) {
    if (b.type === 'actions') out.push(...b.elements);
    if (b.type === 'section' && b.accessory?.type === 'button') out.push(b.accessory);
  }
  return out;
}

/** The action element `match` picks (throws, naming the ones there are, when none does). */
export function button(
  blocks: Block[],
  match: (b: { action_id: string; text: { text: string } }) => boolean,
) {
  const b = actionElements(blocks).find(match);
  if (!b)
    throw new Error(`no such button in ${JSON.stringify(actionElements(blocks).map((x) => x.action_id))}`);
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

/** The user's modal once `pred` holds (polls the fake Slack's views; throws after `ms`). */
export async function waitForView(bot: TestBot, user: string, pred: (v: FakeView) => boolean, ms = 15_000) {
  const until = Date.now() + ms;
  for (;;) {
    const v = bot.fake.lastView(user, 'modal');
    if (v && pred(v)) return v;
    if (Date.now() > until)
      throw new Error(`view not reached; last: ${JSON.stringify(v?.blocks).slice(0, 400)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
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

/**
 * The setup form's state values with the emulator's demo credentials (site DEMO, no default
 * site); `over` replaces fields by block id.
 */
export function setupFormValues(bot: TestBot, over: Record<string, string> = {}) {
  const emu = bot.emulator!;
  const fields: Record<string, string> = {
    site_ids: 'DEMO',
    default_site: '',
    wm_account_id: emu.demo.watermarking.accountId,
    wm_access_key: emu.demo.watermarking.accessKey,
    wm_base_url: emu.wmBaseUrl,
    svc_account_id: emu.demo.service.accountId,
    svc_account_seq: emu.demo.service.accountSeq,
    svc_secret_key: emu.demo.service.secretKey,
    svc_base_url: emu.serviceBaseUrl,
    ...over,
  };
  return Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, textValue(v)]));
}
