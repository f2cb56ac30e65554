/**
 * The Home tab's buttons. Each opens the existing flow of the command it stands for, through the
 * ONE command registry: the entry's `openModal` (with the site from the button), or its handler
 * when the command needs no argument, or else a direct message saying which command to run. The
 * role is checked again for the clicking user (admin entries), and the workspace is the one the
 * signed payload came from: the button value only carries a site id, re-checked against that
 * workspace's configured sites by the flow it opens.
 */
import { z } from 'zod';
import { message, section } from '../../kit/blocks.js';
import type { CommandContext } from '../../kit/context.js';
import { button } from '../../kit/interactions.js';
import { code } from '../../kit/mrkdwn.js';
import { type CommandRegistry, fullName, type SlashCommand } from '../../kit/registry.js';
import { admitToModal, requireAdmin } from '../../kit/roles.js';
import { refreshHome } from './publish.js';
import { HOME_ACTIONS, type HomeAction } from './render.js';

/** Which command each button stands for (first entry found wins: features may name it either way). */
export const HOME_TARGETS: Record<Exclude<HomeAction, 'refresh'>, Array<[SlashCommand, string[]]>> = {
  register: [
    ['/dwm', ['register']],
    ['/dwm', ['recipients', 'register']],
  ],
  // The plan card (latest request + the buttons to ask for a change), not the request itself: a
  // button on the Home tab must not send a request to the provider without a confirmation step.
  trial: [['/drm', ['plan']]],
  setup: [['/dwm', ['setup']]],
  // No channel in the Home tab: the watch command opens its channel picker first.
  watch: [['/dwm', ['watch']]],
};

const valueSchema = z.object({ site: z.string().max(64).optional() }).catch({});

export type OpenOutcome = 'opened' | 'refused' | 'hint';

/**
 * Open the flow of `/cmd path…` from a button: openModal, or the handler when no argument is
 * required, or a message naming the command. `given` is passed only for arguments the entry has.
 */
export async function openFromHome(
  ctx: CommandContext,
  registry: CommandRegistry,
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
      // An entry that opens a modal must not spend the trigger id (3 s) on users.info .
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
      await entry.openModal(ctx, args);
      return 'opened';
    }
    const missing = Object.entries(entry.args).some(
      ([k, a]) => a.required && (args[k] === undefined || (Array.isArray(args[k]) && args[k].length === 0)),
    );
    if (!missing) {
      await entry.handler(ctx, { ...args, share: false });
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

const homeButton = (name: HomeAction) =>
  button<z.infer<typeof valueSchema>>({
    name: `home.${name}`,
    metric: `home:${name}`,
    actionId: HOME_ACTIONS[name],
    // The Home tab is a view: no channel and no response_url (replies go to the DM).
    surface: 'home',
    value: (raw) => valueSchema.parse(safeJson(raw)),
    tag: () => undefined,
    untagged:
      "a Home button carries at most a site id, which the flow it opens checks against the clicking workspace's configured sites",
    failure: 'That did not work',
    async run(ctx, value, { registry }) {
      if (name === 'refresh') {
        await refreshHome(ctx.deps, ctx.workspace, ctx.userId);
        return;
      }
      await openFromHome(ctx, registry, HOME_TARGETS[name], { site: value.site });
    },
  });

export const homeButtons = (Object.keys(HOME_ACTIONS) as HomeAction[]).map(homeButton);

function safeJson(s: string | undefined): unknown {
  if (!s) return {};
  try {
    return JSON.parse(s);
  } catch {
    return {};
  }
}
