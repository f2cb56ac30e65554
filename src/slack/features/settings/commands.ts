/**
 * `/drm settings [site:]` (admin): the DRM integration settings, secrets masked, always
 * ephemeral. `share` is refused: secrets are never posted in a channel, even masked.
 */
import { getSettings } from '../../../ops/service/index.js';
import { cardMetaOf } from '../../kit/blocks/cards.js';
import { commandList } from '../../kit/commands/registry.js';
import { serviceFor, siteOption } from '../../shared/svc/support.js';
import { settingsMessage, settingsShareRefused } from './render.js';

const list = commandList();

list.add({
  command: '/drm',
  path: ['settings'],
  aliases: ['setting'],
  args: { site: siteOption },
  role: 'admin',
  summary: 'Show the DRM integration settings (secrets masked, only to you) and edit callbacks',
  examples: ['settings', 'settings site:AB12'],
  async handler(ctx, args) {
    if (ctx.share) {
      await ctx.audit({ action: 'settings.view', detail: 'refused: share asked', result: 'refused' });
      await ctx.respond(settingsShareRefused(), { share: false, secret: true });
      return;
    }
    const { svc, siteId } = await serviceFor(ctx, args.site);
    const [s, tz] = await Promise.all([getSettings(svc, siteId), ctx.timeZone()]);
    await ctx.respond(
      settingsMessage(s, {
        workspace: ctx.workspace,
        ...cardMetaOf(ctx, tz),
      }),
      { secret: true, share: false },
    );
  },
});

/** This file's commands, in help order. */
export const commands = list.done();
