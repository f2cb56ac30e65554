import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  code,
  dateToken,
  esc,
  neutralise,
  truncate,
  userMention,
} from '../../../../src/slack/kit/blocks/mrkdwn.js';
import { formatTime } from '../../../../src/time.js';

describe('escape (esc)', () => {
  it('escapes &, <, > and neutralises bidi/control characters', () => {
    expect(esc('<!channel> & <@U1>')).toBe('&lt;!channel&gt; &amp; &lt;@U1&gt;');
    expect(esc('abc\u202Etxt.exe')).toBe('abc\uFFFDtxt.exe');
    expect(neutralise('a\u0007b\tc\n')).toBe('a\uFFFDb\tc\n');
  });
  it('neutralises every bidi, zero-width, separator and tag character', () => {
    const hostile = [
      '\u061c', // Arabic letter mark
      '\u200e',
      '\u200f',
      '\u202a',
      '\u202e',
      '\u2066',
      '\u2069', // bidi marks, overrides, isolates
      '\u00ad',
      '\u180e',
      '\u200b',
      '\u200d',
      '\u2060',
      '\u2064',
      '\ufeff', // invisible
      '\u2028',
      '\u2029', // line / paragraph separators
      '\u{e0000}',
      '\u{e0041}',
      '\u{e007f}', // tag characters
    ];
    for (const h of hostile) {
      expect(neutralise(`a${h}b`), `U+${h.codePointAt(0)!.toString(16)}`).toBe('a\uFFFDb');
    }
    // Ordinary text outside those ranges is kept, astral characters included.
    expect(esc('caf\u00e9 \u{1F600} \u05d0')).toBe('caf\u00e9 \u{1F600} \u05d0');
  });
  it('property: no <!, <@, <# or raw < > survives any string', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 80 }), (s) => {
        const out = esc(s);
        expect(out).not.toMatch(/[<>]/);
        expect(out).not.toMatch(/<[!@#]/);
        expect(out).not.toMatch(/[\u202a-\u202e\u2066-\u2069]/);
        // & only as an entity we produced
        expect(out.replace(/&(amp|lt|gt);/g, '')).not.toContain('&');
      }),
      { numRuns: 300 },
    );
  });
});

describe('code', () => {
  it('replaces backticks and newlines and escapes', () => {
    expect(code('a`b\nc<d>')).toBe('`a\u02cbb c&lt;d&gt;`');
    expect(code('')).toBe('`(empty)`');
    expect(code(4812)).toBe('`4812`');
  });
  it('property: exactly two backticks', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 50 }), (s) => {
        expect(code(s).split('`').length).toBe(3);
      }),
    );
  });
});

describe('truncate', () => {
  it('cuts with an ellipsis and never splits a surrogate pair', () => {
    expect(truncate('hello world', 5)).toBe('hell\u2026');
    expect(truncate('short', 10)).toBe('short');
    const emoji = '\u{1F600}'.repeat(5); // 10 UTF-16 units
    const t = truncate(emoji, 4);
    expect(t).toBe('\u{1F600}\u2026');
    expect(t.length).toBeLessThanOrEqual(4);
  });
  it('property: result within the limit and well-formed', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 100 }),
        fc.integer({ min: 1, max: 50 }),
        (s, n) => {
          const t = truncate(s, n);
          expect(t.length).toBeLessThanOrEqual(Math.max(n, 0));
          // no lone surrogate
          expect(t).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
        },
      ),
    );
  });
});

describe('dateToken', () => {
  it('renders a Slack date token with a fallback in the user zone', () => {
    const ms = Date.UTC(2026, 10, 22, 5, 5, 0);
    expect(dateToken(ms, 'Asia/Seoul')).toBe(
      '<!date^1795323900^{date_short_pretty} {time}|2026-11-22 14:05 Asia/Seoul>',
    );
    expect(formatTime(ms, 'Not/AZone')).toBe('2026-11-22 05:05 UTC');
  });
});

describe('userMention', () => {
  it('mentions only valid user ids', () => {
    expect(userMention('U123ABC')).toBe('<@U123ABC>');
    expect(userMention('<!channel>')).toBe('&lt;!channel&gt;');
  });
});
