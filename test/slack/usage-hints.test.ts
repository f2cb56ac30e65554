import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { usageOf } from '../../src/slack/kit/parse.js';

describe('usage lines', () => {
  const text = z.string();
  it('never doubles brackets or ellipses a hint already carries', () => {
    const usage = usageOf('/x', {
      users: { kind: 'rest', required: true, schema: text, hint: '@user…' },
      id: { kind: 'positional', required: false, schema: text, hint: '[user id]' },
      more: { kind: 'rest', required: false, schema: text, hint: '[drm|fwm] [message]' },
      site: { kind: 'option', required: false, schema: text, hint: '<site id>' },
    } as never);
    expect(usage).toBe('/x @user… [user id] [drm|fwm] [message…] [site:<site id>]');
    expect(usage).not.toMatch(/……|\[\[|\]\]/);
  });
});
