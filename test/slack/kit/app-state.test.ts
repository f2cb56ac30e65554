/** Per-app state (kit/app-state.ts): one state per configuration object, created on first use. */
import { describe, expect, it } from 'vitest';
import { appState } from '../../../src/slack/kit/app-state.js';

describe('appState', () => {
  it('gives each app its own state, the same for every deps derived from its config', () => {
    let created = 0;
    const stateOf = appState((deps: { config: object; name: string }) => {
      created += 1;
      return { createdFor: deps.name, items: new Set<string>() };
    });
    const one = { config: {}, name: 'one' };
    const two = { config: {}, name: 'two' };
    stateOf(one).items.add('x');
    expect(stateOf({ ...one, name: 'derived' })).toBe(stateOf(one));
    expect(stateOf(one).createdFor).toBe('one');
    expect(stateOf(two).items.size).toBe(0);
    expect(stateOf(two)).not.toBe(stateOf(one));
    expect(created).toBe(2);
  });
});
