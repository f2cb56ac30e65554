/**
 * The `/drm` (Service API) features' own helpers (the shared ones are in ./support.ts and
 * ../../kit/web/files.ts): the `site:` option, the workspace's Service API client and the site, and the
 * failure of a "Loading…" modal.
 */

import { type ModalView, modal, section } from '../../kit/blocks/blocks.js';
import { option } from '../../kit/commands/parse.js';
import type { CommandContext } from '../../kit/context/context.js';
import { explainError } from '../../kit/context/errors.js';
import { errorOptions, logError } from '../../kit/context/support.js';
import { SVC_VIEWS, siteIdValue } from './values.js';

/** `site:<site id>` of a `/drm` command whose default is not the workspace default site. */
export function siteOptionWith(description: string) {
  return option(siteIdValue, { hint: '<site id>', description });
}

/** `site:<site id>` of the `/drm` commands. */
export const siteOption = siteOptionWith('The site (default: the workspace default site).');

/** A view with one line (Loading…, Saving…, Saved, failures). */
export function infoView(title: string, text: string, close = 'Close'): ModalView {
  return modal(SVC_VIEWS.info, title, [section(text)], { close });
}

/** The workspace's Service API client and the site (`site:` or the default). */
export async function serviceFor(ctx: CommandContext, site?: string) {
  const c = await ctx.clients();
  const siteId = c.site(site);
  return { svc: c.service(), siteId };
}

/**
 * A "Loading…" modal (opened first: the trigger id lasts 3 s) whose read failed: the error is
 * logged as `logWhat`, and the modal says `couldnt`, why and what to do. Never throws.
 */
export async function showLoadFailure(
  ctx: CommandContext,
  viewId: string | undefined,
  title: string,
  couldnt: string,
  logWhat: string,
  err: unknown,
): Promise<void> {
  const opts = await errorOptions(ctx);
  logError(ctx, logWhat, err, opts);
  const ex = explainError(err, opts);
  if (!viewId) return;
  await ctx.client.views
    .update({
      view_id: viewId,
      view: infoView(title, `:warning: ${couldnt}\n${ex.why}\n${ex.next}`),
    })
    .catch(() => undefined);
}
