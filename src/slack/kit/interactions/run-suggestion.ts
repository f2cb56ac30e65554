/**
 * The button of a typo reply ("No `jbos` command. Did you mean `/dwm jobs`?"): it runs the
 * suggested command exactly as if it had been typed, through the registry's dispatch (the user
 * check, the command's role, its handler and audit), answering where the button is.
 */
import { z } from 'zod';
import { RUN_SUGGESTION_ACTION } from '../commands/help.js';
import { button, type Interaction } from './registry.js';

const suggestionValue = z.object({
  w: z.string().max(64),
  /** The command text: `/dwm jobs status:error`. */
  t: z
    .string()
    .min(2)
    .max(1600)
    .regex(/^\/(dwm|drm)( |$)/),
});

export const runSuggestion: Interaction = button({
  name: 'run-suggestion',
  actionId: new RegExp(`^${RUN_SUGGESTION_ACTION}_\\d$`),
  value: suggestionValue,
  failure: "Couldn't run the suggested command",
  async run(ctx, v, { registry }) {
    const command = v.t.slice(0, 4) as '/dwm' | '/drm';
    ctx.command = command;
    await registry.dispatch(ctx, v.t.slice(5));
  },
});
