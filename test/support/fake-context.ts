/** A CommandContext for unit tests: records replies, audits and opened views. */

import { createLogger } from '../../src/log.js';
import type { Message, ModalView } from '../../src/slack/kit/blocks/blocks.js';
import type { CommandContext, RespondOptions } from '../../src/slack/kit/context/context.js';
import type { Role, Standing } from '../../src/slack/kit/context/types.js';

export interface FakeContext extends CommandContext {
  replies: Array<{ msg: Message; opts: RespondOptions | undefined; share: boolean }>;
  audits: Array<{ action: string; detail: string; result: string }>;
  views: ModalView[];
}

export function fakeContext(
  opts: { role?: Role; standing?: Standing; command?: '/dwm' | '/drm'; admins?: string } = {},
): FakeContext {
  const ctx = {
    // A config object: the app's per-app state (role-check budget) is keyed by it.
    deps: { config: {} } as never,
    workspace: 'T1',
    userId: 'U1',
    command: opts.command ?? '/dwm',
    refId: 'ref12345',
    logger: createLogger({ level: 'silent' }),
    client: {} as never,
    share: false,
    triggerId: 'trig',
    replies: [],
    audits: [],
    views: [],
    async respond(msg: Message, o?: RespondOptions) {
      ctx.replies.push({ msg, opts: o, share: !o?.secret && (o?.share ?? ctx.share) });
    },
    timeZone: async () => 'UTC',
    role: async () => opts.role ?? (opts.standing === 'admin' ? 'admin' : 'member'),
    standing: async () => opts.standing ?? opts.role ?? 'member',
    admins: async () => opts.admins ?? '<@UADMIN> or a workspace admin',
    clients: async () => {
      throw new Error('no clients in unit tests');
    },
    async audit(e: { action: string; detail: string; result: string }) {
      ctx.audits.push(e);
    },
    async openView(v: ModalView) {
      ctx.views.push(v);
      return 'V1';
    },
  } as FakeContext;
  return ctx;
}

/** All text of a message (fallback + blocks), for assertions. */
export function textOf(m: Message): string {
  return `${m.text}\n${JSON.stringify(m.blocks ?? [])}`;
}
