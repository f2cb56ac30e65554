/**
 * Where the declared buttons and modals meet Bolt (the only place they are wired): one listener
 * per kind, routing by id to ./button-click.ts and ./modal-submit.ts.
 */
import type { App } from '@slack/bolt';
import type { AppDeps } from '../../deps.js';
import type { CommandRegistry } from '../commands/registry.js';
import { runButton } from './button-click.js';
import type { HomeActions } from './home-actions.js';
import { runModal } from './modal-submit.js';
import {
  type AnyBody,
  type ButtonInteraction,
  handles,
  type Interaction,
  type ModalInteraction,
} from './registry.js';

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
