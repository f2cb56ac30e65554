/**
 * `/dwm register` opens the registration form; `/dwm register name1 name2 …` checks those names
 * at once: a "Checking…" modal opens with the trigger id (before any service call), then the
 * preview replaces it. Open to members (the project's rule: members register and edit
 * recipients); audited when it runs.
 */
import { newDraftId, type RegistrationDraft } from '../../../ops/watermarking/registration/records.js';
import { rest, values } from '../../kit/commands/parse.js';
import { commandList } from '../../kit/commands/registry.js';
import { wmSiteOption } from '../../shared/wm/values.js';
import { openRegisterForm, planIntoView } from './modals.js';
import { registerCheckingView } from './render.js';

const list = commandList();

list.add({
  command: '/dwm',
  path: ['register'],
  args: {
    names: rest(values.text(200), {
      hint: 'names',
      description: 'A few names to register at once (no descriptions). Without names, a form opens.',
    }),
    site: wmSiteOption,
  },
  role: 'member',
  // Run alone (or from Home) it opens a form: never queued behind other commands (trigger id: 3 s).
  opensModal: true,
  summary: 'Register recipients: a form for a list or a CSV file, or a few names inline (preview first)',
  description:
    'Shows a preview (new, already registered, duplicates, invalid lines) before anything is sent. Large lists: upload a CSV (name,description) in the form.',
  examples: ['register', 'register Netflix-EMEA hbo.max_us', 'register site:AB12'],
  async handler(ctx, args) {
    // Local reads only before the modal opens (the trigger id lasts 3 s).
    const c = await ctx.clients();
    const site = c.site(args.site);
    if (args.names.length === 0) {
      await openRegisterForm(ctx, site, c.siteIds);
      return;
    }
    const viewId = await ctx.openView(registerCheckingView());
    if (!viewId) return;
    const draft: RegistrationDraft = {
      id: newDraftId(),
      userId: ctx.userId,
      siteId: site,
      text: args.names.join('\n'),
      createdAt: new Date(ctx.deps.now()).toISOString(),
    };
    await planIntoView(ctx.deps, ctx, ctx.client, viewId, draft);
  },
});

/** This file's commands, in help order. */
export const commands = list.done();
