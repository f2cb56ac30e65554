/** The secrets file of `/drm fpscert` (ASK and key password): tolerant reading, clear problems, no echo. */
import { describe, expect, it } from 'vitest';
import { parseSecretsFile } from '../../../../src/slack/features/fpscert/secrets-file.js';

const bytes = (s: string) => new TextEncoder().encode(s);
const parse = (s: string) => parseSecretsFile(bytes(s));

describe('parseSecretsFile', () => {
  it.each([
    ['the documented form', 'ASK=abc123\nPASSWORD=pw secret\n'],
    ['names in any case, colons, spaces', '  ask : abc123 \r\n password:pw secret\r\n'],
    [
      'quotes, comments, blank lines, BOM, no final newline',
      '\uFEFF# FairPlay\n\nASK="abc123"\nKEY_PW=\'pw secret\'',
    ],
    ['key_password as the name', 'Key_Password = pw secret\nAsk = abc123\n'],
  ])('%s', (_name, text) => {
    expect(parse(text)).toEqual({ ok: { ask: 'abc123', password: 'pw secret' } });
  });

  it('keeps spaces inside quotes (a password may start or end with one)', () => {
    expect(parse('ASK=a1\nPASSWORD=" pw "\n')).toEqual({ ok: { ask: 'a1', password: ' pw ' } });
  });

  it('a file without a password line says what to add', () => {
    const r = parse('ASK=abc123\n');
    expect(r).toEqual({ problems: [expect.stringContaining('no PASSWORD line')] });
  });

  it('a password over 32 bytes (UTF-8) is refused with the limit', () => {
    const r = parse(`ASK=abc123\nPASSWORD=${'é'.repeat(17)}\n`);
    expect(r).toEqual({
      problems: [expect.stringMatching(/password in the secrets file is 34 bytes; the limit is 32/)],
    });
    expect(parse(`ASK=abc123\nPASSWORD=${'p'.repeat(32)}\n`)).toMatchObject({
      ok: { password: 'p'.repeat(32) },
    });
  });

  it('empty values, a long ASK and duplicates are problems', () => {
    expect(parse('ASK=\nPASSWORD=\n')).toEqual({
      problems: [
        expect.stringContaining('ASK in the secrets file is empty'),
        expect.stringContaining('empty'),
      ],
    });
    expect(parse(`ASK=${'a'.repeat(257)}\nPASSWORD=p\n`)).toEqual({
      problems: [expect.stringContaining('longer than 256')],
    });
    expect(parse('ASK=a\nASK=b\nPASSWORD=p\n')).toEqual({
      problems: [expect.stringContaining('two ASK lines')],
    });
  });

  it('a line in another format is named by its number only, never quoted', () => {
    const r = parse('ASK=abc123\nthe password is hunter2secret\n');
    expect(r).toMatchObject({ problems: expect.arrayContaining([expect.stringContaining('Line 2')]) });
    expect(JSON.stringify(r)).not.toContain('hunter2secret');
    expect(JSON.stringify(parse('ASK=abc123\nTOKEN=hunter2secret\nPASSWORD=p'))).not.toContain(
      'hunter2secret',
    );
  });

  it('a private key or a binary file attached here is refused with what to attach instead', () => {
    expect(parse('-----BEGIN PRIVATE KEY-----\nMIIabc\n-----END PRIVATE KEY-----\n')).toEqual({
      problems: [expect.stringContaining('holds a private key')],
    });
    expect(parseSecretsFile(new Uint8Array([0xff, 0xfe, 0x00, 0x41]))).toEqual({
      problems: [expect.stringContaining('not UTF-8 text')],
    });
  });
});
