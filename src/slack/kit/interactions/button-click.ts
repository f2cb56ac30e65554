/**
 * A button click, run: ack at once, the value read and its workspace checked, the role (of the
 * button, or of the command it stands for: `opens`), the idempotency claim of a destructive button
 * (`once`), then the feature's `run`; anything thrown answered with the error model. The steps are
 * described with the declarations in ./registry.ts.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { RespondFn } from '@slack/bolt';
import { commandsTotal } from '../../../metrics.js';
import type { AppDeps } from '../../deps.js';
import type { Message } from '../blocks/blocks.js';
import type { CommandRegistry } from '../commands/registry.js';
import { guardChannelReplies } from '../context/channels/replies.js';
import { admit } from '../context/roles/admission.js';
import { personalDataGroups } from '../context/roles/standing.js';
import { actionContext, respondError, viewContext } from '../context/support.js';
import type { CommandTarget, HomeActions } from './home-actions.js';
import { type AnyBody, type ButtonInteraction, read, roleOf, sameWorkspace, tagOf } from './registry.js';

const STALE_BUTTON: Message = {
  text: 'This button is out of date. Run the command again to get a fresh one.',
};
const OTHER_WORKSPACE: Message = {
  text: 'This button belongs to another workspace, so it cannot act here. Run the command again in this workspace.',
};

/** The store key of a click target: workspace + message (or view) + action + value. */
export function clickKey(workspace: string, body: AnyBody, actionId: string, value: string | undefined) {
  const where = body?.container?.message_ts ?? body?.message?.ts ?? body?.container?.view_id ?? '';
  const h = createHash('sha256').update(`${workspace}\u0000${where}\u0000${actionId}\u0000${value ?? ''}`);
  return `click-${h.digest('hex').slice(0, 40)}`;
}

/**
 * The channel whose members all read the message a button is on: a message container that is not
 * ephemeral (posted, or shared with `share`). Undefined for ephemeral messages, modals, Home.
 */
export function channelMessageOf(body: AnyBody): string | undefined {
  const c = body?.container;
  if (c?.type !== 'message' || c.is_ephemeral !== false) return undefined;
  const ch = c.channel_id ?? body?.channel?.id;
  return typeof ch === 'string' && ch ? ch : undefined;
}

/** The registry entry of the command a button stands for (`opens`), if declared and registered. */
function targetOf(spec: ButtonInteraction, registry: CommandRegistry, homeActions: HomeActions) {
  const declared = spec.opens ? homeActions.get(spec.opens) : undefined;
  const entry = declared ? registry.find(declared.command, declared.path) : undefined;
  return declared && entry ? ({ command: declared.command, entry } satisfies CommandTarget) : undefined;
}

export async function runButton(
  deps: AppDeps,
  spec: ButtonInteraction,
  registry: CommandRegistry,
  homeActions: HomeActions,
  args: AnyBody,
): Promise<void> {
  await args.ack();
  const body = args.body;
  const action = args.action ?? body?.actions?.[0];
  const raw: string | undefined = typeof action?.value === 'string' ? action.value : undefined;
  const a = { body, client: args.client, context: args.context };
  const ctx =
    (spec.surface ?? 'message') === 'message'
      ? actionContext(deps, { ...a, respond: args.respond as RespondFn }, spec.command)
      : viewContext(deps, a, spec.command);
  // A button on a message everyone in the channel reads: its replies to the channel follow the
  // rule of channels shared with another organisation (../context/channels/replies.ts), for every button.
  const inChannel = channelMessageOf(body);
  if (inChannel && (spec.surface ?? 'message') === 'message')
    guardChannelReplies(ctx, inChannel, `${spec.name} reply`);
  let outcome = 'ok';
  let claim: { key: string; holder: string } | undefined;
  try {
    const v = read(spec.value, raw);
    if (v === undefined) {
      outcome = 'stale';
      await ctx.respond(spec.stale ?? STALE_BUTTON, { share: false });
      return;
    }
    if (!sameWorkspace(spec, ctx, v)) {
      outcome = 'other_workspace';
      ctx.logger.warn(
        { valueWorkspace: tagOf(spec, v), action: spec.name },
        'button value from another workspace refused',
      );
      await ctx.respond(OTHER_WORKSPACE, { share: false });
      return;
    }
    const target = targetOf(spec, registry, homeActions);
    // The command's context: replies and refusals name the command the button stands for.
    if (target) ctx.command = target.command;
    // Every click is checked (guests with GUEST_ACCESS=none are refused any button); `admin`
    // buttons refuse members too. A button that opens a modal waits only briefly (trigger id).
    const role = target ? target.entry.role : roleOf(spec, v);
    const r = (role === 'admin' ? spec.refusal?.(v, target) : undefined) ?? {
      what: `use ${spec.name}`,
      action: spec.name,
    };
    const personal = target ? target.entry.personalData : spec.personalData;
    const admitted = await admit(ctx, {
      role,
      ...(personal ? { groups: personalDataGroups(deps.config) } : {}),
      modal: Boolean(target ? target.entry.opensModal : spec.opensModal),
      what: r.what,
      action: r.action,
      ...(r.title ? { title: r.title } : {}),
    });
    if (!admitted) {
      outcome = 'refused';
      return;
    }
    if (spec.once) {
      const key = clickKey(ctx.workspace, body, String(action?.action_id ?? spec.name), raw);
      const holder = `click-${randomBytes(8).toString('hex')}`;
      if (!(await deps.store.leases.acquire(key, holder, spec.once.ttlMs ?? 60_000))) {
        outcome = 'duplicate';
        await ctx.respond({ text: spec.once.done }, { share: false });
        return;
      }
      claim = { key, holder };
    }
    await spec.run(ctx, v, {
      body,
      client: args.client,
      registry,
      ...(target ? { target } : {}),
      ...(body?.response_url ? { responseUrl: body.response_url as string } : {}),
      ...(body?.view?.id ? { viewId: body.view.id as string } : {}),
      ...(inChannel ? { inChannel } : {}),
    });
  } catch (e) {
    outcome = 'error';
    if (claim) {
      const c = claim;
      await deps.store.leases.release(c.key, c.holder).catch(() => undefined);
    }
    const v = read(spec.value, raw);
    const what =
      typeof spec.failure === 'function'
        ? v === undefined
          ? 'That did not work'
          : spec.failure(v)
        : spec.failure;
    await respondError(ctx, what, e);
  } finally {
    commandsTotal.inc({ command: spec.metric ?? `button:${spec.name}`, outcome });
  }
}
