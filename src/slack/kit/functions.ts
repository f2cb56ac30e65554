/**
 * Workflow Builder custom steps: a tiny registry. One declaration per step gives
 * - the workspace-set-up check (a clear `fail` message when `/dwm setup` was never run),
 * - the workspace's credentials (`ctx.clients()`, as commands get them),
 * - the what / why / next error wording (explainError, turned into plain text: Workflow Builder
 *   shows the error as text, not mrkdwn),
 * - audit entries naming the workflow execution and the user the step ran for,
 * - the user check: a step run for a Slack guest (GUEST_ACCESS=none) or for a user Slack cannot
 *   find in the workspace fails (refused, audited) before anything else; a step naming no user runs as the
 *   workflow, which a member built,
 * and registers `app.function(callback_id, …)`. This is the only place that calls app.function.
 *
 * A step either answers at once (`{ outputs }`: completeSuccess) or says it completes later
 * (`{ later: true }`: it stored a durable wait, see src/watch/job-waits.ts). The event is acked
 * before the step runs (autoAcknowledge), so nothing a step does delays the 3 s ack.
 */
import type { App } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import { StepInputError } from '../../ops/workflow-steps.js';
import { NotConfiguredError } from '../../ops/workspace.js';
import { WorkspaceLimitError } from '../../watch/limits.js';
import type { AppDeps } from '../deps.js';
import { type CommandContext, createContext, errorOptions } from './context.js';
import { explainError } from './errors.js';
import { neutralise, SLACK_USER_ID_RE } from './mrkdwn.js';
import { stepBarred } from './roles.js';
import { botClientFor } from './support.js';

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

/** See StepRun.workflowUserId. */
export function workflowUserOf(
  inputs: StepInputs,
  context: { userId?: string | undefined; botUserId?: string | undefined },
): string | undefined {
  const candidates: unknown[] = [context.userId];
  for (const v of Object.values(inputs)) {
    // slack#/types/interactivity: { interactivity_pointer, interactor: { id, secret } }
    if (v && typeof v === 'object' && 'interactor' in v) {
      const who = (v as { interactor?: unknown }).interactor;
      if (who && typeof who === 'object' && 'id' in who) candidates.push((who as { id?: unknown }).id);
    }
  }
  for (const c of candidates) {
    if (typeof c === 'string' && SLACK_USER_ID_RE.test(c) && c !== context.botUserId) return c;
  }
  return undefined;
}

/** Register every step's `app.function` listener. */
export function registerSteps(app: App, deps: AppDeps, steps: readonly StepDeclaration[]): void {
  for (const decl of steps) {
    app.function(
      decl.callbackId,
      { autoAcknowledge: true },
      async ({ event, context, client, complete, fail }) => {
        const inputs = (event.inputs ?? {}) as StepInputs;
        const rawUser = decl.userInput ? inputs[decl.userInput] : undefined;
        const userId =
          typeof rawUser === 'string' && SLACK_USER_ID_RE.test(rawUser) && rawUser !== context.botUserId
            ? rawUser
            : undefined;
        const workflowUserId = userId ? undefined : workflowUserOf(inputs, context);
        const workspaceClient =
          (await botClientFor(
            deps,
            context.enterpriseId && context.isEnterpriseInstall
              ? context.enterpriseId
              : (context.teamId ?? ''),
          ).catch(() => undefined)) ?? client;
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
        // The user check of every step (the only one): a step run for a barred user
        // (GUEST_ACCESS=none: a guest, a user Slack does not know in this workspace, a user of
        // another organisation) fails with what / why / next, audited as refused.
        if (userId) {
          let barred: string | undefined;
          try {
            barred = await stepBarred(ctx);
          } catch (err) {
            await failWith(await stepErrorText(ctx, decl.title, err), 'error');
            return;
          }
          if (barred) {
            await failWith(plainText(barred), 'refused');
            return;
          }
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
      },
    );
  }
}

/** The step may not run for this user (authorization as for the command). */
export class StepRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StepRefusedError';
  }
}
