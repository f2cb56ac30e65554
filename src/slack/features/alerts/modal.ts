/**
 * Submission of the `/drm alerts watch` form: inline errors for bad values (the ops' own parser),
 * then "Saving…", then the outcome (subscribed, invite instructions, or a refusal) in the same
 * modal. The metadata names the form's workspace (checked by the kit) and its channel; membership
 * is checked again here (a member may subscribe only a channel they are in; admins: any).
 */
import type { ViewOutput } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import { z } from 'zod';
import { parseAlertArgs } from '../../../ops/alerts.js';
import { isChannelMember } from '../../kit/context/channels/access.js';
import type { CommandContext } from '../../kit/context/context.js';
import { issuesOr } from '../../kit/interactions/form-errors.js';
import { modal } from '../../kit/interactions/registry.js';
import { subscribe, watchTokens } from './commands.js';
import { ALERTS_BLOCK, ALERTS_MODAL_CALLBACK, alertsResultView, alertsSavingView } from './render.js';

interface StateValue {
  value?: string | null;
  selected_option?: { value?: string } | null;
}

/** The form as `/drm alerts watch` tokens. */
export function alertsFormTokens(view: ViewOutput): string[] {
  const v = (block: string) => (view.state.values[block]?.value ?? {}) as StateValue;
  const text = (block: string) => {
    const t = v(block).value?.trim();
    return t ? t : undefined;
  };
  return watchTokens({
    site: v(ALERTS_BLOCK.site).selected_option?.value || undefined,
    ratio: text(ALERTS_BLOCK.ratio) ?? '',
    min: text(ALERTS_BLOCK.min) ?? '',
    window: text(ALERTS_BLOCK.window) ?? '',
  });
}

const BLOCK_OF: Record<string, string> = {
  site: ALERTS_BLOCK.site,
  ratio: ALERTS_BLOCK.ratio,
  min: ALERTS_BLOCK.min,
  window: ALERTS_BLOCK.window,
};

/** Is the user in the channel? A DM: only their own conversation with the bot. */
async function inChannel(ctx: CommandContext, client: WebClient, channelId: string): Promise<boolean> {
  if (channelId.startsWith('D')) {
    return (await client.conversations.open({ users: ctx.userId })).channel?.id === channelId;
  }
  return (await isChannelMember(client, channelId, ctx.userId)) === 'yes';
}

const metaSchema = z.object({ w: z.string().min(1), c: z.string().regex(/^[CGD][A-Z0-9]{2,}$/) });
type Meta = z.infer<typeof metaSchema>;

export const alertsFormModal = modal<Meta, ReturnType<typeof parseAlertArgs>['args']>({
  name: 'alerts.watch',
  command: '/drm',
  callbackId: ALERTS_MODAL_CALLBACK,
  meta: metaSchema,
  stale: { block: ALERTS_BLOCK.ratio, text: 'This form is out of date: run /drm alerts watch again.' },
  ackView: () => alertsSavingView(),
  changesHome: true,
  failure: "Couldn't set up license-failure alerts",
  check(_ctx, _meta, view) {
    const parsed = parseAlertArgs(alertsFormTokens(view));
    return issuesOr(parsed.issues, parsed.args, BLOCK_OF, ALERTS_BLOCK.ratio);
  },
  // A failure (thrown) brings the form back with what was entered and the failure on top (the kit).
  async submit(ctx, meta, args, { client }) {
    const member = await inChannel(ctx, client, meta.c);
    return { view: alertsResultView(await subscribe(ctx, meta.c, args, member)) };
  },
});
