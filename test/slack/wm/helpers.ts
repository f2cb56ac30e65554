/** Small helpers for the watermarking end-to-end tests (what reached the fake Slack). */
import type { FakeCall, FakeView } from '../../../dev/fakeslack/index.js';
import type { TestBot } from '../../harness/index.js';

export function lastSeq(bot: TestBot): number {
  return bot.fake.lastSeq();
}

export function nextCall(bot: TestBot, method: string, after: number, timeoutMs = 10_000): Promise<FakeCall> {
  return bot.fake.waitFor((c) => c.method === method && c.seq > after && c.ok, timeoutMs);
}

export type Obj = Record<string, unknown>;

/** Every button (action_id, value, text) in a list of blocks. */
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

export function blocksText(blocks: unknown): string {
  return JSON.stringify(blocks ?? []);
}

/** A response_url reply's blocks. */
export function replyBlocks(c: FakeCall): unknown[] {
  return (c.args.blocks as unknown[]) ?? [];
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
