/**
 * A feature is a folder under src/slack/features/ that exports one `Feature`: its commands, its
 * buttons and modals (./interactions/registry.ts), its events, and what the background runtimes take from
 * it (renderers, ports, the Home refresh). src/slack/features/index.ts lists them in ONE ordered
 * list; that order is the order of help and of the README's command table. Nothing registers itself
 * on import: `registerFeatures` wires the list to Bolt, `commandRegistry` builds the registry from
 * it, and the runtimes (../watch-runtime.ts, ../notify-runtime.ts) are given the list by main.ts and
 * read the slots below, so no module outside features/ imports a feature (npm run lint:arch).
 * Features reach the runtimes only through kit hooks (./runtime/hooks.ts, ./runtime/notify-kick.ts).
 */
import type { App, SlackEventMiddlewareArgs } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import { workspaceKeyOf } from '../../store/keys.js';
import type { WorkspaceKey } from '../../store/types.js';
import type { WaitsPort } from '../../watch/job-waits.js';
import type { AppDeps } from '../deps.js';
import { decodeSlackText, tokenize } from './commands/parse.js';
import { type CommandEntry, CommandRegistry, type SlashCommand } from './commands/registry.js';
import { registerSlashCommands } from './commands/slash.js';
import { type HomeAction, homeActionsOf } from './interactions/home-actions.js';
import { registerInteractions } from './interactions/listeners.js';
import { missingArgsForm } from './interactions/missing-args-form.js';
import { handles, type Interaction } from './interactions/registry.js';
import { runSuggestion } from './interactions/run-suggestion.js';
import { registerSteps, type StepDeclaration } from './interactions/steps.js';
import { NOTIFY_RENDERER_NAMES, type NotifyRenderers } from './runtime/notify-render.js';
import { WATCH_RENDERER_NAMES, type WatchRenderers } from './runtime/watch-render.js';

/** An Events API listener of a feature (Bolt acks events itself, before the handler runs). */
export type FeatureEvent = 'app_home_opened' | 'channel_shared' | 'channel_unshared';

interface EventSpecOf<E extends FeatureEvent> {
  event: E;
  run(
    deps: AppDeps,
    args: SlackEventMiddlewareArgs<E> & {
      client: WebClient;
      context: Record<string, unknown>;
    },
  ): Promise<void>;
}

export type EventSpec = { [E in FeatureEvent]: EventSpecOf<E> }[FeatureEvent];

/** One event listener; generic over the event so Bolt's arguments keep their type (no cast). */
function registerEvent<E extends FeatureEvent>(app: App, deps: AppDeps, e: EventSpecOf<E>): void {
  app.event(e.event, (args) => e.run(deps, args));
}

export interface Feature {
  /** Folder name, e.g. 'jobs'. */
  name: string;
  /** In help order. */
  commands?: readonly CommandEntry[];
  interactions?: readonly Interaction[];
  events?: readonly EventSpec[];
  /** Workflow Builder custom steps (./interactions/steps.ts registers them: the only app.function caller). */
  functions?: readonly StepDeclaration[];
  /**
   * Something the Home tab shows changed in `workspace`: called in the background after a request
   * whose declaration says `changesHome`, and by the runtimes after a job or a notice changed (they
   * await it: it must not throw). Only the Home feature provides it.
   */
  onHomeChanged?: (deps: AppDeps, workspace: WorkspaceKey) => Promise<void> | void;
  /** The notices this feature renders (see ./runtime/notify-render.ts); merged by `notifyRenderersOf`. */
  notifyRenderers?: Partial<NotifyRenderers>;
  /** What the job watcher renders (see ./runtime/watch-render.ts); merged by `watchRenderersOf`. */
  watchRenderers?: Partial<WatchRenderers>;
  /**
   * The port the job watcher serves Workflow Builder waits through (src/watch/job-waits.ts): the
   * workflow steps feature provides it; the watch runtime takes it from the list.
   */
  jobWaits?: (deps: AppDeps) => WaitsPort;
  /** Home tab buttons that stand for this feature's commands (./interactions/home-actions.ts). */
  homeActions?: readonly HomeAction[];
}

/** The job watcher's renderers of a feature list, merged; throws naming what no feature provides. */
export function watchRenderersOf(features: readonly Feature[]): WatchRenderers {
  const merged: Partial<WatchRenderers> = {};
  for (const f of features) Object.assign(merged, f.watchRenderers ?? {});
  const missing = WATCH_RENDERER_NAMES.filter((k) => merged[k] === undefined);
  if (missing.length > 0) throw new Error(`no feature renders the watcher's ${missing.join(', ')}`);
  return merged as WatchRenderers;
}

/** The workflow waits port of a feature list (the first feature providing one), if any. */
export function jobWaitsOf(features: readonly Feature[]): ((deps: AppDeps) => WaitsPort) | undefined {
  return features.find((f) => f.jobWaits)?.jobWaits;
}

/**
 * The Home refresh of a feature list (every `onHomeChanged`, in order): what the runtimes call after
 * a change the tab shows. Never throws (a failing hook is logged).
 */
export function homeChangedOf(features: readonly Feature[]) {
  const hooks = features.flatMap((f) => (f.onHomeChanged ? [f.onHomeChanged] : []));
  return async (deps: AppDeps, workspace: WorkspaceKey): Promise<void> => {
    for (const h of hooks) {
      try {
        await h(deps, workspace);
      } catch (err) {
        deps.logger.warn({ err, workspace }, 'Home refresh failed');
      }
    }
  };
}

/** The renderers of a feature list, merged; throws naming what no feature provides. */
export function notifyRenderersOf(features: readonly Feature[]): NotifyRenderers {
  const merged: Partial<NotifyRenderers> = {};
  for (const f of features) Object.assign(merged, f.notifyRenderers ?? {});
  const missing = NOTIFY_RENDERER_NAMES.filter((k) => typeof merged[k] !== 'function');
  if (missing.length > 0) throw new Error(`no feature renders: ${missing.join(', ')}`);
  return merged as NotifyRenderers;
}

/**
 * The command registry of a feature list. Its entry order is the help order: every command a
 * member may run first (in feature order), then the admin-only ones (in feature order), so a
 * member's `/dwm help` starts with what they can use.
 */
export function commandRegistry(features: readonly Feature[]): CommandRegistry {
  const reg = new CommandRegistry();
  const all = features.flatMap((f) => f.commands ?? []);
  for (const c of all) if (c.role !== 'admin') reg.add(c);
  for (const c of all) if (c.role === 'admin') reg.add(c);
  return reg.seal();
}

/** Every interaction of the list, the kit's own ("fill in what is missing" form) included. */
export function interactionsOf(features: readonly Feature[]): Interaction[] {
  return [missingArgsForm, runSuggestion, ...features.flatMap((f) => f.interactions ?? [])];
}

type Body = {
  type?: string;
  command?: string;
  text?: string;
  team_id?: string;
  enterprise_id?: string;
  team?: { id?: string } | null;
  enterprise?: { id?: string } | null;
  view?: { callback_id?: string };
  actions?: Array<{ action_id?: string }>;
};

/**
 * Does this request change something the Home tab shows? The declarations say so: a command entry
 * or an interaction with `changesHome: true`. Pure.
 */
export function changesHome(body: Body, registry: CommandRegistry, interactions: readonly Interaction[]) {
  if (typeof body.command === 'string') {
    const command = body.command as SlashCommand;
    if (command !== '/dwm' && command !== '/drm') return false;
    try {
      const r = registry.resolve(command, tokenize(decodeSlackText(body.text ?? '')));
      return r.kind === 'entry' && r.entry.changesHome === true;
    } catch {
      return false;
    }
  }
  const ids =
    body.type === 'view_submission'
      ? [body.view?.callback_id ?? '']
      : body.type === 'block_actions'
        ? (body.actions ?? []).map((a) => a.action_id ?? '')
        : [];
  return ids.some((id) => interactions.some((i) => i.changesHome && handles(i, id)));
}

/**
 * Wire a feature list to a Bolt app: the slash commands (through the registry), every button and
 * modal, the features' events, and the Home refresh after requests that change it.
 */
export function registerFeatures(app: App, deps: AppDeps, features: readonly Feature[]): CommandRegistry {
  const registry = commandRegistry(features);
  const interactions = interactionsOf(features);
  const homeChanged = features.flatMap((f) => (f.onHomeChanged ? [f.onHomeChanged] : []));
  if (homeChanged.length > 0) {
    // After the request was handled: refresh in the background (never delays or fails it).
    app.use(async ({ body, context, next }) => {
      await next();
      try {
        const b = body as Body;
        if (!changesHome(b, registry, interactions)) return;
        const workspace = workspaceKeyOf({
          teamId: context.teamId ?? b.team_id ?? b.team?.id ?? undefined,
          enterpriseId: context.enterpriseId ?? b.enterprise_id ?? b.enterprise?.id ?? undefined,
          isEnterpriseInstall: context.isEnterpriseInstall,
        });
        // The handler's own views.update / replies may still be in flight.
        setTimeout(() => {
          for (const h of homeChanged) {
            void Promise.resolve()
              .then(() => h(deps, workspace))
              .catch((err: unknown) => deps.logger.warn({ err, workspace }, 'Home refresh failed'));
          }
        }, 250).unref();
      } catch (err) {
        deps.logger.debug({ err }, 'no Home refresh for this request');
      }
    });
  }
  registerSlashCommands(app, deps, registry);
  registerInteractions(app, deps, interactions, registry, homeActionsOf(features));
  // No form of the bot has an external select: an options request (forged, or from a form of
  // another version) gets an empty list at once, never Bolt's 3-second "not acknowledged" 404.
  app.options(/(?:)/, async ({ ack }) => {
    await ack({ options: [] });
  });
  // No modal asks to hear of its closing (notify_on_close): a view_closed payload is acked.
  app.view({ callback_id: /(?:)/, type: 'view_closed' }, async ({ ack }) => {
    await ack();
  });
  for (const f of features) {
    for (const e of f.events ?? []) {
      // Narrowed per event, so each listener keeps Bolt's argument type for its event.
      if (e.event === 'app_home_opened') registerEvent(app, deps, e);
      else if (e.event === 'channel_shared') registerEvent(app, deps, e);
      else registerEvent(app, deps, e);
    }
    if (f.functions) registerSteps(app, deps, f.functions);
  }
  return registry;
}
