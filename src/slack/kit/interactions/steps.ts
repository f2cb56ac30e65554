/**
 * Workflow Builder custom steps: a tiny registry. One declaration per step gives
 * - the workspace-set-up check (a clear `fail` message when `/dwm setup` was never run),
 * - the workspace's credentials (`ctx.clients()`, as commands get them),
 * - the what / why / next error wording (explainError, turned into plain text: Workflow Builder
 *   shows the error as text, not mrkdwn),
 * - audit entries naming the workflow execution and the user the step ran for,
 * - the input check: a value whose type is not the manifest's input type (a list or a number where
 *   the step takes text) fails naming the input, before anything else (never coerced),
 * - the user check: every person the event names (the step's `userInput`, e.g. "Requested by",
 *   the event's own user, the interactor of an interactivity input) gets the admission of a
 *   command: a Slack guest (GUEST_ACCESS=none), a user Slack cannot find in the workspace or a
 *   user of another organisation fails the step (refused, audited) before anything is read or
 *   written; a step naming no person at all (an unattended workflow) runs only when it only reads
 *   (`effect: 'read'`) or WORKFLOW_UNATTENDED=all says every step may, and fails saying so
 *   otherwise,
 * and registers `app.function(callback_id, …)`. This is the only place that calls app.function.
 *
 * A step either answers at once (`{ outputs }`: completeSuccess) or says it completes later
 * (`{ later: true }`: it stored a durable wait, see src/watch/job-waits.ts). The event is acked
 * before the step runs (autoAcknowledge), so nothing a step does delays the 3 s ack.
 */
import type { App } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import { StepInputError } from '../../../ops/workflow-steps.js';
import { NotConfiguredError } from '../../../ops/workspace.js';
import { WorkspaceLimitError } from '../../../watch/limits.js';
import type { AppDeps } from '../../deps.js';
import { neutralise, SLACK_USER_ID_RE } from '../blocks/mrkdwn.js';
import { type CommandContext, createContext, errorOptions } from '../context/context.js';
import { explainError } from '../context/errors.js';
import { stepBarred } from '../context/roles/admission.js';
import { botClientFor } from '../context/support.js';
import { callWithStepToken, rememberEventToken } from './step-completion.js';

export type StepInputs = Record<string, unknown>;

export interface StepRun {
  ctx: CommandContext;
  inputs: StepInputs;
  executionId: string;
  workflowExecutionId: string | undefined;
  /**
   * The user the workflow ran for: the step's `userInput` (e.g. "Requested by") when it holds a
   * user id; undefined otherwise (no fallback: a step that needs a person declares the input
   * that names one, and the manifest makes it required where it matters).
   */
  userId: string | undefined;
  /**
   * The user the workflow ran for when no `userInput` names one: the event's own user (Bolt's
   * context, when the event carries one) or the interactor of an interactivity input (a workflow
   * started from a button or a form passes it on), never the bot. Undefined when neither is there.
   */
  workflowUserId: string | undefined;
  /** Bot client of the workspace (not the short-lived function token): usable after the step. */
  client: WebClient;
}

export type StepResult = { outputs: Record<string, unknown> } | { later: true };

export interface StepDeclaration {
  callbackId: string;
  /** Short, for audit entries, e.g. "register recipients". */
  title: string;
  /** Audit action name, e.g. "workflow.register". */
  action: string;
  /** Which input carries the user the step ran for (audit, role checks). */
  userInput?: string;
  /** Which part of the credentials the step needs. */
  needs: 'watermarking' | 'service';
  /**
   * What the step does upstream: `read` (runs in an unattended workflow too) or `write` (needs a
   * person the bot can check, unless WORKFLOW_UNATTENDED=all).
   */
  effect: 'read' | 'write';
  /** The manifest's input parameters (type and title): a value of another type is refused. */
  inputs?: Readonly<Record<string, { type: string; title: string }>>;
  run(step: StepRun): Promise<StepResult>;
  /** Audit detail of a success answered at once. */
  detail?(step: StepRun, outputs: Record<string, unknown>): string;
}

/** Plain text from explainError's mrkdwn (code spans and entities). */
export function plainText(mrkdwn: string): string {
  return mrkdwn
    .replace(/`([^`]*)`/g, '$1')
    .replace(/<@([A-Z0-9]+)>/g, '@$1')
    .replace(/<!subteam\^[A-Z0-9]+>/g, 'the admin group')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

/** The what/why/next text of a failed step. */
export async function stepErrorText(ctx: CommandContext, title: string, err: unknown): Promise<string> {
  if (err instanceof StepInputError) return `Couldn't ${title}. ${err.message} ${err.next}`;
  const opts = await errorOptions(ctx);
  const ex = explainError(err, { ...opts, refId: ctx.refId });
  if (ex.unexpected) ctx.logger.error({ err, refId: ctx.refId }, `workflow step failed: ${title}`);
  return plainText(`Couldn't ${title}. ${ex.why} ${ex.next}`);
}

export function notSetUpText(title: string, part: 'watermarking' | 'service' | 'all'): string {
  const which =
    part === 'watermarking'
      ? 'the Watermarking API is not connected'
      : part === 'service'
        ? 'the Service API is not connected'
        : 'the bot is not set up in this workspace';
  return `Couldn't ${title}: ${which}. A workspace admin runs /dwm setup once, then the workflow can be run again.`;
}

/**
 * "workflow Wf… (step Fx…) for user U…": the audit detail's naming of the run. The user is plain
 * text, like the other audit lines' user ids: the detail is escaped where it is shown (the audit
 * channel's line, `/drm audit`), so a `<@U…>` in it would show as literal text; the entry's own
 * user (the one the step ran for) is rendered as a mention by those renderers.
 */
export function auditWho(step: {
  workflowExecutionId?: string | undefined;
  executionId: string;
  userId?: string | undefined;
}): string {
  return `workflow ${step.workflowExecutionId ?? 'unknown'} (step ${step.executionId}) for ${step.userId ? `user ${step.userId}` : 'an unnamed user'}`;
}

/**
 * Every person the event names besides the step's `userInput`: the event's own user (Bolt's
 * context), then the interactor of each interactivity input; user ids only, never the bot, each once.
 */
export function eventPeople(
  inputs: StepInputs,
  context: { userId?: string | undefined; botUserId?: string | undefined },
): string[] {
  const candidates: unknown[] = [context.userId];
  for (const v of Object.values(inputs)) {
    // slack#/types/interactivity: { interactivity_pointer, interactor: { id, secret } }
    if (v && typeof v === 'object' && 'interactor' in v) {
      const who = (v as { interactor?: unknown }).interactor;
      if (who && typeof who === 'object' && 'id' in who) candidates.push((who as { id?: unknown }).id);
    }
  }
  const out: string[] = [];
  for (const c of candidates) {
    if (typeof c === 'string' && SLACK_USER_ID_RE.test(c) && c !== context.botUserId && !out.includes(c))
      out.push(c);
  }
  return out;
}

/** See StepRun.workflowUserId. */
export function workflowUserOf(
  inputs: StepInputs,
  context: { userId?: string | undefined; botUserId?: string | undefined },
): string | undefined {
  return eventPeople(inputs, context)[0];
}

/** What a manifest input type takes, in words, and whether a value is of it (unknown types: any). */
const INPUT_TYPES: Record<string, { words: string; is: (v: unknown) => boolean }> = {
  string: { words: 'text', is: (v) => typeof v === 'string' },
  'slack#/types/user_id': { words: 'a person', is: (v) => typeof v === 'string' },
  'slack#/types/channel_id': { words: 'a channel', is: (v) => typeof v === 'string' },
  number: { words: 'a number', is: (v) => typeof v === 'number' && Number.isFinite(v) },
  integer: { words: 'a whole number', is: (v) => typeof v === 'number' && Number.isSafeInteger(v) },
  boolean: { words: 'true or false', is: (v) => typeof v === 'boolean' },
};

function valueWords(v: unknown): string {
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'number') return Number.isFinite(v) ? 'a number' : 'not a number';
  if (typeof v === 'boolean') return 'true or false';
  if (typeof v === 'string') return 'text';
  return 'an object';
}

/**
 * The first input whose value is not of its manifest type, as the step's error (plain text):
 * `Couldn't <title>: the input "Recipients" is a list, but the step takes text. …`. Absent values
 * (undefined, null) are not checked here: a step decides what an empty input means.
 */
export function inputTypeError(
  title: string,
  inputs: StepInputs,
  declared: Readonly<Record<string, { type: string; title: string }>> | undefined,
): string | undefined {
  for (const [name, param] of Object.entries(declared ?? {})) {
    if (!Object.hasOwn(inputs, name)) continue;
    const v = inputs[name];
    const type = INPUT_TYPES[param.type];
    if (v === undefined || v === null || !type || type.is(v)) continue;
    return `Couldn't ${title}: the input "${param.title}" (${name}) is ${valueWords(v)}, but the step takes ${type.words}. In Workflow Builder, set ${param.title} to ${type.words} (a value or a variable of that type), then run the workflow again.`;
  }
  return undefined;
}

/** The error of a step that changes something, run with no person the bot can check. */
export function unattendedText(title: string): string {
  return `Couldn't ${title}: the bot cannot tell who runs this step (Requested by is empty and the workflow was not started by a person), and a step that changes something runs only for a person the bot can check. In Workflow Builder, set Requested by to "Person who used this workflow" (or start the workflow from a link, button or form); an admin can let such steps run unattended with WORKFLOW_UNATTENDED=all (docs/workflow-builder.md).`;
}

/** Register every step's `app.function` listener. */
export function registerSteps(app: App, deps: AppDeps, steps: readonly StepDeclaration[]): void {
  for (const decl of steps) {
    app.function(decl.callbackId, { autoAcknowledge: true }, async ({ event, context, client }) => {
      const inputs = (event.inputs ?? {}) as StepInputs;
      const rawUser = decl.userInput ? inputs[decl.userInput] : undefined;
      const userId =
        typeof rawUser === 'string' && SLACK_USER_ID_RE.test(rawUser) && rawUser !== context.botUserId
          ? rawUser
          : undefined;
      const others = eventPeople(inputs, context);
      const workflowUserId = userId ? undefined : others[0];
      const botClient = await botClientFor(
        deps,
        context.enterpriseId && context.isEnterpriseInstall ? context.enterpriseId : (context.teamId ?? ''),
      ).catch(() => undefined);
      const workspaceClient = botClient ?? client;
      // The event's own token, kept in memory for a completion Slack refuses with the bot token
      // (./step-completion.ts); Bolt's `client` holds it for the answers given now.
      rememberEventToken(deps, event.function_execution_id, event.bot_access_token);
      const completion = {
        executionId: event.function_execution_id,
        workspace: botClient,
        eventClient: client,
      };
      const complete = (args: { outputs: Record<string, unknown> }) =>
        callWithStepToken(deps, completion, (c) =>
          c.functions.completeSuccess({
            function_execution_id: event.function_execution_id,
            outputs: args.outputs,
          }),
        );
      const fail = (args: { error: string }) =>
        callWithStepToken(deps, completion, (c) =>
          c.functions.completeError({
            function_execution_id: event.function_execution_id,
            error: args.error,
          }),
        );
      const ctx = createContext({
        deps,
        client: workspaceClient,
        teamId: context.teamId,
        enterpriseId: context.enterpriseId,
        isEnterpriseInstall: context.isEnterpriseInstall,
        // Audit entries name the user the workflow ran for; without one, the bot itself.
        userId: userId ?? workflowUserId ?? context.botUserId ?? 'workflow',
      });
      const step: StepRun = {
        ctx,
        inputs,
        executionId: event.function_execution_id,
        workflowExecutionId: event.workflow_execution_id,
        userId,
        workflowUserId,
        client: workspaceClient,
      };
      const who = auditWho({ ...step, userId: userId ?? workflowUserId });
      const failWith = async (text: string, result: 'error' | 'refused') => {
        await ctx
          .audit({ action: decl.action, detail: `${decl.title}, ${who}: ${text.slice(0, 300)}`, result })
          .catch((err: unknown) => ctx.logger.warn({ err }, 'audit append failed'));
        // Plain text shown in Workflow Builder: neutralised like every plain_text (a quoted input
        // cut inside an emoji would otherwise reach Slack fused with the next character).
        await fail({ error: neutralise(text) }).catch((err: unknown) =>
          ctx.logger.error({ err, executionId: step.executionId }, 'functions.completeError failed'),
        );
      };
      // The input check: a value of another type than the manifest's is refused, never coerced.
      const wrongType = inputTypeError(decl.title, inputs, decl.inputs);
      if (wrongType) {
        await failWith(wrongType, 'refused');
        return;
      }
      // The user check of every step (the only one), for every person the event names (the
      // runner and whoever started the workflow: a guest clicking a workflow's button is refused
      // even when Requested by names a member): a barred user (GUEST_ACCESS=none: a guest, a
      // user Slack does not know in this workspace, a user of another organisation) fails the
      // step with what / why / next, audited as refused.
      const people = [...(userId ? [userId] : []), ...others.filter((p) => p !== userId)];
      for (const person of people) {
        const pctx =
          person === ctx.userId
            ? ctx
            : createContext({
                deps,
                client: workspaceClient,
                teamId: context.teamId,
                enterpriseId: context.enterpriseId,
                isEnterpriseInstall: context.isEnterpriseInstall,
                userId: person,
              });
        let barred: string | undefined;
        try {
          barred = await stepBarred(pctx);
        } catch (err) {
          await failWith(await stepErrorText(ctx, decl.title, err), 'error');
          return;
        }
        if (barred) {
          await failWith(plainText(barred), 'refused');
          return;
        }
      }
      // No person at all (an unattended workflow): only steps that read, unless allowed.
      if (people.length === 0 && decl.effect === 'write' && deps.config.workflowUnattended !== 'all') {
        await failWith(unattendedText(decl.title), 'refused');
        return;
      }
      try {
        const clients = await ctx.clients();
        if (!clients.has(decl.needs)) throw new NotConfiguredError(decl.needs);
      } catch (err) {
        if (err instanceof NotConfiguredError) {
          await failWith(notSetUpText(decl.title, err.part), 'refused');
          return;
        }
        await failWith(await stepErrorText(ctx, decl.title, err), 'error');
        return;
      }
      try {
        const r = await decl.run(step);
        if ('later' in r) return;
        await ctx
          .audit({
            action: decl.action,
            detail: `${decl.title}, ${who}${decl.detail ? `: ${decl.detail(step, r.outputs)}` : ''}`,
            result: 'ok',
          })
          .catch((err: unknown) => ctx.logger.warn({ err }, 'audit append failed'));
        await complete({ outputs: r.outputs });
      } catch (err) {
        // A workspace cap is a refusal (audited as such), told with what to do.
        const refused = err instanceof StepRefusedError || err instanceof WorkspaceLimitError;
        await failWith(
          err instanceof StepRefusedError ? err.message : await stepErrorText(ctx, decl.title, err),
          refused ? 'refused' : 'error',
        );
      }
    });
  }
}

/** The step may not run for this user (authorization as for the command). */
export class StepRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StepRefusedError';
  }
}
