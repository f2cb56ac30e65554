/**
 * `/drm fpscert [site:]` (admin): opens the FairPlay certificate modal at once (no service call
 * before it: the trigger id lasts 3 s). The submission is handled in modal.ts.
 */
import { commandList } from '../../kit/commands/registry.js';
import { siteOption } from '../../shared/svc/support.js';
import { fpsCertModal } from './render.js';

const list = commandList();

list.add({
  command: '/drm',
  path: ['fpscert'],
  args: { site: siteOption },
  role: 'admin',
  summary: 'Register the FairPlay Streaming certificate of a site (certificate, key and ASK/password files)',
  examples: ['fpscert', 'fpscert site:AB12'],
  // The role check waits for users.info only briefly, then opens a "Checking…" modal.
  opensModal: true,
  async handler(ctx, args) {
    // Local only before opening (a store read): the site is checked against the saved credentials.
    const siteId = (await ctx.clients()).site(args.site);
    await ctx.openView(fpsCertModal(siteId, JSON.stringify({ w: ctx.workspace, s: siteId })));
  },
});

/** This file's commands, in help order. */
export const commands = list.done();
