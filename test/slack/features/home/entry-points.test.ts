/**
 * The Home tab's entry points are declared by the features that own the commands behind them
 * (`Feature.homeActions`), not named by Home: each is declared exactly once, by the feature whose
 * command list has that command, and Home has a button for each. A Home button's value that does
 * not parse is unreadable ("out of date"), not read as "no site".
 */
import { describe, expect, it } from 'vitest';
import { readHomeValue } from '../../../../src/slack/features/home/buttons.js';
import { HOME_ACTIONS } from '../../../../src/slack/features/home/render.js';
import { FEATURES, registry } from '../../../../src/slack/features/index.js';
import { HOME_ENTRY_POINTS, homeActionsOf } from '../../../../src/slack/kit/interactions/home-actions.js';

describe('Home entry points', () => {
  it('each is declared by one feature, for a command of its own, and Home has its button', () => {
    const declared = homeActionsOf(FEATURES);
    expect([...declared.keys()].sort()).toEqual([...HOME_ENTRY_POINTS].sort());
    for (const [entry, a] of declared) {
      const found = registry.find(a.command, a.path);
      expect(found, `${entry}: ${a.command} ${a.path.join(' ')}`).toBeDefined();
      const owner = FEATURES.find((f) => f.name === a.feature);
      expect(owner?.commands?.some((c) => c.path.join(' ') === a.path.join(' '))).toBe(true);
      expect(HOME_ACTIONS[entry]).toBeTruthy();
    }
    // Home itself declares none: it names no other feature's command.
    expect(FEATURES.find((f) => f.name === 'home')?.homeActions).toBeUndefined();
  });

  it('a Home button value: none reads as no site, an unreadable one as out of date', () => {
    expect(readHomeValue(undefined)).toEqual({});
    expect(readHomeValue('')).toEqual({});
    expect(readHomeValue(JSON.stringify({ site: 'AB12' }))).toEqual({ site: 'AB12' });
    expect(readHomeValue('{not json')).toBeUndefined();
    expect(readHomeValue(JSON.stringify({ site: 5 }))).toBeUndefined();
    expect(readHomeValue(JSON.stringify({ site: 'x'.repeat(65) }))).toBeUndefined();
  });
});
