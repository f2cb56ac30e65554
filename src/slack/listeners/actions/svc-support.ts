/**
 * Helpers shared by the `/drm` (Service API) listeners, not a listener itself: request contexts
 * for block actions and view submissions, the workspace check of button values, error replies,
 * response_url replacement from a modal, the user's DM, file upload (files.uploadV2) and reading
 * an uploaded file's bytes with the bot token (memory only, never disk or the store).
 *
 * (The watermarking feature has similar helpers in wm-support.ts; these are kept separate so the
 * two features do not depend on each other's uncommitted code.)
 */
import type { RespondFn } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
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
    command: '/drm',
    respond: b.response_url ? a.respond : undefined,
  });
}

/** Context of a view submission (no channel: plain replies go to the user's DM). */
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
    command: '/drm',
  });
}

/**
 * A button value names the workspace it was made in. A click from another workspace (a shared
 * channel, a forged value) never acts on the named workspace's data: the signed payload's own
 * workspace decides, and a mismatch is refused.
 */
export async function sameWorkspace(
  ctx: CommandContext,
  valueWorkspace: string | undefined,
): Promise<boolean> {
  if (valueWorkspace === ctx.workspace) return true;
  ctx.logger.warn({ valueWorkspace }, 'svc: value from another workspace refused');
  await ctx.respond(
    {
      text: 'This button belongs to another workspace, so it cannot act here. Run the command again in this workspace.',
    },
    { share: false },
  );
  return false;
}

export async function badValue(ctx: CommandContext): Promise<void> {
  await ctx.respond(
    { text: 'This button is out of date. Run the command again to get a fresh one.' },
    { share: false },
  );
}

/** Error options with who the admins are (never throws). */
export async function errorOptions(ctx: CommandContext) {
  let admins: string | undefined;
  try {
    admins = await ctx.admins();
  } catch {
    admins = undefined;
  }
  return { refId: ctx.refId, command: '/drm', ...(admins ? { admins } : {}) };
}

/** Log an error at the right level (unexpected ones with the reference id). */
export function logError(ctx: CommandContext, what: string, err: unknown, opts: { refId: string }): void {
  if (explainError(err, opts).unexpected) ctx.logger.error({ err, refId: ctx.refId }, what);
  else ctx.logger.info({ refId: ctx.refId, kind: (err as Error)?.name }, what);
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
      response_type: 'ephemeral',
      ...(replace ? { replace_original: true } : {}),
      ...msg,
    }),
    signal: AbortSignal.timeout(5000),
  });
  await res.body?.cancel().catch(() => undefined);
  return res.ok;
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

export class FileReadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FileReadError';
  }
}

const fileInfoSchema = z.object({
  name: z.string().optional(),
  size: z.number().optional(),
  url_private_download: z.string().optional(),
  url_private: z.string().optional(),
});

/**
 * Read an uploaded file's bytes: files.info (so the URL comes from Slack, not from the payload,
 * and the file must belong to this workspace), then a GET with the bot token as
 * `Authorization: Bearer`, size-capped while streaming, kept in memory only. Throws
 * FileReadError with a message for the user.
 */
export async function readSlackFileBytes(
  deps: AppDeps,
  client: WebClient,
  fileId: string,
  maxBytes: number,
): Promise<{ name: string; data: Uint8Array }> {
  let infoRaw: unknown;
  try {
    infoRaw = (await client.files.info({ file: fileId })).file;
  } catch {
    throw new FileReadError('Slack could not find the attached file: attach it again.');
  }
  const info = fileInfoSchema.parse(infoRaw ?? {});
  const name = info.name ?? 'file';
  if (info.size !== undefined && info.size > maxBytes) {
    throw new FileReadError(`The file ${name} is ${info.size} bytes; the limit is ${maxBytes} bytes.`);
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
    throw new FileReadError(`Could not download ${name} from Slack (HTTP ${res.status}). Attach it again.`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.length;
    if (size > maxBytes) throw new FileReadError(`The file ${name} is over ${maxBytes} bytes.`);
    chunks.push(Buffer.from(chunk));
  }
  return { name, data: new Uint8Array(Buffer.concat(chunks)) };
}

/** The workspace's Service API client and the site (`site:` or the default). */
export async function serviceFor(ctx: CommandContext, site?: string) {
  const c = await ctx.clients();
  const siteId = c.site(site);
  return { svc: c.service(), siteId };
}

/**
 * Run a mutating operation and audit it: ok with `detail`, or error with the error's kind
 * (never its values). The error is re-thrown for the caller to render.
 */
export async function audited<T>(
  ctx: CommandContext,
  action: string,
  detail: string,
  siteId: string | undefined,
  fn: () => Promise<T>,
): Promise<T> {
  try {
    const r = await fn();
    await ctx.audit({ action, detail, result: 'ok', ...(siteId ? { siteId } : {}) });
    return r;
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
}

/** Modal private_metadata: small JSON, checked with zod when read back. */
export function readMetadata<T>(schema: z.ZodType<T>, raw: string | undefined): T | undefined {
  if (!raw) return undefined;
  try {
    const r = schema.safeParse(JSON.parse(raw));
    return r.success ? r.data : undefined;
  } catch {
    return undefined;
  }
}
