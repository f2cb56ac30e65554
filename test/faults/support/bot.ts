/**
 * Small helpers over the e2e harness (test/harness) for the faults suite: waiting for the bot's
 * replies on the fake Slack, walking the registry, collecting interactive elements.
 */
import type { FakeCall } from '../../../dev/fakeslack/index.js';
import { registry } from '../../../src/slack/features/index.js';
import type { RegisteredEntry, SlashCommand } from '../../../src/slack/kit/commands/registry.js';
import type { TestBot } from '../../harness/index.js';

/** Web API calls that answer a user (a reply of some kind). */
export const REPLY_METHODS = new Set([
  'response_url',
  'chat.postEphemeral',
  'chat.postMessage',
  'views.open',
  'views.push',
  'views.update',
]);

export function callsAfter(bot: TestBot, seq: number): FakeCall[] {
  return bot.fake.calls().filter((c) => c.seq > seq);
}

/**
 * Wait for the first reply after `seq`, then let the handler settle for `settleMs` (it may send
 * a follow-up); returns every call after `seq`. Throws when nothing answers in `timeoutMs`.
 */
export async function waitReplies(
  bot: TestBot,
  seq: number,
  opts: { timeoutMs?: number; settleMs?: number } = {},
): Promise<FakeCall[]> {
  await bot.fake.waitFor((c) => c.seq > seq && REPLY_METHODS.has(c.method), opts.timeoutMs ?? 8000);
  await new Promise((r) => setTimeout(r, opts.settleMs ?? 200));
  return callsAfter(bot, seq);
}

/** Everything the bot said in these calls, as one searchable string. */
export function said(calls: FakeCall[]): string {
  return calls.map((c) => JSON.stringify(c.args)).join('\n');
}

export interface RegistryCase {
  command: SlashCommand;
  entry: RegisteredEntry;
  /** Text after the slash command. */
  text: string;
  name: string;
}

/** Every (command, entry) pair of the process registry, with a runnable text (first example or path). */
export function registryCases(filter: (e: RegisteredEntry) => boolean = () => true): RegistryCase[] {
  const out: RegistryCase[] = [];
  for (const entry of registry.entries()) {
    if (!filter(entry)) continue;
    for (const command of entry.commands) {
      const text = entry.examples?.[0] ?? entry.path.join(' ');
      out.push({ command, entry, text, name: [command, ...entry.path].join(' ') });
    }
  }
  return out;
}

/** Interactive elements (action_id + value) in blocks the bot sent. */
export function interactiveElements(
  calls: FakeCall[],
): Array<{ actionId: string; value?: string; blockId?: string }> {
  const out = new Map<string, { actionId: string; value?: string; blockId?: string }>();
  const visit = (node: unknown, blockId?: string) => {
    if (Array.isArray(node)) {
      for (const n of node) visit(n, blockId);
      return;
    }
    if (!node || typeof node !== 'object') return;
    const o = node as Record<string, unknown>;
    const bid = typeof o.block_id === 'string' ? o.block_id : blockId;
    if (typeof o.action_id === 'string' && (o.type === 'button' || o.type === 'overflow')) {
      const v = typeof o.value === 'string' ? o.value : undefined;
      out.set(`${o.action_id}|${v ?? ''}`, {
        actionId: o.action_id,
        ...(v !== undefined ? { value: v } : {}),
        ...(bid ? { blockId: bid } : {}),
      });
    }
    for (const v of Object.values(o)) if (typeof v === 'object') visit(v, bid);
  };
  for (const c of calls) visit(c.args);
  return [...out.values()];
}

/** Total emulator requests, and the non-GET (writing) ones. */
export function emulatorCounts(bot: TestBot): { total: number; writes: number } {
  const counts = bot.emulator?.requestCounts() ?? {};
  let total = 0;
  let writes = 0;
  for (const [k, n] of Object.entries(counts)) {
    total += n;
    if (!k.startsWith('GET ')) writes += n;
  }
  return { total, writes };
}
