/**
 * Submission of the `/dwm watch` form: inline errors for bad values, then "Saving…", then the
 * result (subscribed, invite instructions, or a refusal) in the same modal. The metadata names the
 * form's workspace (checked by the kit) and its channel, which is checked again here: a member may
 * subscribe only a channel they are in (admins: any), as the Home picker checks.
 */
import type { ViewOutput } from '@slack/bolt';
import { z } from 'zod';
import { parseWatchArgs } from '../../../watch/index.js';
import { modal as modal_, section } from '../../kit/blocks/blocks.js';
import { issuesOr } from '../../kit/interactions/form-errors.js';
import { modal } from '../../kit/interactions/registry.js';
import { mayWatchChannel } from './home-pick.js';
import {
  notInChannelText,
  WATCH_BLOCK,
  WATCH_MODAL_CALLBACK,
  watchModalDone,
} from './render-subscriptions.js';
import { subscribeChannel } from './shared.js';

interface StateValue {
  value?: string | null;
  selected_option?: { value?: string } | null;
  selected_options?: Array<{ value?: string }> | null;
}

/** The form as `/dwm watch` tokens (so the command and the form share one parser). */
export function watchFormTokens(view: ViewOutput): string[] {
  const v = (block: string) => (view.state.values[block]?.value ?? {}) as StateValue;
  const tokens: string[] = [];
  const site = v(WATCH_BLOCK.site).selected_option?.value;
  if (site) tokens.push(`site:${site}`);
  const statuses = (v(WATCH_BLOCK.statuses).selected_options ?? []).map((o) => o.value).filter(Boolean);
  if (statuses.length) tokens.push(`status:${statuses.join(',')}`);
  const content = v(WATCH_BLOCK.content).value?.trim();
  if (content) tokens.push(`content:${content}`);
  const mode = v(WATCH_BLOCK.mode).selected_option?.value;
  if (mode) tokens.push(`mode:${mode}`);
  return tokens;
}

const BLOCK_OF: Record<string, string> = {
  site: WATCH_BLOCK.site,
  status: WATCH_BLOCK.statuses,
  content: WATCH_BLOCK.content,
  mode: WATCH_BLOCK.mode,
};

/** The form's metadata: its workspace and the channel it subscribes. */
const metaSchema = z.object({ w: z.string().min(1), c: z.string().regex(/^[CGD][A-Z0-9]{2,}$/) });
type Meta = z.infer<typeof metaSchema>;

export const watchFormModal = modal<Meta, ReturnType<typeof parseWatchArgs>>({
  name: 'watch.create',
  callbackId: WATCH_MODAL_CALLBACK,
  meta: metaSchema,
  stale: { block: WATCH_BLOCK.site, text: 'Run /dwm watch in the channel again.' },
  ackView: () => modal_('watch_saving', 'Watch jobs', [section(':hourglass_flowing_sand: Saving…')]),
  changesHome: true,
  failure: "Couldn't watch jobs",
  check(_ctx, _meta, view) {
    const parsed = parseWatchArgs(watchFormTokens(view));
    return issuesOr(parsed.issues, parsed, BLOCK_OF, WATCH_BLOCK.content);
  },
  // A failure (thrown) brings the form back with what was chosen and the failure on top (the kit).
  async submit(ctx, meta, parsed, { client }) {
    const channelId = meta.c;
    // The channel came back from the client: the member may still only subscribe a channel
    // they are in, as when the form was opened (the picker's rule; admins: any channel).
    const allowed = await mayWatchChannel(ctx, client, channelId, 'the watch form');
    const r =
      allowed === 'ok'
        ? await subscribeChannel(ctx, channelId, parsed.siteId, parsed.filters)
        : {
            ok: false as const,
            message: { text: notInChannelText(channelId, await ctx.admins()) },
          };
    return {
      view: r.ok
        ? watchModalDone(r.subscription, r.outcome)
        : modal_('watch_result', 'Watch jobs', (r.message.blocks ?? [section(r.message.text)]).slice(0, 10)),
    };
  },
});
