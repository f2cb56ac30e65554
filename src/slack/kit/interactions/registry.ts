/**
 * Buttons and modals, declared: the sibling of the command registry (./registry.ts). A feature
 * declares each interaction once (`button({...})`, `modal({...})`) and exports the list; Bolt
 * listeners are registered here only (`registerInteractions`), never by a feature. Every
 * declaration gets, in this order:
 *
 * 1. Ack timing. A button is acked at once (Slack's 3 s), before anything else. A modal
 *    submission is acked exactly once: with inline errors, with the pending view, or empty.
 * 2. Value / private_metadata read with its zod schema (or parser); unreadable (tampered, from an
 *    older version) is answered "out of date", never guessed at.
 * 3. Workspace tag: the value or metadata names the workspace it was made in (`w`); a click or
 *    submission from another workspace (a Slack Connect channel, a forged value) is refused, and
 *    the request's own workspace (from the signed payload) is the only one ever acted on.
 *    Declarations whose value names nothing of a workspace say why (`untagged`).
 * 4. Role: every click and submission is checked on the server (guests are refused everything
 *    with GUEST_ACCESS=none, see ./roles.ts); `role: 'admin'` is default deny: buttons with
 *    `admit` (waiting only briefly when they open a modal: the trigger id lasts 3 s);
 *    submissions with `adminGateForView` / `barredAtSubmit` (no Slack call before the ack).
 *    Refusals are audited.
 *    A button that stands for another feature's command (`opens`: a Home entry point, see
 *    ./home-actions.ts) is checked against THAT command's role and modal-opening, from the registry.
 * 5. Idempotency (`once`): a destructive button claims "team + message + action + value" in the
 *    store (a lease, shared by replicas) before its upstream write; a second click while the
 *    claim holds is told it is already done. A failed run releases the claim (a retry may act).
 *    If the store cannot be reached the click is refused with the error model (no claim, no write).
 * 6. Errors: anything the handler throws is answered with the what / why / next model
 *    (./errors.ts) and logged with the reference id; never thrown to Bolt.
 * 7. Metrics: drmchatops_commands_total{command="button:<name>" | "modal:<name>", outcome}.
 * 8. Home: `changesHome: true` makes the Home tab refresh after the request (see ./features.ts).
 */
import { createHash, randomBytes } from 'node:crypto';
import type { App, RespondFn, ViewOutput } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { z } from 'zod';
import { commandsTotal } from '../../../metrics.js';
import { StoreUnavailableError } from '../../../store/errors.js';
import type { AppDeps } from '../../deps.js';
import { LIMITS, type Message, type ModalView, modal as modalView } from '../blocks/blocks.js';
import { neutralise, truncate } from '../blocks/mrkdwn.js';
import { decodeValue } from '../blocks/values.js';
import { guardChannelReplies } from '../channels/replies.js';
import type { CommandRegistry } from '../commands/registry.js';
import type { CommandContext, SlashCommand } from '../context/context.js';
import { errorBlocks } from '../context/errors.js';
import { actionContext, errorOptions, logError, respondError, viewContext } from '../context/support.js';
import type { Role } from '../context/types.js';
import { adminGateForView, admit, barredAtSubmit } from '../roles/admission.js';
import { personalDataGroups } from '../roles/standing.js';
import { formAgain } from './form-again.js';
import { keepFormOpen, STORE_DOWN_INLINE } from './form-errors.js';
import type { CommandTarget, HomeActions, HomeEntryPoint } from './home-actions.js';

// biome-ignore lint/suspicious/noExplicitAny: Bolt's payload bodies differ per kind; read defensively
type AnyBody = any;
// biome-ignore lint/suspicious/noExplicitAny: Bolt's view ack is a union of AckFn types
type ViewAck = (r?: any) => Promise<void>;

/** A value reader: a zod schema for JSON values, or a parser (undefined = not one of ours). */
export type Reader<T> = z.ZodType<T> | ((raw: string | undefined) => T | undefined);

function read<T>(reader: Reader<T>, raw: string | undefined): T | undefined {
  if (typeof reader === 'function') {
    try {
      return reader(raw);
    } catch {
      return undefined;
    }
  }
  return decodeValue(reader, raw);
}

/** What every interaction shares. */
interface Common<T> {
  /** Names the interaction in metrics, logs and audit actions ("plan.cancel"). */
  name: string;
  /** The feature's slash command (help hints and error replies name it); default `/dwm`. */
  command?: SlashCommand;
  /** The workspace the value names; default its `w` field. */
  tag?: (v: T) => string | undefined;
  /**
   * The value names no workspace data, so there is nothing to tag: why that is safe (e.g. "looked
   * up in the clicking user's workspace only"). A value without a tag is then accepted.
   */
  untagged?: string;
  /** `admin`: default deny, re-checked at click/submit time. A function decides per value. */
  role?: Role | ((v: T) => Role);
  /**
   * The button shows or exports end viewers' personal data: with `role: 'admin'`, members of the
   * PERSONAL_DATA_USERGROUP user groups pass too (as the commands marked `personalData`).
   */
  personalData?: boolean;
  /** The request changes something the Home tab shows (a refresh follows it). */
  changesHome?: boolean;
  /** Metric label (default "button:<name>" / "modal:<name>"). */
  metric?: string;
}

/** What a button handler gets besides the context and the value. */
export interface ButtonArgs {
  body: AnyBody;
  client: WebClient;
  /** The action's response_url (messages only; none in modals and the Home tab). */
  responseUrl?: string;
  /** The modal the button is in (buttons inside modals). */
  viewId?: string;
  /**
   * The message the button is on is read by everyone in this channel (posted, or shared there;
   * not ephemeral). A form opened from it that later replaces it keeps this with the response_url
   * (`replyFromModal`): the channel's sharing rule is checked then.
   */
  inChannel?: string;
  registry: CommandRegistry;
  /** The command the button stands for (`opens`), when a feature declares it. */
  target?: CommandTarget;
}

export interface ButtonSpec<V> extends Common<V> {
  /** action_id, or a pattern for a family (paging buttons carry their direction in the id). */
  actionId: string | RegExp;
  /**
   * Where the button is: on a message (default: replies through its response_url), or on a modal
   * or the Home tab (no channel: replies go to the user's DM).
   */
  surface?: 'message' | 'modal' | 'home';
  value: Reader<V>;
  /** Reply to an unreadable value (default: "This button is out of date…"). */
  stale?: Message;
  /** Admin refusal: what the user tried ("cancel a plan request") and the audit action. */
  refusal?: (v: V, target?: CommandTarget) => { what: string; action: string; title?: string };
  /**
   * The handler opens a modal: the user check (guests, admin role) waits only briefly, then a
   * "Checking…" modal holds the trigger id (see `admit` in ./roles.ts).
   */
  opensModal?: boolean;
  /**
   * The button stands for the command a feature declares for this Home entry point
   * (`Feature.homeActions`). The kit finds it in the registry and runs the command's role check
   * (`role` and `opensModal` come from the command entry, not from this declaration) in the
   * command's context; `run` gets it as `target` (undefined when no feature declares one).
   */
  opens?: HomeEntryPoint;
  /**
   * Destructive: one run per click target (see the file header). The claim lasts `ttlMs` (default
   * 60 s: double clicks and retried deliveries fall inside it; a deliberate repeat later, e.g.
   * activate after deactivate on the same card, acts again).
   */
  once?: { ttlMs?: number; done: string };
  /** "Couldn't …" line of the error reply. */
  failure: string | ((v: V) => string);
  run(ctx: CommandContext, v: V, a: ButtonArgs): Promise<void>;
}

/** The form's own checks: inline errors, stop (after an answer), or go on with data. */
export type CheckResult<D> =
  | { errors: Record<string, string | undefined>; after?: () => Promise<void> }
  | { answer: 'close' | ModalView }
  | { stale: true }
  | { ok: D };

export interface SubmitArgs {
  view: ViewOutput;
  body: AnyBody;
  /** Bolt's context (who, which installation). */
  context: AnyBody;
  client: WebClient;
  /** The submission was acked with the admin gate's pending view (views.update `view.id` to end). */
  gated: boolean;
  registry: CommandRegistry;
}

export interface ModalSpec<M, D> extends Common<M> {
  callbackId: string;
  meta: Reader<M>;
  /** The answer to metadata that is unreadable or from another workspace. */
  stale: { block: string; text: string } | { view: ModalView | ((view: ViewOutput) => ModalView) };
  /** Quick checks of the form, before the ack (no slow calls). */
  check?: (
    ctx: CommandContext,
    m: M,
    view: ViewOutput,
    registry: CommandRegistry,
  ) => Promise<CheckResult<D>> | CheckResult<D>;
  /** Admin gate of the submission (role 'admin'): where a refusal shows and the pending view. */
  gate?: (m: M, d: D) => { block: string; what: string; action: string; pending: ModalView };
  /** The view shown at the ack (`response_action: 'update'`); undefined closes the modal. */
  ackView?: (m: M, d: D) => ModalView | undefined;
  /** "Couldn't …" line when submit throws (it normally shows its own outcome in the view). */
  failure: string;
  submit(ctx: CommandContext, m: M, d: D, a: SubmitArgs): Promise<void>;
}

export type ButtonInteraction = ButtonSpec<unknown> & { kind: 'button' };
export type ModalInteraction = ModalSpec<unknown, unknown> & { kind: 'modal' };
export type Interaction = ButtonInteraction | ModalInteraction;

/** Declare a button. */
export function button<V>(spec: ButtonSpec<V>): Interaction {
  return { ...(spec as unknown as ButtonSpec<unknown>), kind: 'button' };
}

/** Declare a modal submission. */
export function modal<M, D>(spec: ModalSpec<M, D>): Interaction {
  return { ...(spec as unknown as ModalSpec<unknown, unknown>), kind: 'modal' };
}

/** Does this declaration handle the action id / callback id? */
export function handles(i: Interaction, id: string): boolean {
  if (i.kind === 'modal') return i.callbackId === id;
  return typeof i.actionId === 'string' ? i.actionId === id : i.actionId.test(id);
}

const STALE_BUTTON: Message = {
  text: 'This button is out of date. Run the command again to get a fresh one.',
};
const OTHER_WORKSPACE: Message = {
  text: 'This button belongs to another workspace, so it cannot act here. Run the command again in this workspace.',
};

function tagOf<T>(spec: Common<T>, v: T): string | undefined {
  if (spec.tag) return spec.tag(v);
  const w = (v as { w?: unknown } | undefined)?.w;
  return typeof w === 'string' ? w : undefined;
}

/** The value's workspace is the request's (or the declaration says the value names none). */
function sameWorkspace<T>(spec: Common<T>, ctx: CommandContext, v: T): boolean {
  const tag = tagOf(spec, v);
  if (tag === undefined) return spec.untagged !== undefined;
  return tag === ctx.workspace;
}

function roleOf<T>(spec: Common<T>, v: T): Role {
  return typeof spec.role === 'function' ? spec.role(v) : (spec.role ?? 'member');
}

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

async function runButton(
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
  // rule of channels shared with another organisation (./channel-replies.ts), for every button.
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

async function runModal(
  deps: AppDeps,
  spec: ModalInteraction,
  registry: CommandRegistry,
  args: AnyBody,
): Promise<void> {
  const { body, view, client } = args;
  let acked = false;
  const ack: ViewAck = async (r?: unknown) => {
    if (acked) return;
    acked = true;
    await args.ack(r);
  };
  const ctx = viewContext(deps, { body, client, context: args.context }, spec.command);
  let outcome = 'ok';
  const staleAnswer = () =>
    'view' in spec.stale
      ? ack({
          response_action: 'update',
          view: typeof spec.stale.view === 'function' ? spec.stale.view(view) : spec.stale.view,
        })
      : ack({ response_action: 'errors', errors: { [spec.stale.block]: spec.stale.text } });
  // Guests (GUEST_ACCESS=none) submit nothing: refused before the form's checks when known.
  const barred = barredAtSubmit(ctx, { what: `submit ${spec.name}`, action: spec.name });
  // The modal shows a "Saving…" view (the gate's or the ack's) while `submit` runs.
  let pendingShown = false;
  try {
    if (!(await barred.before(ack))) {
      outcome = 'refused';
      return;
    }
    const m = read(spec.meta, view?.private_metadata);
    if (m === undefined || !sameWorkspace(spec, ctx, m)) {
      outcome = 'stale';
      if (m !== undefined)
        ctx.logger.warn(
          { valueWorkspace: tagOf(spec, m), view: spec.name },
          'form from another workspace refused',
        );
      await staleAnswer();
      return;
    }
    const checked: CheckResult<unknown> = spec.check
      ? await spec.check(ctx, m, view, registry)
      : { ok: undefined };
    if ('stale' in checked) {
      outcome = 'stale';
      await staleAnswer();
      return;
    }
    if ('errors' in checked) {
      outcome = 'invalid';
      // Slack refuses an error over its limit, or with half of a surrogate pair (a typed value
      // quoted after a cut): cut and neutralised here, so no form has to remember it.
      const errors = Object.fromEntries(
        Object.entries(checked.errors).flatMap(([k, v]) =>
          v ? [[k, truncate(neutralise(v), LIMITS.inlineError)]] : [],
        ),
      );
      await ack({ response_action: 'errors', errors });
      await checked.after?.();
      return;
    }
    if ('answer' in checked) {
      await ack(checked.answer === 'close' ? undefined : { response_action: 'update', view: checked.answer });
      return;
    }
    const d = checked.ok;
    let gated = false;
    if (roleOf(spec, m) === 'admin') {
      // registerInteractions refuses an admin modal without a gate.
      const g = spec.gate!(m, d);
      const gate = await adminGateForView(ctx, ack, {
        viewId: view.id,
        blockId: g.block,
        what: g.what,
        action: g.action,
        pending: g.pending,
      });
      if (!gate.ok) {
        outcome = 'refused';
        return;
      }
      gated = gate.acked;
    }
    let shown = gated;
    if (!acked) {
      const v = spec.ackView?.(m, d);
      shown = v !== undefined;
      await ack(v ? { response_action: 'update', view: v } : undefined);
    }
    if (!gated && !(await barred.after(shown ? view.id : undefined))) {
      outcome = 'refused';
      return;
    }
    pendingShown = shown;
    await spec.submit(ctx, m, d, { view, body, context: args.context, client, gated, registry });
  } catch (e) {
    outcome = 'error';
    // The store down before the ack: the form stays open with what the user typed and the reason
    // under its first field (closing it would lose the values; they submit again later).
    const keep =
      !acked && e instanceof StoreUnavailableError
        ? keepFormOpen(view as Parameters<typeof keepFormOpen>[0], STORE_DOWN_INLINE)
        : undefined;
    if (keep) {
      ctx.logger.warn({ refId: ctx.refId, view: spec.name }, 'form kept open: the store is unavailable');
      await ack(keep).catch(() => undefined);
      return;
    }
    // Never leave Slack waiting: an error before the ack closes the modal, then the user is told.
    if (!acked) await ack().catch(() => undefined);
    // A submit that threw while "Saving…" shows: the form comes back with what was entered and
    // the failure on top (left on "Saving…" the user would wait for nothing); else a reply.
    if (pendingShown && (await showFormAgain(ctx, client, view, spec.failure, e))) return;
    await respondError(ctx, spec.failure, e);
  } finally {
    commandsTotal.inc({ command: spec.metric ?? `modal:${spec.name}`, outcome });
  }
}

/**
 * The submitted form again, with the failure of `what` on top (or the failure alone when the form
 * cannot be given back); false when Slack would not take it (the caller replies instead).
 */
async function showFormAgain(
  ctx: CommandContext,
  client: WebClient,
  view: ViewOutput,
  what: string,
  err: unknown,
): Promise<boolean> {
  const opts = await errorOptions(ctx);
  logError(ctx, what, err, opts);
  const failure = errorBlocks(what, err, opts);
  const title = typeof view.title?.text === 'string' ? view.title.text : 'Error';
  const next = formAgain(view, failure) ?? modalView(`${view.callback_id}_failed`, title, failure);
  return client.views.update({ view_id: view.id, view: next }).then(
    () => true,
    (x: unknown) => {
      ctx.logger.warn({ err: x, refId: ctx.refId }, 'could not show the failed form again');
      return false;
    },
  );
}

/** Matches every id: the one Bolt listener per kind narrows with `knownOnly` and routes itself. */
const ANY_ID = /(?:)/;

/**
 * A button or form no declaration handles (a message of an older version, a link button, a forged
 * id): acked at once with nothing (Slack shows no error, a form closes) instead of being left to
 * Bolt's 3-second "not acknowledged" 404; logged with the id (cut) at debug level.
 */
async function ackUnknown(deps: AppDeps, ack: unknown, kind: string, id: unknown): Promise<void> {
  deps.logger?.debug(
    { kind, id: typeof id === 'string' ? id.slice(0, 80) : typeof id },
    'no declaration handles this id: acked',
  );
  if (typeof ack === 'function') await (ack as () => Promise<void>)();
}

/**
 * Register the Bolt listeners of `interactions` (the only place buttons and modals are wired to
 * Bolt). Throws on two declarations for the same id: a click must have one meaning.
 *
 * One Bolt listener for every button and one for every modal, each routing by id through a map
 * (ids given as a pattern are tried in declaration order after the exact ones): Bolt runs the
 * matcher chain of EVERY registered listener for every request, slash commands included, so one
 * listener per declaration made each request's ack path pay for all of them. An id no declaration
 * handles is acked at once with nothing (`ackUnknown`).
 */
export function registerInteractions(
  app: App,
  deps: AppDeps,
  interactions: readonly Interaction[],
  registry: CommandRegistry,
  /** The features' Home entry points (buttons with `opens`); none by default. */
  homeActions: HomeActions = new Map(),
): void {
  const seen = new Set<string>();
  const exactButtons = new Map<string, ButtonInteraction>();
  const patternButtons: ButtonInteraction[] = [];
  const modals = new Map<string, ModalInteraction>();
  for (const i of interactions) {
    const id = i.kind === 'modal' ? `view:${i.callbackId}` : `action:${String(i.actionId)}`;
    if (seen.has(id)) throw new Error(`Two declarations for ${id}`);
    if (i.kind === 'modal' && i.role !== undefined && !i.gate) {
      throw new Error(`Modal ${i.callbackId} has a role but no admin gate`);
    }
    seen.add(id);
    if (i.kind === 'button') {
      if (typeof i.actionId === 'string') exactButtons.set(i.actionId, i);
      else patternButtons.push(i);
    } else {
      modals.set(i.callbackId, i);
    }
  }
  const buttonFor = (actionId: unknown): ButtonInteraction | undefined => {
    if (typeof actionId !== 'string') return undefined;
    return exactButtons.get(actionId) ?? patternButtons.find((b) => handles(b, actionId));
  };
  const modalFor = (body: AnyBody): ModalInteraction | undefined => {
    const id = body?.view?.callback_id;
    return typeof id === 'string' ? modals.get(id) : undefined;
  };
  if (exactButtons.size + patternButtons.length > 0) {
    app.action(
      ANY_ID,
      async ({ payload, next, ack }: AnyBody) => {
        if (buttonFor(payload?.action_id)) await next();
        else await ackUnknown(deps, ack, 'block action', payload?.action_id);
      },
      (args: AnyBody) =>
        runButton(deps, buttonFor(args.payload?.action_id) as ButtonInteraction, registry, homeActions, args),
    );
  }
  if (modals.size > 0) {
    app.view(
      ANY_ID,
      async ({ body, next, ack }: AnyBody) => {
        if (modalFor(body)) await next();
        else await ackUnknown(deps, ack, body?.type ?? 'view', body?.view?.callback_id);
      },
      (args: AnyBody) => runModal(deps, modalFor(args.body) as ModalInteraction, registry, args),
    );
  }
}
