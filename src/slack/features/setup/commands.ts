/** `/dwm setup` (and `/drm setup`) opens the setup modal; `setup status` shows what is configured. */
import { maskSecret, setupStatus } from '../../../ops/setup.js';
import { loadCredentials } from '../../../ops/workspace.js';
import { commandList } from '../../kit/commands/registry.js';
import {
  setupDefaults,
  setupFormView,
  setupReadOnlyView,
  setupShareRefused,
  setupStatusMessage,
} from './render.js';

const list = commandList();

list.add({
  command: ['/dwm', '/drm'],
  path: ['setup', 'status'],
  args: {},
  role: 'member',
  summary: 'Show what is configured and when it was last verified (no secrets)',
  examples: ['setup status'],
  async handler(ctx) {
    if (ctx.share) {
      // The card shows masked keys to admins; never posted in a channel, and said so.
      await ctx.audit({ action: 'setup.status', detail: 'refused: share asked', result: 'refused' });
      await ctx.respond(setupShareRefused(ctx.command), { share: false, secret: true });
      return;
    }
    const [status, tz, role] = await Promise.all([
      setupStatus(ctx.deps, ctx.workspace),
      ctx.timeZone(),
      ctx.role(),
    ]);
    await ctx.respond(setupStatusMessage(status, tz, role === 'admin', ctx.command), { secret: true });
  },
});

list.add({
  command: ['/dwm', '/drm'],
  path: ['setup'],
  args: {},
  role: 'admin',
  changesHome: true,
  summary: 'Connect this workspace to the service (site ids and API credentials)',
  description:
    'Opens a form. The credentials are checked live with the service before they are saved (encrypted).',
  examples: ['setup'],
  // The registry's role check waits for users.info only briefly, then opens a "Checking…" modal
  //; ctx.openView below then fills that modal.
  opensModal: true,
  async handler(ctx) {
    // Open first: the trigger id lasts 3 s. Only local reads happen before (a store get of the
    // credentials, and the config): no Slack or service call.
    const loaded = await loadCredentials(ctx.deps, ctx.workspace, { unreadable: 'absent' });
    const defaults = setupDefaults(ctx.deps);
    if (loaded?.readOnly) {
      const status = await setupStatus(ctx.deps, ctx.workspace);
      await ctx.openView(setupReadOnlyView(status, 'UTC', ctx.workspace));
      return;
    }
    const c = loaded?.credentials;
    const savedSecrets: { wmAccessKey?: string; svcSecretKey?: string } = {};
    if (c?.watermarking) savedSecrets.wmAccessKey = maskSecret(c.watermarking.accessKey);
    if (c?.service) savedSecrets.svcSecretKey = maskSecret(c.service.secretKey);
    await ctx.openView(
      setupFormView({
        workspace: ctx.workspace,
        defaults,
        savedSecrets,
        values: c
          ? {
              siteIds: c.siteIds.join(', '),
              defaultSite: c.defaultSiteId,
              wmAccountId: c.watermarking?.accountId ?? '',
              wmBaseUrl: c.watermarking?.baseUrl ?? '',
              svcAccountId: c.service?.accountId ?? '',
              svcAccountSeq: c.service?.accountSeq ?? '',
              svcBaseUrl: c.service?.baseUrl ?? '',
            }
          : {},
      }),
    );
  },
});

/** This file's commands, in help order. */
export const commands = list.done();
