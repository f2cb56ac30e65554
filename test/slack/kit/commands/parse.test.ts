import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { editDistance } from '../../../../src/edit-distance.js';
import {
  decodeSlackText,
  listOption,
  option,
  optional,
  ParseError,
  parseArgs,
  quoteValue,
  required,
  rest,
  suggest,
  tokenize,
  usageOf,
  values,
} from '../../../../src/slack/kit/commands/parse.js';

describe('decodeSlackText', () => {
  it('decodes entities after the angle-bracket forms', () => {
    expect(decodeSlackText('a &amp; b &lt;x&gt;')).toBe('a & b <x>');
    expect(decodeSlackText('&lt;@U1&gt;')).toBe('<@U1>');
  });
  it('turns mentions, channels, mailto and links into plain values', () => {
    expect(decodeSlackText('<@U123|bob> <#C999|general> <mailto:a@b.c|a@b.c> <http://x.io/a?b=1|x.io>')).toBe(
      'U123 C999 a@b.c http://x.io/a?b=1',
    );
    expect(decodeSlackText('<@U123> <https://e.com>')).toBe('U123 https://e.com');
    expect(decodeSlackText('<!subteam^S12|@admins> <!here>')).toBe('S12 @here');
  });
});

describe('tokenize', () => {
  it('splits words and options, with quoted values', () => {
    expect(tokenize('jobs status:ready,error content:"a b" share')).toEqual([
      { kind: 'word', value: 'jobs', quoted: false, raw: 'jobs' },
      { kind: 'option', key: 'status', value: 'ready,error', quoted: false, raw: 'status:ready,error' },
      { kind: 'option', key: 'content', value: 'a b', quoted: true, raw: 'content:"a b"' },
      { kind: 'word', value: 'share', quoted: false, raw: 'share' },
    ]);
  });
  it('accepts single and smart quotes', () => {
    expect(tokenize("x:'one two' \u201cthree four\u201d y:\u2018five six\u2019").map((t) => t.value)).toEqual(
      ['one two', 'three four', 'five six'],
    );
  });
  it('keeps URLs as words, not options', () => {
    expect(tokenize('https://example.com/x')).toEqual([
      { kind: 'word', value: 'https://example.com/x', quoted: false, raw: 'https://example.com/x' },
    ]);
  });
  it('handles backslash escapes inside quotes', () => {
    expect(tokenize('"say \\"hi\\" \\\\ ok"')[0]!.value).toBe('say "hi" \\ ok');
  });
  it('says what to fix for an unclosed quote', () => {
    expect(() => tokenize('content:"a b')).toThrow(/never closed.*closing "/);
  });
  it('needs a space after a closing quote', () => {
    expect(() => tokenize('"a"b')).toThrow(ParseError);
  });
  it('property: never throws anything but ParseError', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 60 }), (s) => {
        try {
          tokenize(decodeSlackText(s));
        } catch (e) {
          expect(e).toBeInstanceOf(ParseError);
        }
      }),
      { numRuns: 500 },
    );
  });
  it('a value starting with // is quoted, so it stays an option value (not a URL word)', () => {
    for (const v of ['//', '//x/y', '//share']) {
      expect(quoteValue(v)).toBe(`"${v}"`);
      expect(
        tokenize(`k:${quoteValue(v)}`).map((t) => [t.kind === 'option' ? t.key : undefined, t.value]),
      ).toEqual([['k', v]]);
    }
  });

  it('property: quoted values round-trip, as words and as option values', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 40 }), (v) => {
        const asWord = tokenize(`first ${quoteValue(v)} last`);
        expect(asWord.map((t) => t.value)).toEqual(['first', v, 'last']);
        const asOpt = tokenize(`k:${quoteValue(v)}`);
        expect(asOpt).toHaveLength(1);
        expect(asOpt[0]!.value).toBe(v);
      }),
      { numRuns: 500 },
    );
  });
});

describe('parseArgs', () => {
  const spec = {
    job: required(values.int(1, 10_000_000), { hint: '<job id>', description: 'The job.' }),
    name: optional(z.string(), { hint: '<name>', description: 'A name.' }),
    site: option(z.string().regex(/^[A-Za-z0-9]{4}$/, { error: 'must be a 4-character site id' }), {
      hint: '<site id>',
      description: 'Site.',
    }),
    status: listOption(values.oneOf(['ready', 'error', 'completed']), {
      hint: 'ready|error',
      description: 'S.',
    }),
  };
  it('fills positionals, options, lists (commas and repeats) and share', () => {
    const r = parseArgs(tokenize('42 bob status:ready,ERROR status:completed site:AB12 share'), spec);
    expect(r).toEqual({
      values: { job: 42, name: 'bob', site: 'AB12', status: ['ready', 'error', 'completed'] },
      share: true,
      missing: [],
    });
  });
  it('a quoted "share" is a value, not the flag', () => {
    const r = parseArgs(tokenize('1 "share"'), spec);
    expect(r.share).toBe(false);
    expect(r.values.name).toBe('share');
  });
  it('reports missing required arguments instead of throwing', () => {
    expect(parseArgs(tokenize('site:AB12'), spec).missing).toEqual(['job']);
  });
  it('explains bad values with the schema message', () => {
    expect(() => parseArgs(tokenize('abc'), spec)).toThrow(/`abc` is not valid: job must be a whole number/);
    expect(() => parseArgs(tokenize('1 site:toolong'), spec)).toThrow(/site must be a 4-character site id/);
    expect(() => parseArgs(tokenize('1 status:done'), spec)).toThrow(
      /must be one of ready, error, completed/,
    );
  });
  it('refuses unknown options with a suggestion, repeated single options and extra words', () => {
    expect(() => parseArgs(tokenize('1 stauts:ready'), spec)).toThrow(
      /Unknown option `stauts:`. Did you mean `status:`/,
    );
    expect(() => parseArgs(tokenize('1 site:AB12 site:CD34'), spec)).toThrow(/given twice/);
    expect(() => parseArgs(tokenize('1 a b'), spec)).toThrow(/Unexpected `b`/);
    expect(() => parseArgs(tokenize('1 site:'), spec)).toThrow(/needs a value/);
  });
  it('rest collects remaining words', () => {
    const r = parseArgs(tokenize('a b "c d"'), {
      words: rest(z.string(), { hint: '<word>', description: 'w' }),
    });
    expect(r.values.words).toEqual(['a', 'b', 'c d']);
  });
  it('usage line', () => {
    expect(usageOf('/dwm job', spec)).toBe(
      '/dwm job <job id> [<name>] [site:<site id>] [status:ready|error]',
    );
  });
});

describe('suggest', () => {
  it('edit distance with transpositions', () => {
    expect(editDistance('jobs', 'jbos')).toBe(1);
    expect(editDistance('kitten', 'sitting')).toBe(3);
  });
  it('finds close names and prefixes', () => {
    expect(suggest('jbos', ['jobs', 'job', 'recipients'])[0]).toBe('jobs');
    expect(suggest('recip', ['jobs', 'recipients'])).toEqual(['recipients']);
    expect(suggest('zzzz', ['jobs'])).toEqual([]);
  });
});
