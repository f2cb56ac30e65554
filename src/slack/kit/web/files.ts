/**
 * Slack files for every feature: which URLs are Slack's (response_url, file downloads), uploads
 * to a channel (files.uploadV2), and reading an uploaded file with the bot token (memory only,
 * never disk or the store).
 *
 * Reading comes in two wordings over one download: `readSlackFileBytes` (`/drm fpscert`: any
 * file, "attach it again") and `readSlackFile` (`/dwm register`: a CSV as text, "upload it
 * again", sizes in KB/MB).
 */
import type { WebClient } from '@slack/web-api';
import { z } from 'zod';
import { BotExports, exportRetentionDays } from '../../../ops/exports.js';
import type { AppDeps } from '../../deps.js';
import { slackApiUrl } from './client.js';

/** Slack's Web API (SLACK_API_URL overrides it: the fake Slack in tests and the demo). */

/** Where Slack's response_url and file URLs may point (Slack, or the configured fake in tests). */
export function trustedSlackUrl(deps: AppDeps, url: string): boolean {
  try {
    const u = new URL(url);
    const api = new URL(slackApiUrl(deps.config));
    if (u.origin === api.origin) return true;
    return u.protocol === 'https:' && (u.hostname === 'slack.com' || u.hostname.endsWith('.slack.com'));
  } catch {
    return false;
  }
}

/** The ids of the files in a files.uploadV2 answer (one completeUploadExternal answer per file). */
export function uploadedFileIds(r: unknown): string[] {
  const ids: string[] = [];
  const visit = (x: unknown, depth: number) => {
    if (!x || typeof x !== 'object' || depth > 3) return;
    const o = x as { id?: unknown; files?: unknown };
    if (typeof o.id === 'string') ids.push(o.id);
    if (Array.isArray(o.files)) for (const f of o.files) visit(f, depth + 1);
  };
  visit(r, 0);
  return [...new Set(ids)];
}

/**
 * Upload a text file to a channel (the user's DM) with files.uploadV2, and remember it as the
 * bot's own export (`owner`: its workspace) so the background sweeper deletes it after
 * EXPORT_RETENTION_DAYS. Remembering is best effort: a store failure is logged, the upload stands.
 */
export async function uploadFile(
  client: WebClient,
  channelId: string,
  file: { filename: string; content: string; title?: string; comment?: string },
  owner: { deps: Pick<AppDeps, 'store' | 'config' | 'now' | 'logger'>; workspace: string },
): Promise<void> {
  const r = await client.filesUploadV2({
    channel_id: channelId,
    file: Buffer.from(file.content, 'utf8'),
    filename: file.filename,
    title: file.title ?? file.filename,
    ...(file.comment ? { initial_comment: file.comment } : {}),
  });
  const { deps, workspace } = owner;
  await new BotExports(deps.store)
    .record(workspace, uploadedFileIds(r), channelId, deps.now(), exportRetentionDays(deps.config))
    .catch((err: unknown) => deps.logger.warn({ err, workspace }, 'could not remember an uploaded export'));
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

/** The user-facing sentences of a download (each feature words its limits its own way). */
interface DownloadWording {
  /** Name when files.info gives none. */
  fallbackName: string;
  /** files.info failed: this message, or the Slack error itself when undefined. */
  notFound?: string;
  /** files.info says the file is over the limit. */
  tooLarge: (name: string, size: number, maxBytes: number) => string;
  /** The bytes went over the limit while streaming. */
  over: (name: string, maxBytes: number) => string;
  /** Ends "Could not download … (HTTP n)." */
  again: string;
}

/**
 * files.info (so the URL comes from Slack, not from the payload, and the file must belong to
 * this workspace), then a GET with the bot token as `Authorization: Bearer`, size-capped while
 * streaming, kept in memory only. Throws FileReadError with a message for the user.
 */
async function downloadSlackFile(
  deps: AppDeps,
  client: WebClient,
  fileId: string,
  maxBytes: number,
  words: DownloadWording,
): Promise<{ name: string; data: Buffer }> {
  let infoRaw: unknown;
  try {
    infoRaw = (await client.files.info({ file: fileId })).file;
  } catch (e) {
    if (words.notFound === undefined) throw e;
    throw new FileReadError(words.notFound);
  }
  const info = fileInfoSchema.parse(infoRaw ?? {});
  const name = info.name ?? words.fallbackName;
  if (info.size !== undefined && info.size > maxBytes) {
    throw new FileReadError(words.tooLarge(name, info.size, maxBytes));
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
    throw new FileReadError(`Could not download ${name} from Slack (HTTP ${res.status}). ${words.again}`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.length;
    if (size > maxBytes) throw new FileReadError(words.over(name, maxBytes));
    chunks.push(Buffer.from(chunk));
  }
  return { name, data: Buffer.concat(chunks) };
}

/** An uploaded file's bytes (any kind of file; limits in bytes). */
export async function readSlackFileBytes(
  deps: AppDeps,
  client: WebClient,
  fileId: string,
  maxBytes: number,
): Promise<{ name: string; data: Uint8Array }> {
  const f = await downloadSlackFile(deps, client, fileId, maxBytes, {
    fallbackName: 'file',
    notFound: 'Slack could not find the attached file: attach it again.',
    tooLarge: (name, size, max) => `The file ${name} is ${size} bytes; the limit is ${max} bytes.`,
    over: (name, max) => `The file ${name} is over ${max} bytes.`,
    again: 'Attach it again.',
  });
  return { name: f.name, data: new Uint8Array(f.data) };
}

/** Largest upload read as text (2 MB: 10,000 lines of the longest name and description fit). */
export const MAX_UPLOAD_BYTES = 2 * 1024 * 1024;

/** An uploaded CSV's text (UTF-8; a file with a NUL byte is refused as not text). */
export async function readSlackFile(
  deps: AppDeps,
  client: WebClient,
  fileId: string,
  maxBytes = MAX_UPLOAD_BYTES,
): Promise<{ name: string; text: string }> {
  const split = 'Split it into smaller files.';
  const f = await downloadSlackFile(deps, client, fileId, maxBytes, {
    fallbackName: 'upload.csv',
    tooLarge: (name, size, max) =>
      `The file ${name} is ${Math.ceil(size / 1024)} KB; the limit is ${max / 1024 / 1024} MB. ${split}`,
    over: (name, max) => `The file ${name} is over ${max / 1024 / 1024} MB. ${split}`,
    again: 'Upload it again.',
  });
  const text = new TextDecoder('utf-8', { fatal: false }).decode(f.data);
  if (text.includes('\u0000')) throw new FileReadError(`${f.name} is not a text file; upload a .csv file.`);
  return { name: f.name, text };
}
