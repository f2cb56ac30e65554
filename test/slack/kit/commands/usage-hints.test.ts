import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { option, optional, rest, usageOf } from '../../../../src/slack/kit/commands/parse.js';

describe('usage lines', () => {
  const text = z.string();
  it('never doubles brackets or ellipses a hint already carries', () => {
    const usage = usageOf('/x', {
      users: rest(text, { required: true, hint: '@user…', description: 'people' }),
      id: optional(text, { hint: '[user id]', description: 'id' }),
      more: rest(text, { hint: '[drm|fwm] [message]', description: 'product and message' }),
      site: option(text, { hint: '<site id>', description: 'site' }),
    });
    expect(usage).toBe('/x @user… [user id] [drm|fwm] [message…] [site:<site id>]');
  });

  it('still brackets an optional hint and adds the ellipsis of a rest hint that has none', () => {
    expect(usageOf('/x', { status: optional(text, { hint: '<status>', description: 's' }) })).toBe(
      '/x [<status>]',
    );
    expect(usageOf('/x', { names: rest(text, { hint: 'name', description: 'n' }) })).toBe('/x [name…]');
  });
});
