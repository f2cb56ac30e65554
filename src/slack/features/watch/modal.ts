/**
 * Submission of the `/dwm watch` form: inline errors for bad values, then "Saving…", then the
 * result (subscribed, invite instructions, or a refusal) in the same modal.
 */
import type { App, SlackViewAction, ViewOutput } from '@slack/bolt';
import type { ValidationIssue } from '../../../api/errors.js';
import { parseWatchArgs } from '../../../watch/index.js';
import type { AppDeps } from '../../deps.js';
import { modal, section } from '../../kit/blocks.js';
import { createContext } from '../../kit/context.js';
import { renderError } from '../../kit/errors.js';
import { payloadIdentity } from '../../kit/support.js';
import { WATCH_BLOCK, WATCH_MODAL_CALLBACK, watchModalDone } from './render-subscriptions.js';
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

function inlineErrors(issues: ValidationIssue[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const i of issues) {
    const b = BLOCK_OF[i.field] ?? WATCH_BLOCK.content;
    out[b] ??= i.message.slice(0, 150);
  }
  return out;
}

export function register(app: App, deps: AppDeps): void {
  app.view<SlackViewAction>(WATCH_MODAL_CALLBACK, async ({ ack, body, view, client, context }) => {
    let channelId = '';
    try {
      const meta = JSON.parse(view.private_metadata || '{}') as { c?: unknown };
      if (typeof meta.c === 'string' && /^[CGD][A-Z0-9]{2,}$/.test(meta.c)) channelId = meta.c;
    } catch {
      channelId = '';
    }
    const parsed = parseWatchArgs(watchFormTokens(view));
    if (!channelId || parsed.issues.length) {
      await ack({
        response_action: 'errors',
        errors: channelId
          ? inlineErrors(parsed.issues)
          : { [WATCH_BLOCK.site]: 'Run /dwm watch in the channel again.' },
      });
      return;
    }
    await ack({
      response_action: 'update',
      view: modal('watch_saving', 'Watch jobs', [section(':hourglass_flowing_sand: Saving…')]) as never,
    });
    const ctx = createContext({ deps, client, ...payloadIdentity(body, context) });
    try {
      const r = await subscribeChannel(ctx, channelId, parsed.siteId, parsed.filters);
      const v = r.ok
        ? watchModalDone(r.subscription, r.outcome)
        : modal('watch_result', 'Watch jobs', (r.message.blocks ?? [section(r.message.text)]).slice(0, 10));
      await client.views.update({ view_id: view.id, view: v as never });
    } catch (e) {
      const err = renderError("Couldn't watch jobs", e, {
        refId: ctx.refId,
        admins: await ctx.admins().catch(() => 'a workspace admin'),
      });
      if (!(e instanceof Error && /NotConfigured|SiteNotConfigured/.test(e.name)))
        ctx.logger.error({ err: e, refId: ctx.refId }, 'watch form failed');
      await client.views
        .update({ view_id: view.id, view: modal('watch_result', 'Watch jobs', err.blocks ?? []) as never })
        .catch((x: unknown) =>
          ctx.logger.error({ err: x, refId: ctx.refId }, 'could not update the watch view'),
        );
    }
  });
}
