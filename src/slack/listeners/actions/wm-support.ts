/**
 * Helpers shared by the watermarking listeners (not a listener itself): request contexts for
 * block actions and view submissions, the workspace check of button values, files to the user's
 * DM (files.uploadV2), reading an uploaded file with the bot token, response_url replies from a
 * modal, and a bot WebClient for background work after a restart.
 */
import type { RespondFn } from '@slack/bolt';
import { WebClient } from '@slack/web-api';
import { z } from 'zod';
import { type CommandContext, createContext } from '../../context.js';
import type { AppDeps } from '../../deps.js';
import type { Message } from '../../render/blocks.js';
import { explainError, renderError } from '../../render/errors.js';

const DEFAULT_API_URL = 'https://slack.com/api/';

// biome-ignore lint/suspicious/noExplicitAny: Bolt's body types differ per payload kind
type AnyBody = any;

/** Context of a block action (button). Replies go through the action's response_url. */
export function actionContext(
  deps: AppDeps,
  a: { body: AnyBody; client: WebClient; respond?: RespondFn; context: AnyBody },
): CommandContext {
  const b = a.body;
  return createContext({
    deps,
    client: a.client,
    teamId: b.team?.id ?? a.context.teamId,
    enterpriseId: b.enterprise?.id ?? a.context.enterpriseId,
    isEnterpriseInstall: b.is_enterprise_install ?? a.context.isEnterpriseInstall,
    userId: b.user.id,
    channelId: b.channel?.id ?? b.container?.channel_id,
    triggerId: b.trigger_id,
    // Actions inside a modal have no response_url: replies then go to the user's DM.
    respond: b.response_url ? a.respond : undefined,
  });
}

/** Context of a view submission or an action inside a modal (no channel: replies go to the DM). */
export function viewContext(
  deps: AppDeps,
  a: { body: AnyBody; client: WebClient; context: AnyBody },
): CommandContext {
  const b = a.body;
  return createContext({
    deps,
    client: a.client,
    teamId: b.team?.id ?? a.context.teamId,
    enterpriseId: b.enterprise?.id ?? a.context.enterpriseId,
    isEnterpriseInstall: b.is_enterprise_install ?? a.context.isEnterpriseInstall,
    userId: b.user.id,
    triggerId: b.trigger_id,
  });
}

/**
 * A button value names the workspace it was made in. A click whose payload comes from another
 * workspace (a shared channel, a forged value) never acts on the named workspace's data: the
 * request's own workspace (from the signed payload) decides, and a mismatch is refused.
 */
export async function sameWorkspace(
  ctx: CommandContext,
  valueWorkspace: string | undefined,
): Promise<boolean> {
  if (valueWorkspace === ctx.workspace) return true;
  ctx.logger.warn({ valueWorkspace }, 'button value from another workspace refused');
  await ctx.respond(
    {
      text: 'This button belongs to another workspace, so it cannot act here. Run the command again in this workspace.',
    },
    { share: false },
  );
  return false;
}

/** A stale or tampered button value. */
export async function badValue(ctx: CommandContext): Promise<void> {
  await ctx.respond(
    { text: 'This button is out of date. Run the command again to get a fresh one.' },
    { share: false },
  );
}

/** Reply with an error (three parts) to the user, never throwing. */
export async function respondError(ctx: CommandContext, what: string, err: unknown): Promise<void> {
  let admins: string | undefined;
  try {
    admins = await ctx.admins();
  } catch {
    admins = undefined;
  }
  const opts = { refId: ctx.refId, command: ctx.command, ...(admins ? { admins } : {}) };
  const msg = renderError(what, err, opts);
  if (explainError(err, opts).unexpected) ctx.logger.error({ err, refId: ctx.refId }, what);
  else ctx.logger.info({ refId: ctx.refId, kind: (err as Error)?.name }, what);
  try {
    await ctx.respond(msg, { share: false });
  } catch (e) {
    ctx.logger.error({ err: e, refId: ctx.refId }, 'could not deliver the error reply');
  }
}

/** The user's DM channel id with the bot. */
export async function dmChannel(client: WebClient, userId: string): Promise<string> {
  const r = await client.conversations.open({ users: userId });
  const id = r.channel?.id;
  if (!id) throw new Error('conversations.open returned no channel');
  return id;
}

/** Upload a text file to a channel (the user's DM) with files.uploadV2. */
export async function uploadFile(
  client: WebClient,
  channelId: string,
  file: { filename: string; content: string; title?: string; comment?: string },
): Promise<void> {
  await client.filesUploadV2({
    channel_id: channelId,
    file: Buffer.from(file.content, 'utf8'),
    filename: file.filename,
    title: file.title ?? file.filename,
    ...(file.comment ? { initial_comment: file.comment } : {}),
  } as never);
}

/** Where Slack's response_url and file URLs may point (Slack, or the configured fake in tests). */
export function trustedSlackUrl(deps: AppDeps, url: string): boolean {
  try {
    const u = new URL(url);
    const api = new URL(deps.config.slack.apiUrl ?? DEFAULT_API_URL);
    if (u.origin === api.origin) return true;
    return u.protocol === 'https:' && (u.hostname === 'slack.com' || u.hostname.endsWith('.slack.com'));
  } catch {
    return false;
  }
}

/** Replace the message a response_url belongs to (an ephemeral card), e.g. after a modal saved. */
export async function replaceViaResponseUrl(deps: AppDeps, url: string, msg: Message): Promise<boolean> {
  if (!trustedSlackUrl(deps, url)) return false;
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ replace_original: true, response_type: 'ephemeral', ...msg }),
    signal: AbortSignal.timeout(5000),
  });
  return res.ok;
}

export class FileReadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FileReadError';
  }
}

/** Largest upload read (2 MB: 10,000 lines of the longest name and description fit). */
export const MAX_UPLOAD_BYTES = 2 * 1024 * 1024;

const fileInfoSchema = z.object({
  name: z.string().optional(),
  size: z.number().optional(),
  url_private_download: z.string().optional(),
  url_private: z.string().optional(),
});

/**
 * Read an uploaded file's text: files.info (so the URL comes from Slack, not from the payload),
 * then a GET with the bot token as `Authorization: Bearer`, size-capped while streaming, kept in
 * memory only (never written to disk). Throws FileReadError with a message for the user.
 */
export async function readSlackFile(
  deps: AppDeps,
  client: WebClient,
  fileId: string,
  maxBytes = MAX_UPLOAD_BYTES,
): Promise<{ name: string; text: string }> {
  const info = fileInfoSchema.parse((await client.files.info({ file: fileId })).file ?? {});
  const name = info.name ?? 'upload.csv';
  if (info.size !== undefined && info.size > maxBytes) {
    throw new FileReadError(
      `The file ${name} is ${Math.ceil(info.size / 1024)} KB; the limit is ${maxBytes / 1024 / 1024} MB. Split it into smaller files.`,
    );
  }
  const url = info.url_private_download ?? info.url_private;
  if (!url || !trustedSlackUrl(deps, url))
    throw new FileReadError(`Slack gave no download address for ${name}.`);
  const token = client.token;
  if (!token) throw new FileReadError('The bot has no token to read the file with.');
  const res = await fetch(url, {
    headers: { authorization: `Bearer ${token}` },
    redirect: 'manual',
    signal: AbortSignal.timeout(15_000),
  });
  if (res.status !== 200 || !res.body) {
    await res.body?.cancel().catch(() => undefined);
    throw new FileReadError(`Could not download ${name} from Slack (HTTP ${res.status}). Upload it again.`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.length;
    if (size > maxBytes) {
      throw new FileReadError(
        `The file ${name} is over ${maxBytes / 1024 / 1024} MB. Split it into smaller files.`,
      );
    }
    chunks.push(Buffer.from(chunk));
  }
  const buf = Buffer.concat(chunks);
  const text = new TextDecoder('utf-8', { fatal: false }).decode(buf);
  if (text.includes('\u0000')) throw new FileReadError(`${name} is not a text file; upload a .csv file.`);
  return { name, text };
}

const storedInstallation = z.looseObject({ bot: z.looseObject({ token: z.string().min(1) }).optional() });

/**
 * A bot WebClient for a workspace outside any request (resuming work after a restart):
 * SLACK_BOT_TOKEN in single-workspace mode, the stored installation's bot token with OAuth.
 */
export async function botClientFor(deps: AppDeps, workspace: string): Promise<WebClient | undefined> {
  let token: string | undefined;
  if (deps.config.distribution === 'single') token = deps.config.slack.botToken;
  else {
    const parsed = storedInstallation.safeParse(await deps.store.installations.get(workspace));
    token = parsed.success ? parsed.data.bot?.token : undefined;
  }
  if (!token) return undefined;
  return new WebClient(token, {
    slackApiUrl: deps.config.slack.apiUrl ?? DEFAULT_API_URL,
    retryConfig: { retries: 2 },
  });
}
