/**
 * The Home tab's buttons. Each entry point (./render.ts HOME_ACTIONS) opens the existing flow of
 * the command a feature declares for it (`Feature.homeActions`, kit/interactions/home-actions.ts): the kit
 * finds the command in the ONE registry and checks the clicking user against that command's role
 * (admin entries; the trigger-id-safe check when it opens a form) before `run`, which then calls
 * the entry's `openModal` (with the site from the button), or its handler when the command needs no
 * argument, or else answers with the command to run. The workspace is the one the signed payload
 * came from: the button value only carries a site id, re-checked against that workspace's
 * configured sites by the flow it opens. Home names no other feature's command.
 */
import { z } from 'zod';
import { message, section } from '../../kit/blocks/blocks.js';
import { code } from '../../kit/blocks/mrkdwn.js';
import { decodeValue } from '../../kit/blocks/values.js';
import { type CommandRegistry, fullName } from '../../kit/commands/registry.js';
import type { CommandContext } from '../../kit/context/context.js';
import type { CommandTarget, HomeEntryPoint } from '../../kit/interactions/home-actions.js';
import { button } from '../../kit/interactions/registry.js';
import { refreshHome } from './publish.js';
import { HOME_ACTIONS, type HomeAction } from './render.js';

const valueSchema = z.object({ site: z.string().max(64).optional() });
type HomeValue = z.infer<typeof valueSchema>;

/**
 * A Home button's value: none (Refresh, Setup) reads as no site; one that does not parse (tampered,
 * from another version) is unreadable, so the kit answers "out of date" like every other button.
 */
export function readHomeValue(raw: string | undefined): HomeValue | undefined {
  return raw === undefined || raw === '' ? {} : decodeValue(valueSchema, raw);
}

export type OpenOutcome = 'opened' | 'hint';

/**
 * Open the flow of the command a button stands for (the kit checked the role already): openModal,
 * or the handler when no argument is required, or a message naming the command. `given` is passed
 * only for arguments the entry has. No command declared for the entry point: says so.
 */
export async function openFromHome(
  ctx: CommandContext,
  registry: CommandRegistry,
  target: CommandTarget | undefined,
  given: Record<string, unknown>,
): Promise<OpenOutcome> {
  if (!target) {
    await ctx.respond(
      message('Not available yet', [
        section(
          `This is not available in this version yet. See ${code(`${ctx.command} help`)} for what you can do.`,
        ),
      ]),
    );
    return 'hint';
  }
  const { command, entry } = target;
  const what = fullName(command, entry.path);
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

const common = (name: HomeAction) => ({
  name: `home.${name}`,
  metric: `home:${name}`,
  actionId: HOME_ACTIONS[name],
  // The Home tab is a view: no channel and no response_url (replies go to the DM).
  surface: 'home' as const,
  value: readHomeValue,
  tag: () => undefined,
  untagged:
    "a Home button carries at most a site id, which the flow it opens checks against the clicking workspace's configured sites",
  failure: 'That did not work',
});

/** An entry point: the kit checks the role of the command it stands for, then its flow opens. */
const entryButton = (name: HomeEntryPoint) =>
  button<HomeValue>({
    ...common(name),
    opens: name,
    refusal: (_v, target) => {
      const what = target ? fullName(target.command, target.entry.path) : `the Home ${name} button`;
      return { what: `run ${what}`, action: `home.${target?.entry.path.join('.') ?? name}`, title: what };
    },
    async run(ctx, value, { registry, target }) {
      await openFromHome(ctx, registry, target, { site: value.site });
    },
  });

const refreshButton = button<HomeValue>({
  ...common('refresh'),
  async run(ctx) {
    await refreshHome(ctx.deps, ctx.workspace, ctx.userId);
  },
});

export const homeButtons = [
  ...(Object.keys(HOME_ACTIONS) as HomeAction[]).flatMap((n) => (n === 'refresh' ? [] : [entryButton(n)])),
  refreshButton,
];
