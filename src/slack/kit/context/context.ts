/**
 * A small per-request context (like bolt-js's): who, where, how to answer, and lazy access to
 * the user's time zone, role and the workspace's API clients. Built once per command, action or
 * view submission; handlers receive it and nothing else.
 */
import { randomUUID } from 'node:crypto';
import type { RespondFn } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { Logger } from '../../../log.js';
import { audit } from '../../../ops/audit.js';
import { type WorkspaceClients, workspaceClients } from '../../../ops/workspace.js';
import { workspaceKeyOf } from '../../../store/keys.js';
import type { AppDeps } from '../../deps.js';
import { mirrorAuditLine } from './channels/audit-mirror.js';
import { adminContacts } from './roles/refusals.js';
import { userInfo } from './roles/slack-users.js';
import { resolveStanding, roleOfStanding } from './roles/standing.js';
import type { CommandContext, Role, SlashCommand, Standing } from './types.js';

export { auditLine } from './channels/audit-mirror.js';
export type { CommandContext, RespondOptions, SlashCommand } from './types.js';

export interface ContextInput {
  deps: AppDeps;
  client: WebClient;
  teamId?: string | undefined;
  enterpriseId?: string | undefined;
  isEnterpriseInstall?: boolean | undefined;
  userId: string;
  channelId?: string | undefined;
  triggerId?: string | undefined;
  command?: SlashCommand;
  /** Bolt's respond (response_url) when the request has one. */
  respond?: RespondFn | undefined;
}

/** 8 hex characters (32 random bits): from a pooled UUID, cheaper than randomBytes per request. */
export function newRefId(): string {
  return randomUUID().slice(0, 8);
}

export function createContext(input: ContextInput): CommandContext {
  const { deps, client } = input;
  const workspace = workspaceKeyOf({
    teamId: input.teamId,
    enterpriseId: input.enterpriseId,
    isEnterpriseInstall: input.isEnterpriseInstall,
  });
  const refId = newRefId();
  // Made on first use: a pino child serialises (and redacts) its bindings when it is created, and
  // most requests never log.
  let childLogger: Logger | undefined;
  const requestLogger = () => {
    childLogger ??= deps.logger.child({ refId, workspace, userId: input.userId });
    return childLogger;
  };
  let standing: Promise<Standing> | undefined;
  let role: Promise<Role> | undefined;
  let clients: Promise<WorkspaceClients> | undefined;

  const ctx: CommandContext = {
    deps,
    workspace,
    userId: input.userId,
    command: input.command ?? '/dwm',
    refId,
    get logger() {
      return requestLogger();
    },
    client,
    share: false,
    async respond(msg, opts = {}) {
      const share = !opts.secret && (opts.share ?? ctx.share);
      if (input.respond) {
        await input.respond({
          response_type: share ? 'in_channel' : 'ephemeral',
          text: msg.text,
          ...(msg.blocks ? { blocks: msg.blocks } : {}),
          ...(opts.replaceOriginal ? { replace_original: true } : {}),
        } as Parameters<RespondFn>[0]);
        return;
      }
      const payload = { text: msg.text, ...(msg.blocks ? { blocks: msg.blocks } : {}) };
      if (input.channelId && share) {
        await client.chat.postMessage({ channel: input.channelId, ...payload });
      } else if (input.channelId) {
        await client.chat.postEphemeral({
          channel: input.channelId,
          user: input.userId,
          ...payload,
        });
      } else {
        // No channel (a modal submission): a direct message from the bot.
        await client.chat.postMessage({ channel: input.userId, ...payload });
      }
    },
    async timeZone() {
      return (await userInfo(deps, client, workspace, input.userId)).tz;
    },
    role() {
      role ??= ctx.standing().then(roleOfStanding);
      return role;
    },
    standing() {
      standing ??= resolveStanding(deps, client, workspace, input.userId);
      return standing;
    },
    admins: () => adminContacts(deps, workspace),
    clients() {
      clients ??= workspaceClients(deps, workspace);
      // A failed load (e.g. store hiccup) is not cached.
      clients.catch(() => {
        clients = undefined;
      });
      return clients;
    },
    async audit(entry) {
      // The store entry is the record and is awaited; the line for the audit channel is queued
      // (paced 1/s per channel, retried on 429) and never awaited in the user's request.
      await audit(
        { ...deps, logger: requestLogger() },
        workspace,
        { ...entry, userId: input.userId },
        async (channel, e) => mirrorAuditLine(deps, workspace, channel, e, () => client),
      );
    },
    async openView(view) {
      if (!input.triggerId) throw new Error('No trigger id: a modal can only open from a command or button');
      const r = await client.views.open({ trigger_id: input.triggerId, view: view });
      return r.view?.id;
    },
  };
  if (input.teamId) ctx.teamId = input.teamId;
  if (input.enterpriseId) ctx.enterpriseId = input.enterpriseId;
  if (input.channelId) ctx.channelId = input.channelId;
  if (input.triggerId) ctx.triggerId = input.triggerId;
  return ctx;
}

/** Options of an error reply: the reference id, the command, and who the admins are (never throws). */
export async function errorOptions(ctx: CommandContext) {
  let admins: string | undefined;
  try {
    admins = await ctx.admins();
  } catch {
    admins = undefined;
  }
  return { refId: ctx.refId, command: ctx.command, ...(admins ? { admins } : {}) };
}
