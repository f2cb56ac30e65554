/**
 * The `/drm` (Service API) listeners' own helper (the shared ones are in ../support.ts and
 * ../../files.ts): the workspace's Service API client and the site.
 */
import type { CommandContext } from '../../context.js';

/** The workspace's Service API client and the site (`site:` or the default). */
export async function serviceFor(ctx: CommandContext, site?: string) {
  const c = await ctx.clients();
  const siteId = c.site(site);
  return { svc: c.service(), siteId };
}
