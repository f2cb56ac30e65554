/**
 * The small text file that carries the FairPlay ASK and the private key's password to
 * `/drm fpscert` (the modal takes files only: nobody types or pastes a secret into Slack).
 *
 * Format, two lines (the input's hint shows it):
 *
 *     ASK=0123456789abcdef0123456789abcdef
 *     PASSWORD=the key's password
 *
 * Read tolerantly: names in any case (`ask`, `Password`; `KEY_PW` and `KEY_PASSWORD` also name the
 * password), `=` or `:` between name and value, spaces around both trimmed, one pair of matching
 * quotes around a value removed (inside quotes spaces are kept: a password may begin or end with
 * one), CRLF or LF line ends, a UTF-8 byte-order mark, blank lines and `#` comment lines ignored.
 * Limits: the ASK is non-empty and at most ASK_MAX_CHARS characters, the password non-empty and at
 * most 32 bytes (the spec's `key_pw`).
 *
 * Every problem is a sentence that says what to fix and never quotes the file's content: a line
 * that cannot be read is named by its number only (it may hold a secret).
 */
import { checkKeyPassword } from '../../../api/validate.js';
import { ASK_MAX_CHARS } from '../../../ops/service/fpscert.js';

/** Largest secrets file read (two short lines; anything bigger is the wrong file). */
export const SECRETS_FILE_MAX_BYTES = 4096;

/** The example shown in the form's hint and in the error messages. */
export const SECRETS_FILE_EXAMPLE = 'ASK=0123456789abcdef0123456789abcdef\nPASSWORD=your key password';

const NAMES: Record<string, 'ask' | 'password'> = {
  ask: 'ask',
  password: 'password',
  key_pw: 'password',
  key_password: 'password',
};

export type SecretsFileResult = { ok: { ask: string; password: string } } | { problems: string[] };

function unquote(v: string): string {
  const t = v.trim();
  if (t.length >= 2 && (t[0] === '"' || t[0] === "'") && t.at(-1) === t[0]) return t.slice(1, -1);
  return t;
}

/**
 * `NAME=value` or `NAME: value`: the name (letters, digits, `_` and spaces, trimmed) before the
 * first `=` or `:`, and the rest. Split at that character, then each part checked with a
 * single-quantifier anchored pattern: linear in the line's length (a lazy name followed by `\s*`
 * in one pattern backtracks quadratically on a long run of spaces).
 */
function nameAndValue(line: string): { name: string; value: string } | undefined {
  let at = -1;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === '=' || c === ':') {
      at = i;
      break;
    }
  }
  if (at < 0) return undefined;
  const name = line.slice(0, at).trimEnd();
  if (!/^[A-Za-z_][A-Za-z0-9_ ]*$/.test(name)) return undefined;
  return { name: name.trim(), value: line.slice(at + 1) };
}

/** Reads the secrets file's bytes; every problem at once. */
export function parseSecretsFile(data: Uint8Array): SecretsFileResult {
  const problems: string[] = [];
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(data);
  } catch {
    return { problems: ['The secrets file is not UTF-8 text: save it as plain text with two lines.'] };
  }
  if (/-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----/.test(text)) {
    return {
      problems: [
        'The secrets file holds a private key: attach the key in the private key field, and here a text file with the ASK and PASSWORD lines.',
      ],
    };
  }
  const found: { ask?: string; password?: string } = {};
  const lines = text.split(/\r\n|\r|\n/);
  lines.forEach((raw, i) => {
    const line = raw.trim();
    if (!line || line.startsWith('#')) return;
    const m = nameAndValue(line);
    const key = m ? NAMES[m.name.toLowerCase().replace(/ /g, '_')] : undefined;
    if (!m || !key) {
      problems.push(`Line ${i + 1} of the secrets file is not ASK=… or PASSWORD=….`);
      return;
    }
    if (found[key] !== undefined) {
      problems.push(`The secrets file has two ${key === 'ask' ? 'ASK' : 'PASSWORD'} lines: keep one.`);
      return;
    }
    found[key] = unquote(m.value);
  });
  if (found.ask === undefined) problems.push('The secrets file has no ASK line: add one, like ASK=0123….');
  else if (found.ask.length === 0) problems.push('The ASK in the secrets file is empty.');
  else if (found.ask.length > ASK_MAX_CHARS)
    problems.push(`The ASK in the secrets file is longer than ${ASK_MAX_CHARS} characters.`);
  else if (/\s/.test(found.ask))
    problems.push('The ASK in the secrets file contains spaces: check the file.');
  if (found.password === undefined)
    problems.push("The secrets file has no PASSWORD line: add one with the private key's password.");
  else {
    const pw = checkKeyPassword(found.password);
    if (pw) problems.push(`${pw.replace(/^The key password/, 'The password in the secrets file')}`);
  }
  if (problems.length > 0 || found.ask === undefined || found.password === undefined) return { problems };
  return { ok: { ask: found.ask, password: found.password } };
}
