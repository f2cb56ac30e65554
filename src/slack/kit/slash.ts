/**
 * `/dwm` and `/drm`: ack at once (empty ack: Slack shows nothing), then dispatch through the
 * registry. The dispatcher answers every outcome itself (help, errors, refusals).
 */
import type { App } from '@slack/bolt';
import type { AppDeps } from '../deps.js';
import { createContext } from './context.js';
import { type CommandRegistry, SLASH_COMMANDS } from './registry.js';

export function registerSlashCommands(app: App, deps: AppDeps, registry: CommandRegistry): void {
  for (const command of SLASH_COMMANDS) {
    app.command(command, async ({ ack, command: body, client, respond, context }) => {
      await ack();
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
      await registry.dispatch(ctx, body.text ?? '', { responseUrl: body.response_url });
    });
  }
}
