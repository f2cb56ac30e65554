/**
 * `/dwm` and `/drm`: ack at once (empty ack: Slack shows nothing), then dispatch through the
 * registry. The dispatcher answers every outcome itself (help, errors, refusals).
 *
 * After the ack, a command that opens a form (its entry declares `opensModal`, or a required
 * argument is missing and a form will ask for it) is dispatched at once: the trigger id lasts 3 s.
 * Every other command waits for a slot in the app's handler queue (./handler-queue.ts); when the
 * queue is full the user is told the bot is busy and to try again, so no command goes unanswered.
 * The listener resolves when the handler has finished, so the drain at shutdown (../../drain.ts)
 * counts queued commands as in flight.
 *
 * One Bolt listener for both commands: Bolt runs every listener's matcher chain per request.
 */
import type { App, RespondFn } from '@slack/bolt';
import { commandsTotal } from '../../../metrics.js';
import type { AppDeps } from '../../deps.js';
import { createContext } from '../context/context.js';
import type { SlashCommand } from '../context/types.js';
import { handlerQueue } from './handler-queue.js';
import { decodeSlackText, parseArgs, tokenize } from './parse.js';
import { type CommandRegistry, SLASH_COMMANDS } from './registry.js';

export const BUSY_TEXT = (command: string) =>
  `:hourglass_flowing_sand: DRM ChatOps is busy with other requests right now, so your \`${command}\` was not run. Try it again in a minute.`;

/**
 * Will dispatching `text` open a modal with the trigger id? True for an entry that declares
 * `opensModal`, and for a missing required argument that a form will ask for. Pure; false when
 * the text does not resolve to an entry or does not parse (those are answered with a message).
 */
export function opensForm(registry: CommandRegistry, command: SlashCommand, text: string): boolean {
  try {
    const r = registry.resolve(command, tokenize(decodeSlackText(text)));
    if (r.kind !== 'entry') return false;
    if (r.entry.opensModal) return true;
    if (r.entry.onMissing === 'error') return false;
    return parseArgs(r.rest, r.entry.args).missing.length > 0;
  } catch {
    return false;
  }
}

const COMMAND_NAME = new RegExp(`^(?:${SLASH_COMMANDS.map((c) => c.replace('/', '\\/')).join('|')})$`);

export function registerSlashCommands(app: App, deps: AppDeps, registry: CommandRegistry): void {
  const queue = handlerQueue(deps);
  app.command(COMMAND_NAME, async ({ ack, command: body, client, respond, context }) => {
    await ack();
    const command = body.command as SlashCommand;
    const text = body.text ?? '';
    const run = () => {
      const ctx = createContext({
        deps,
        client,
        teamId: body.team_id || context.teamId,
        enterpriseId: body.enterprise_id || context.enterpriseId,
        isEnterpriseInstall: body.is_enterprise_install === 'true' || context.isEnterpriseInstall,
        userId: body.user_id,
        channelId: body.channel_id,
        triggerId: body.trigger_id,
        command,
        respond,
      });
      // The response_url travels with a "fill in what is missing" form (answers go back here).
      return registry.dispatch(ctx, text, { responseUrl: body.response_url });
    };
    if (opensForm(registry, command, text)) {
      await run();
      return;
    }
    const outcome = await queue.run(run);
    if (outcome === 'busy') await answerBusy(deps, respond, command);
    // 'cancelled': shutdown closed the queue; the drain told the user the bot is restarting.
  });
}

async function answerBusy(deps: AppDeps, respond: RespondFn, command: SlashCommand): Promise<void> {
  commandsTotal.inc({ command, outcome: 'busy' });
  deps.logger.warn({ command }, 'command queue full: told the user to try again');
  try {
    await respond({ response_type: 'ephemeral', text: BUSY_TEXT(command) });
  } catch (err) {
    deps.logger.warn({ err }, 'could not tell a user that the bot is busy');
  }
}
