/**
 * Submission of the "fill in what is missing" form (../commands/missing-args.ts): each value
 * is checked with its argument's own rule (inline error on the field, saying what to fix), the
 * view closes at once, then the command runs exactly as if it had been typed complete: the same
 * registry dispatch (role check, handler, audit), answering through the slash command's
 * response_url (ephemeral, where the command was run), or the user's DM when it has expired.
 */
import type { RespondFn } from '@slack/bolt';
import type { AppDeps } from '../../deps.js';
import type { Message } from '../blocks/blocks.js';
import { modal, section } from '../blocks/blocks.js';
import {
  escapeForCommandText,
  MISSING_ARGS_CALLBACK,
  type MissingArgsMeta,
  missingArgBlock,
  missingArgsMetaSchema,
} from '../commands/missing-args.js';
import { type ArgSpec, decodeSlackText, isChannelId, quoteValue, tokenize } from '../commands/parse.js';
import type { CommandRegistry } from '../commands/registry.js';
import { createContext } from '../context/context.js';
import { payloadIdentity, sendViaResponseUrl } from '../context/support.js';
import { modal as declareModal, type Interaction } from './registry.js';

type StateValue = {
  value?: string | null;
  selected_users?: string[] | null;
  selected_channel?: string | null;
};

/** One value checked with its rule: the command-text form of it, or what to fix. */
export function argText(
  name: string,
  spec: ArgSpec,
  v: StateValue | undefined,
): { text: string } | { error: string } {
  if (spec.picker === 'users') {
    const users = (v?.selected_users ?? []).filter((u) => /^[UW][A-Z0-9]{2,}$/.test(u));
    if (users.length === 0) return { error: 'Pick at least one person.' };
    return { text: users.map((u) => `<@${u}>`).join(' ') };
  }
  if (spec.picker === 'channel') {
    const ch = v?.selected_channel ?? '';
    if (!isChannelId(ch)) return { error: 'Pick a channel.' };
    return { text: `<#${ch}>` };
  }
  const raw = (v?.value ?? '').trim();
  if (!raw) return { error: `Enter ${spec.hint || name}.` };
  const parts = spec.kind === 'rest' ? raw.split(/\s+/) : [raw];
  for (const p of parts) {
    const r = spec.schema.safeParse(p);
    if (!r.success) {
      const issue = r.error.issues[0];
      const why =
        issue && !/^Invalid input/i.test(issue.message) ? issue.message : `must be ${spec.hint || name}`;
      return { error: `"${p.slice(0, 40)}" is not valid: it ${why}.`.slice(0, 150) };
    }
  }
  const quoted = parts.map((p) => quoteValue(escapeForCommandText(p)));
  return { text: spec.kind === 'option' ? `${name}:${quoted[0]}` : quoted.join(' ') };
}

/** Answers through the command's response_url; falls back to a DM when it no longer works. */
function respondVia(
  deps: AppDeps,
  url: string | undefined,
  fallback: (m: Message) => Promise<void>,
): RespondFn {
  return (async (payload: unknown) => {
    const msg = (typeof payload === 'string' ? { text: payload } : payload) as Message;
    const sent = url ? await sendViaResponseUrl(deps, url, msg, false).catch(() => false) : false;
    if (!sent) await fallback({ text: msg.text, ...(msg.blocks ? { blocks: msg.blocks } : {}) });
  }) as unknown as RespondFn;
}

type Resolved = Extract<ReturnType<CommandRegistry['resolve']>, { kind: 'entry' }>;

const outOfDate = modal(
  MISSING_ARGS_CALLBACK,
  'Out of date',
  [section('This form is out of date. Close it and run the command again.')],
  { close: 'Close' },
);

function metaOf(raw: string | undefined): MissingArgsMeta | undefined {
  const r = missingArgsMetaSchema.safeParse(JSON.parse(raw || '{}'));
  return r.success ? r.data : undefined;
}

/** The "fill in what is missing" form: a kit interaction, registered with every app. */
export const missingArgsForm: Interaction = declareModal<
  MissingArgsMeta,
  { meta: MissingArgsMeta; added: string[] }
>({
  name: 'missing-args',
  callbackId: MISSING_ARGS_CALLBACK,
  meta: metaOf,
  tag: (m) => m.w,
  stale: { view: outOfDate },
  failure: "Couldn't run the command",
  check(_ctx, meta, view, registry) {
    let resolved: ReturnType<CommandRegistry['resolve']> | undefined;
    try {
      resolved = registry.resolve(meta.c, tokenize(decodeSlackText(meta.t)));
    } catch {
      resolved = undefined; // tampered text (the command's own text always tokenizes)
    }
    if (resolved?.kind !== 'entry') return { stale: true };
    const entry = (resolved as Resolved).entry;
    const errors: Record<string, string> = {};
    const added: string[] = [];
    for (const name of meta.m) {
      const spec = entry.args[name];
      const block = missingArgBlock(name);
      if (!spec) continue;
      const r = argText(name, spec, view.state.values[block]?.value as StateValue | undefined);
      if ('error' in r) errors[block] = r.error;
      else added.push(r.text);
    }
    if (Object.keys(errors).length > 0) return { errors };
    return { ok: { meta, added } };
  },
  // The command runs exactly as if typed complete: the registry's dispatch does the role check.
  async submit(ctx, _meta, { meta: m, added }, { body, context, client, registry }) {
    const trigger = (body as { trigger_id?: string }).trigger_id;
    const run = createContext({
      deps: ctx.deps,
      client,
      ...payloadIdentity(body, context),
      command: m.c,
      ...(m.ch ? { channelId: m.ch } : {}),
      ...(trigger ? { triggerId: trigger } : {}),
      respond: respondVia(ctx.deps, m.ru, async (msg) => {
        await client.chat.postMessage({ channel: ctx.userId, ...msg });
      }),
    });
    await registry.dispatch(run, `${m.t} ${added.join(' ')}`);
    // The command answers for itself.
    return undefined;
  },
});
