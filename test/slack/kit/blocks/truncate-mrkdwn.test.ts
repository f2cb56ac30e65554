/**
 * Cutting mrkdwn that is already escaped never leaves half an entity, half a `<…>`
 * token or an unclosed code span (each would render as raw text).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { md } from '../../../../src/slack/kit/blocks/blocks.js';
import { code, esc, truncateMrkdwn } from '../../../../src/slack/kit/blocks/mrkdwn.js';

describe('truncateMrkdwn', () => {
  it('returns text within the limit unchanged', () => {
    expect(truncateMrkdwn('a &amp; b', 9)).toBe('a &amp; b');
  });

  it('does not split an entity', () => {
    // "x &amp; y" cut at 5 would end in "x &a…".
    expect(truncateMrkdwn('x &amp; y', 5)).toBe('x \u2026');
  });

  it('does not split a <…> token (date, mention, link)', () => {
    const t = 'Done <!date^1795000000^{date_short_pretty}|2026-11-22> by <@U123>';
    const cut = truncateMrkdwn(t, 20);
    expect(cut).toBe('Done \u2026');
    expect(truncateMrkdwn(t, t.length - 3)).toBe(
      'Done <!date^1795000000^{date_short_pretty}|2026-11-22> by \u2026',
    );
  });

  it('does not leave an inline code span or a code block open', () => {
    expect(truncateMrkdwn('site `DEMO1234` ok', 10)).toBe('site \u2026');
    expect(truncateMrkdwn('a ```line1\nline2``` b', 12)).toBe('a \u2026');
    expect(truncateMrkdwn('`A` and `B`', 9)).toBe('`A` and \u2026');
    // A lone backtick before a closed block: the cut drops the lone tick, never the block's last.
    expect(truncateMrkdwn('` ```a b```  ', 12)).toBe('\u2026');
  });

  it('md() uses it: a section cut at its limit keeps whole tokens', () => {
    const text = `${'x'.repeat(2995)} ${esc('a & b')}`;
    expect(md(text).text.endsWith('\u2026')).toBe(true);
    expect(md(text).text).not.toMatch(/&[a-z]*\u2026$/);
  });

  it('property: the result is at most max long and has no unfinished token', () => {
    const piece = fc.oneof(
      fc.string({ maxLength: 8 }).map(esc),
      fc.string({ maxLength: 8 }).map((s) => code(s)),
      fc.constantFrom('<@U123ABC>', '<!date^1^{time}|x>', '&amp;', '&lt;', '```a b```'),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 30 }), fc.integer({ min: 1, max: 120 }), (parts, max) => {
        const text = parts.join(' ');
        const out = truncateMrkdwn(text, max);
        expect(out.length).toBeLessThanOrEqual(max);
        if (out === text) return;
        const body = out.slice(0, -1);
        expect(body).not.toMatch(/&[a-zA-Z#0-9]*$/);
        expect(body.lastIndexOf('<')).toBeLessThanOrEqual(body.lastIndexOf('>'));
        expect((body.split('```').length - 1) % 2).toBe(0);
        expect((body.replace(/```/g, '').split('`').length - 1) % 2).toBe(0);
      }),
    );
  });
});
