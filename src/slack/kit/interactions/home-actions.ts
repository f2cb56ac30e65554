/**
 * The Home tab's entry points: buttons on the tab that stand for a command of another feature
 * ("Register recipients" opens `/dwm register`). The Home feature renders the buttons and knows
 * nothing of the commands behind them; the feature owning a command declares which entry point it
 * serves (`Feature.homeActions`), and the kit (./registry.ts, a button's `opens`) finds the
 * command in the registry, checks the clicking user against THAT command's role before the
 * button runs, and hands the button the command's entry.
 */
import type { RegisteredEntry, SlashCommand } from '../commands/registry.js';

/** The Home tab's buttons that stand for a command (refresh is the tab's own). */
export const HOME_ENTRY_POINTS = ['register', 'watch', 'trial', 'setup'] as const;
export type HomeEntryPoint = (typeof HOME_ENTRY_POINTS)[number];

/** A feature's declaration: the Home entry point `entry` runs `command path…`. */
export interface HomeAction {
  entry: HomeEntryPoint;
  command: SlashCommand;
  path: readonly string[];
}

/** The declarations of a feature list, by entry point. */
export type HomeActions = ReadonlyMap<HomeEntryPoint, HomeAction>;

/** The command a button opens, found in the registry (what `run` gets as `ButtonArgs.target`). */
export interface CommandTarget {
  command: SlashCommand;
  entry: RegisteredEntry;
}

/** Merge the features' declarations; throws when two features claim one entry point. */
export function homeActionsOf(
  features: ReadonlyArray<{ name: string; homeActions?: readonly HomeAction[] }>,
) {
  const out = new Map<HomeEntryPoint, HomeAction & { feature: string }>();
  for (const f of features) {
    for (const a of f.homeActions ?? []) {
      const prev = out.get(a.entry);
      if (prev) throw new Error(`Home entry point ${a.entry} declared by ${prev.feature} and ${f.name}`);
      out.set(a.entry, { ...a, feature: f.name });
    }
  }
  return out;
}
