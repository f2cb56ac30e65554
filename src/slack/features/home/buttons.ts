/**
 * The Home tab's buttons. Each opens the existing flow of the command it stands for, through the
 * ONE command registry: the entry's `openModal` (with the site from the button), or its handler
 * when the command needs no argument, or else a direct message saying which command to run. The
 * role is checked again for the clicking user (admin entries), and the workspace is the one the
 * signed payload came from: the button value only carries a site id, re-checked against that
 * workspace's configured sites by the flow it opens.
 */
import type { App, BlockAction, ButtonAction } from '@slack/bolt';
import { z } from 'zod';
import { commandsTotal } from '../../../metrics.js';
import type { AppDeps } from '../../deps.js';
import { message, section } from '../../kit/blocks.js';
import type { CommandContext } from '../../kit/context.js';
import { renderError } from '../../kit/errors.js';
import { code } from '../../kit/mrkdwn.js';
import { fullName, registry, type SlashCommand } from '../../kit/registry.js';
import { admitToModal, requireAdmin } from '../../kit/roles.js';
import { viewContext } from '../../kit/support.js';
import { refreshHome } from './publish.js';
import { HOME_ACTIONS, type HomeAction, watchPickView } from './render.js';

/** Which command each button stands for (first entry found wins: features may name it either way). */
export const HOME_TARGETS: Record<
  Exclude<HomeAction, 'refresh' | 'watch'>,
  Array<[SlashCommand, string[]]>
> = {
  register: [
    ['/dwm', ['register']],
    ['/dwm', ['recipients', 'register']],
  ],
  // The plan card (latest request + the buttons to ask for a change), not the request itself: a
  // button on the Home tab must not send a request to the provider without a confirmation step.
  trial: [['/drm', ['plan']]],
  setup: [['/dwm', ['setup']]],
};

const valueSchema = z.object({ site: z.string().max(64).optional() }).catch({});

export type OpenOutcome = 'opened' | 'refused' | 'hint';

/**
 * Open the flow of `/cmd path…` from a button: openModal, or the handler when no argument is
 * required, or a message naming the command. `given` is passed only for arguments the entry has.
 */
export async function openFromHome(
  ctx: CommandContext,
  targets: Array<[SlashCommand, string[]]>,
  given: Record<string, unknown>,
): Promise<OpenOutcome> {
  for (const [command, path] of targets) {
    const entry = registry.find(command, path);
    if (!entry) continue;
    ctx.command = command;
    const what = fullName(command, entry.path);
    if (entry.role === 'admin') {
      const action = `home.${entry.path.join('.')}`;
      // An entry that opens a modal must not spend the trigger id (3 s) on users.info (review #3).
      const ok = entry.opensModal
        ? await admitToModal(ctx, { what: `run ${what}`, action, title: what })
        : await requireAdmin(ctx, `run ${what}`, action);
      if (!ok) return 'refused';
    }
    const args: Record<string, unknown> = Object.fromEntries(
      Object.entries(given).filter(([k, v]) => v !== undefined && v !== '' && k in entry.args),
    );
    // What the parser gives for arguments not typed: [] for lists and rest words.
    for (const [k, a] of Object.entries(entry.args)) if (!(k in args) && a.list) args[k] = [];
    if (entry.openModal) {
      await entry.openModal(ctx, args as never);
      return 'opened';
    }
    const missing = Object.entries(entry.args).some(
      ([k, a]) => a.required && (args[k] === undefined || (Array.isArray(args[k]) && args[k].length === 0)),
    );
    if (!missing) {
      await entry.handler(ctx, { ...args, share: false } as never);
      return 'opened';
    }
    await ctx.respond(
      message(`Run ${what} in a channel`, [
        section(`Run ${code(registry.usage(command, entry))} in a channel to do this.`),
      ]),
    );
    return 'hint';
  }
  const [command, path] = targets[0]!;
  await ctx.respond(
    message('Not available yet', [
      section(
        `This is not available in this version yet. See ${code(`${command} help`)} for what you can do${path.length ? ` (looked for ${code(fullName(command, path))})` : ''}.`,
      ),
    ]),
  );
  return 'hint';
}

export function register(app: App, deps: AppDeps): void {
  for (const [name, actionId] of Object.entries(HOME_ACTIONS) as Array<[HomeAction, string]>) {
    app.action<BlockAction<ButtonAction>>(actionId, async ({ ack, body, action, client, context }) => {
      await ack();
      // The Home tab is a view: no channel and no response_url (replies go to the DM).
      const ctx = viewContext(deps, { body, client, context });
      let outcome = 'ok';
      try {
        if (name === 'refresh') {
          await refreshHome(deps, ctx.workspace, ctx.userId);
          return;
        }
        if (name === 'watch') {
          // No channel in the Home tab: pick one first (views/home-watch.ts), then the watch form.
          await ctx.openView(watchPickView());
          return;
        }
        const value = valueSchema.parse(safeJson(action.value));
        outcome = await openFromHome(ctx, HOME_TARGETS[name], { site: value.site });
      } catch (err) {
        outcome = 'error';
        ctx.logger.error({ err, refId: ctx.refId, action: actionId }, 'Home button failed');
        await ctx
          .respond(renderError('That did not work', err, { refId: ctx.refId, command: ctx.command }))
          .catch(() => undefined);
      } finally {
        commandsTotal.inc({ command: `home:${name}`, outcome });
      }
    });
  }
}

function safeJson(s: string | undefined): unknown {
  if (!s) return {};
  try {
    return JSON.parse(s);
  } catch {
    return {};
  }
}
