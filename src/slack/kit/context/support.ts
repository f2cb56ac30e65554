/**
 * Helpers shared by the features' buttons and modals (the checks every interaction gets are in
 * ../interactions/registry.ts): request contexts for block actions and view submissions, error replies,
 * response_url replies from a modal, the user's DM, audited changes, and a bot WebClient for
 * background work after a restart. Slack files (upload, download with the bot token) are in
 * ../web/files.ts.
 */
import type { RespondFn } from '@slack/bolt';
import type { KnownBlock, WebClient } from '@slack/web-api';
import { AuthError, PermissionError } from '../../../api/errors.js';
import type { AppDeps } from '../../deps.js';
import { fitMessage, type Message, type ModalView } from '../blocks/blocks.js';
import { webClients } from '../web/client.js';
import { trustedSlackUrl } from '../web/files.js';
import { sharingRefusal, sharingRefusedMessage } from './channels/replies.js';
import { type CommandContext, createContext, errorOptions, type SlashCommand } from './context.js';
import { explainError, renderError } from './errors.js';

// biome-ignore lint/suspicious/noExplicitAny: Bolt's body types differ per payload kind
type AnyBody = any;

/**
 * The bot's own ids in a workspace, as far as the app knows them without a Slack call: the
 * installation's (OAuth), else the configured ones (single workspace). Either may be absent.
 */
export async function botIdsOf(
  deps: AppDeps,
  workspace: string,
): Promise<{ botId?: string; botUserId?: string }> {
  let botId = deps.config.slack.botId;
  let botUserId = deps.config.slack.botUserId;
  if (deps.config.distribution === 'oauth') {
    // The installation knows the bot of this workspace (its token is not read here).
    const inst = (await deps.store.installations.get(workspace).catch(() => undefined)) as
      | { bot?: { id?: string; userId?: string } }
      | undefined;
    botId = inst?.bot?.id ?? botId;
    botUserId = inst?.bot?.userId ?? botUserId;
  }
  return { ...(botId ? { botId } : {}), ...(botUserId ? { botUserId } : {}) };
}

/** The parts of a Bolt action or view listener argument a context is built from. */
export interface PayloadArgs {
  body: AnyBody;
  client: WebClient;
  context: AnyBody;
}

/**
 * Who sent a payload: its workspace (from the signed payload, else Bolt's context) and user.
 * Spread into createContext by listeners that need no more than that. A modal submitted by a
 * user of another organisation (opened from a Slack Connect channel) names THEIR team in `team`
 * and the workspace the app answers for in `view.app_installed_team_id` (as Bolt reads it to
 * authorize): that one is the workspace.
 */
export function payloadIdentity(body: AnyBody, context: AnyBody) {
  return {
    teamId: body.view?.app_installed_team_id || body.team?.id || context.teamId,
    enterpriseId: body.enterprise?.id ?? context.enterpriseId,
    isEnterpriseInstall: body.is_enterprise_install ?? context.isEnterpriseInstall,
    userId: body.user.id,
  };
}

/**
 * Context of a block action (button). Replies go through the action's response_url; actions
 * inside a modal or the Home tab have none, and replies then go to the user's DM. `command`
 * is the feature's slash command (help hints and error replies name it; `/dwm` by default).
 */
export function actionContext(
  deps: AppDeps,
  a: PayloadArgs & { respond?: RespondFn },
  command?: SlashCommand,
): CommandContext {
  const b = a.body;
  return createContext({
    deps,
    client: a.client,
    ...payloadIdentity(b, a.context),
    channelId: b.channel?.id ?? b.container?.channel_id,
    triggerId: b.trigger_id,
    ...(command ? { command } : {}),
    respond: b.response_url ? a.respond : undefined,
  });
}

/**
 * Context of a view submission or an action inside a modal (no channel: replies go to the DM).
 * A button inside a modal opens its view over that modal (views.push): views.open is for a
 * surface with no modal open (a message, the Home tab).
 */
export function viewContext(deps: AppDeps, a: PayloadArgs, command?: SlashCommand): CommandContext {
  const ctx = createContext({
    deps,
    client: a.client,
    ...payloadIdentity(a.body, a.context),
    triggerId: a.body.trigger_id,
    ...(command ? { command } : {}),
  });
  const triggerId: unknown = a.body.trigger_id;
  if (a.body.type === 'block_actions' && a.body.view?.type === 'modal' && typeof triggerId === 'string') {
    ctx.openView = async (view) => {
      const r = await a.client.views.push({ trigger_id: triggerId, view });
      return r.view?.id;
    };
  }
  return ctx;
}

export { errorOptions };

/** Log an error at the right level (unexpected ones with the reference id). */
export function logError(ctx: CommandContext, what: string, err: unknown, opts: { refId: string }): void {
  if (explainError(err, opts).unexpected) ctx.logger.error({ err, refId: ctx.refId }, what);
  else if (err instanceof AuthError || err instanceof PermissionError) {
    // A refused login: the API layer's explanation (server text masked, clock skew, the
    // SERVICE_JWT_* hint) is what an operator needs; secrets are censored by the logger too.
    ctx.logger.warn(
      { refId: ctx.refId, kind: err.name, endpoint: err.endpoint, explanation: err.message },
      what,
    );
  } else ctx.logger.info({ refId: ctx.refId, kind: (err as Error)?.name }, what);
}

/** Reply with an error (three parts) to the user, never throwing. */
export async function respondError(ctx: CommandContext, what: string, err: unknown): Promise<void> {
  const opts = await errorOptions(ctx);
  logError(ctx, what, err, opts);
  try {
    await ctx.respond(renderError(what, err, opts), { share: false });
  } catch (e) {
    ctx.logger.error({ err: e, refId: ctx.refId }, 'could not deliver the error reply');
  }
}

/**
 * Send a message through a response_url kept from a button click (in a modal's metadata):
 * `replace` swaps the card the button was on, otherwise a new ephemeral message is added.
 */
export async function sendViaResponseUrl(
  deps: AppDeps,
  url: string,
  msg: Message,
  replace: boolean,
): Promise<boolean> {
  if (!trustedSlackUrl(deps, url)) return false;
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      ...(replace ? { replace_original: true } : {}),
      response_type: 'ephemeral',
      ...msg,
    }),
    signal: AbortSignal.timeout(5000),
  });
  await res.body?.cancel().catch(() => undefined);
  return res.ok;
}

/**
 * Reply from a modal: through the response_url kept in its metadata when there is one (and it
 * works), else the context's own reply (the user's DM). `inChannel`: the message the response_url
 * belongs to is read by everyone in that channel (`ButtonArgs.inChannel` of the button that opened
 * the form): replacing it follows the rule of channels shared with another organisation
 * (./channels/replies.ts): refused there, the user is told why and gets the reply privately.
 */
export async function replyFromModal(
  ctx: CommandContext,
  responseUrl: string | undefined,
  msg: Message,
  replace: boolean,
  inChannel?: string,
): Promise<void> {
  if (replace && responseUrl && inChannel) {
    const why = await sharingRefusal(ctx, inChannel, 'form reply');
    if (why) {
      await replyFromModal(
        ctx,
        responseUrl,
        sharingRefusedMessage(
          why,
          inChannel,
          'update this message in the channel',
          'The answer is shown only to you, below.',
        ),
        false,
      );
      replace = false;
    }
  }
  const sent = responseUrl
    ? await sendViaResponseUrl(ctx.deps, responseUrl, msg, replace).catch(() => false)
    : false;
  if (!sent) await ctx.respond(msg);
}

/** The user's DM channel id with the bot. */
export async function dmChannel(client: WebClient, userId: string): Promise<string> {
  const r = await client.conversations.open({ users: userId });
  const id = r.channel?.id;
  if (!id) throw new Error('conversations.open returned no channel');
  return id;
}

/**
 * Run a mutating operation and audit it: ok with `detail`, or error with the error's kind
 * (never its values). The error is re-thrown for the caller to render; a failing audit write is
 * logged, never thrown (the operation's outcome stands).
 */
export async function audited<T>(
  ctx: CommandContext,
  action: string,
  detail: string,
  siteId: string | undefined,
  fn: () => Promise<T>,
): Promise<T> {
  let r: T;
  try {
    r = await fn();
  } catch (e) {
    const why =
      e instanceof Error
        ? `${e.name}${'code' in e && typeof e.code === 'string' ? ` ${e.code}` : ''}`
        : 'error';
    await ctx
      .audit({ action, detail: `${detail}: failed (${why})`, result: 'error', ...(siteId ? { siteId } : {}) })
      .catch((ae: unknown) => ctx.logger.warn({ err: ae }, 'audit append failed'));
    throw e;
  }
  // Done: a failing audit write (the store down) must not report the change as not made (the
  // user would make it again); the entry goes to the log instead.
  await ctx
    .audit({ action, detail, result: 'ok', ...(siteId ? { siteId } : {}) })
    .catch((ae: unknown) => ctx.logger.warn({ err: ae, action, detail }, 'audit append failed'));
  return r;
}

/**
 * A bot WebClient for a workspace outside any request (resuming work after a restart):
 * SLACK_BOT_TOKEN in single-workspace mode, the stored installation's bot token with OAuth.
 */
export function botClientFor(deps: AppDeps, workspace: string): Promise<WebClient | undefined> {
  return webClients(deps).forWorkspace(workspace);
}

/**
 * Show a form's final view once its work is done. When Slack does not take it (the user closed
 * the form, a Slack error), the outcome is sent to the user as a message instead (the view's
 * sections): a change that was made is never left unsaid, nor reported as failed because the
 * view could not be shown.
 */
export async function showOutcome(
  ctx: CommandContext,
  client: WebClient,
  viewId: string,
  view: ModalView,
): Promise<void> {
  try {
    await client.views.update({ view_id: viewId, view });
  } catch (err) {
    ctx.logger.warn({ err, refId: ctx.refId }, 'could not show the outcome in the form; sent as a message');
    // A view holds up to 100 blocks, a message 50.
    const blocks = fitMessage(
      (view.blocks as KnownBlock[]).filter((b) => b.type === 'section' || b.type === 'context'),
    );
    const title = view.title?.text ?? 'Done';
    await ctx
      .respond({ text: title, blocks }, { share: false })
      .catch((e: unknown) =>
        ctx.logger.error({ err: e, refId: ctx.refId }, 'could not tell the user the outcome'),
      );
  }
}
