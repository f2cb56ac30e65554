/**
 * Buttons and modals, declared: the sibling of the command registry (../commands/registry.ts). A
 * feature declares each interaction once (`button({...})`, `modal({...})`) and exports the list;
 * Bolt listeners are registered in ./listeners.ts only (`registerInteractions`), never by a
 * feature. What a declaration says, and what the kit does with it (./button-click.ts for a click,
 * ./modal-submit.ts for a submission), in this order:
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
 *    with GUEST_ACCESS=none, see ../context/roles/standing.ts); `role: 'admin'` is default deny: buttons
 *    with `admit` (waiting only briefly when they open a modal: the trigger id lasts 3 s);
 *    submissions with `adminGateForView` / `barredAtSubmit` (no Slack call before the ack).
 *    Refusals are audited.
 *    A button that stands for another feature's command (`opens`: a Home entry point, see
 *    ./home-actions.ts) is checked against THAT command's role and modal-opening, from the registry.
 * 5. Idempotency (`once`): a destructive button claims "team + message + action + value" in the
 *    store (a lease, shared by replicas) before its upstream write; a second click while the
 *    claim holds is told it is already done. A failed run releases the claim (a retry may act).
 *    If the store cannot be reached the click is refused with the error model (no claim, no write).
 * 6. Outcome: a submission returns what it ended in (`SubmitOutcome`) and the kit shows it (the
 *    view, the form again on failure, the reply). Anything a handler throws is answered with the
 *    what / why / next model (../context/errors.ts) and logged with the reference id; never thrown
 *    to Bolt.
 * 7. Metrics: drmchatops_commands_total{command="button:<name>" | "modal:<name>", outcome}.
 * 8. Home: `changesHome: true` makes the Home tab refresh after the request (see ../features.ts).
 */
import type { ViewOutput } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { z } from 'zod';
import type { Message, ModalView } from '../blocks/blocks.js';
import { decodeValue } from '../blocks/values.js';
import type { CommandRegistry } from '../commands/registry.js';
import type { CommandContext, SlashCommand } from '../context/context.js';
import type { Role } from '../context/types.js';
import type { CommandTarget, HomeEntryPoint } from './home-actions.js';

// biome-ignore lint/suspicious/noExplicitAny: Bolt's payload bodies differ per kind; read defensively
export type AnyBody = any;

/** A value reader: a zod schema for JSON values, or a parser (undefined = not one of ours). */
export type Reader<T> = z.ZodType<T> | ((raw: string | undefined) => T | undefined);

/** The value read with its reader; undefined when it is not one of ours (or the parser throws). */
export function read<T>(reader: Reader<T>, raw: string | undefined): T | undefined {
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
   * "Checking…" modal holds the trigger id (see `admit` in ../context/roles/admission.ts).
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
  /**
   * "Couldn't …" line of a failed submission: `submit` threw, or returned `{ again }` without its
   * own `what`.
   */
  failure: string;
  /** Runs after the ack (and the checks); returns what the kit shows (see `SubmitOutcome`). */
  submit(ctx: CommandContext, m: M, d: D, a: SubmitArgs): Promise<SubmitOutcome>;
}

/**
 * A reply to the user from a submission: through the response_url of the message the form was
 * opened from (kept in the form's metadata; `replace` rewrites that message), else ephemeral in
 * the conversation or the DM (`replyFromModal`).
 */
export interface SubmitReply {
  message: Message;
  responseUrl?: string | undefined;
  replace?: boolean;
  /** The message `responseUrl` rewrites is read by everyone in this channel (`ButtonArgs.inChannel`). */
  inChannel?: string | undefined;
}

/** A submission that failed after the ack: the form comes back, to be submitted again. */
export interface FormFailure {
  /** What went wrong: logged with the reference id (`logError`). */
  error: unknown;
  /** "Couldn't …" (default: the declaration's `failure`). */
  what?: string;
  /**
   * The feature's own form with the failure in it (e.g. typed secrets never shown back). Default:
   * the submitted form with what was entered and the failure (what / why / next) on top
   * (./form-again.ts), or the failure alone when the form cannot be given back.
   */
  view?: ModalView;
}

/**
 * What a submission ended in. The kit shows it, so no form forgets a step (after the ack the modal
 * shows the pending view, `ackView` or the gate's, or it was closed):
 * - `{ view, reply }`: the outcome in the modal (views.update). A view Slack will not take is sent
 *   to the user as a message instead (its sections, cut to a message's 50 blocks): never lost.
 *   Then `reply`, when given (e.g. the card the form was opened from, rewritten).
 * - `{ again }`: the failure (see `FormFailure`); when Slack will not take the form, the failure
 *   is replied instead. A `submit` that throws gets the same with the declaration's `failure`.
 * - `{ reply, closing }`: the outcome as a message (`reply`), then, when the modal still shows a
 *   pending view, `closing` ends it (a short line); either may be absent.
 * - `undefined`: nothing more to show (the view shown at the ack says it all).
 */
export type SubmitOutcome =
  | { view: ModalView; reply?: SubmitReply }
  | { again: FormFailure }
  | { reply?: SubmitReply; closing?: ModalView }
  | undefined;

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

/**
 * The admin part of a form that shows one pending view ("Saving…") while its submission runs:
 * `role: 'admin'`, the gate (a refusal shows under `block`, audited as `action`) with that view,
 * and the same view at the ack.
 */
export function adminPending(
  gate: { block: string; what: string; action: string },
  pending: () => ModalView,
) {
  return {
    role: 'admin' as const,
    gate: () => ({ ...gate, pending: pending() }),
    ackView: pending,
  };
}

/** Does this declaration handle the action id / callback id? */
export function handles(i: Interaction, id: string): boolean {
  if (i.kind === 'modal') return i.callbackId === id;
  return typeof i.actionId === 'string' ? i.actionId === id : i.actionId.test(id);
}

/** The workspace a value or metadata names (`tag`, default its `w` field). */
export function tagOf<T>(spec: Common<T>, v: T): string | undefined {
  if (spec.tag) return spec.tag(v);
  const w = (v as { w?: unknown } | undefined)?.w;
  return typeof w === 'string' ? w : undefined;
}

/** The value's workspace is the request's (or the declaration says the value names none). */
export function sameWorkspace<T>(spec: Common<T>, ctx: CommandContext, v: T): boolean {
  const tag = tagOf(spec, v);
  if (tag === undefined) return spec.untagged !== undefined;
  return tag === ctx.workspace;
}

/** The role a value needs (`role`, default member). */
export function roleOf<T>(spec: Common<T>, v: T): Role {
  return typeof spec.role === 'function' ? spec.role(v) : (spec.role ?? 'member');
}
