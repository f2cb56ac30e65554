/**
 * The FairPlay private key's shape check: PEM blocks a key can be are accepted, others refused, and
 * the check visits every character a bounded number of times (counted, never timed), also on the
 * files that made a backtracking pattern quadratic: a key without its END line, a key followed by
 * a certificate, megabytes of one line.
 */
import { describe, expect, it } from 'vitest';
import { checkFpsCertUpload, checkPemPrivateKey, FPS_KEY_MAX_BYTES } from '../../../src/ops/service/index.js';

const body = 'MIICdgIBADANBgkqhkiG9w0BAQEFAASCAmAwggJcAgEAAoGBAL2x\nQ2VydGlmaWNhdGUgYm9keQ==\n';
const block = (label: string, inner = body) => `-----BEGIN ${label}-----\n${inner}-----END ${label}-----\n`;

describe('checkPemPrivateKey', () => {
  it.each([
    ['PKCS#8', block('PRIVATE KEY')],
    ['PKCS#1', block('RSA PRIVATE KEY')],
    ['encrypted PKCS#8', block('ENCRYPTED PRIVATE KEY')],
    [
      'old encrypted PKCS#1 with headers and a blank line',
      block('RSA PRIVATE KEY', `Proc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,0123456789ABCDEF\n\n${body}`),
    ],
  ])('accepts a %s key', (_n, pem) => {
    expect(checkPemPrivateKey(pem).ok).toBe(true);
  });

  it.each([
    ['no END line', `-----BEGIN PRIVATE KEY-----\n${body}`],
    ['an END line of another label', `-----BEGIN PRIVATE KEY-----\n${body}-----END RSA PRIVATE KEY-----\n`],
    ['a certificate', block('CERTIFICATE')],
    ['a lower-case label', block('private key')],
    ['a body of less than 16 base64 characters in a row', block('PRIVATE KEY', 'MIICdgIBADANBgk\n')],
    ['one line', '-----BEGIN PRIVATE KEY-----\n'],
    ['text after the END line (a key and its certificate)', `${block('PRIVATE KEY')}${block('CERTIFICATE')}`],
    ['nothing', ''],
    ['no final newline', block('PRIVATE KEY').trimEnd()],
  ])('refuses %s', (_n, pem) => {
    expect(checkPemPrivateKey(pem).ok).toBe(false);
  });

  // The inputs a backtracking pattern took quadratic time on, at sizes up to the old 1 MB cap:
  // the steps stay within 2 per character (plus the label), whatever the size.
  const hostile: Array<[string, (n: number) => string]> = [
    [
      'a key without its END line',
      (n) => `-----BEGIN PRIVATE KEY-----\n${`${'A'.repeat(63)}\n`.repeat(n / 64)}`,
    ],
    [
      'a key followed by a certificate',
      (n) =>
        `${block('PRIVATE KEY', `${'A'.repeat(63)}\n`.repeat(n / 128))}${block('CERTIFICATE', `${'B'.repeat(63)}\n`.repeat(n / 128))}`,
    ],
    [
      'base64 lines under a BEGIN line, END of another label',
      (n) =>
        `-----BEGIN PRIVATE KEY-----\n${`${'A'.repeat(15)}\n`.repeat(n / 16)}-----END X PRIVATE KEY-----\n`,
    ],
    ['one long line', (n) => `-----BEGIN PRIVATE KEY-----${'-'.repeat(n)}\n`],
    ['newlines only', (n) => '\n'.repeat(n)],
    [
      'short lines, no base64 run',
      (n) => `-----BEGIN PRIVATE KEY-----\n${'ab+/=\n'.repeat(n / 6)}-----END PRIVATE KEY-----\n`,
    ],
  ];
  it.each(hostile)('is linear on %s (steps counted up to 1 MB)', (_n, make) => {
    for (const n of [16 * 1024, 256 * 1024, 1024 * 1024]) {
      const text = make(n);
      const r = checkPemPrivateKey(text);
      expect(r.steps).toBeLessThanOrEqual(2 * text.length + 64);
    }
  });
});

describe('the private key file cap', () => {
  it('refuses a key file larger than a key can be, naming the limit', () => {
    const data = new TextEncoder().encode(`-----BEGIN PRIVATE KEY-----\n${'A'.repeat(FPS_KEY_MAX_BYTES)}\n`);
    const issues = checkFpsCertUpload({
      ask: 'abc',
      keyPw: 'pw',
      fpsCert: { filename: 'c.der', data: new Uint8Array(10) },
      privateKey: { filename: 'k.pem', data },
    });
    expect(issues.find((i) => i.field === 'private key')?.message).toContain(
      `the limit is ${FPS_KEY_MAX_BYTES} bytes`,
    );
    expect(FPS_KEY_MAX_BYTES).toBeLessThanOrEqual(64 * 1024);
  });
});
