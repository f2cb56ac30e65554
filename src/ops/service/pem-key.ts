/**
 * The shape check of a FairPlay private key file (PEM): one block, a BEGIN line naming a private
 * key (PKCS#1 "RSA PRIVATE KEY", PKCS#8 "PRIVATE KEY", "ENCRYPTED PRIVATE KEY", ...), the END
 * line with the same label last, and base64 text between (at least one run of 16 base64
 * characters; header lines of old encrypted keys, Proc-Type and DEK-Info, and blank lines are
 * allowed). The service checks the key itself (it may be encrypted: the bot cannot parse it
 * without the password, so no node:crypto parse here).
 *
 * Linear by construction: every character is looked at a bounded number of times (a forward
 * scan for the first line end, a backward scan for the last line, one pass over the body), with
 * no regular expression, so a hostile file (a truncated key, key and certificate in one file,
 * megabytes without the END line) costs time proportional to its length. The check counts the
 * characters it visits (`steps`) so a test can prove that bound without timing anything; the
 * size cap (FPS_KEY_MAX_BYTES, ./fpscert.ts) bounds it further.
 */

/** What the check found, and how many characters it visited. */
export interface PemKeyCheck {
  ok: boolean;
  /** Characters visited: at most 2 × the text's length (see the file header). */
  steps: number;
}

const BEGIN = '-----BEGIN ';
const END = '-----END ';
const DASHES = '-----';
const LABEL_END = 'PRIVATE KEY';
/** Longest label accepted ("ENCRYPTED PRIVATE KEY" is 21). */
const LABEL_MAX = 64;

function isLabelChar(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 32; // A-Z 0-9 space
}

function isBase64Char(c: number): boolean {
  return (
    (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 43 || c === 47 // + /
  );
}

/**
 * Whether `text` (normalised: "\n" line ends, trimmed, one final "\n"; see `normalisePem`) is one
 * PEM private key block.
 */
export function checkPemPrivateKey(text: string): PemKeyCheck {
  let steps = 0;
  const n = text.length;
  if (n === 0 || text.charCodeAt(n - 1) !== 10) return { ok: false, steps };
  // The first line: "-----BEGIN <label>-----".
  let firstEnd = -1;
  for (let i = 0; i < n; i++) {
    steps++;
    if (text.charCodeAt(i) === 10) {
      firstEnd = i;
      break;
    }
  }
  if (firstEnd === n - 1) return { ok: false, steps }; // one line only
  const first = text.slice(0, firstEnd);
  if (!first.startsWith(BEGIN) || !first.endsWith(DASHES)) return { ok: false, steps };
  const label = first.slice(BEGIN.length, first.length - DASHES.length);
  if (label.length > LABEL_MAX || !label.endsWith(LABEL_END)) return { ok: false, steps };
  for (let i = 0; i < label.length; i++) {
    steps++;
    if (!isLabelChar(label.charCodeAt(i))) return { ok: false, steps };
  }
  // The last line: "-----END <label>-----", found from the end.
  let lastStart = -1;
  for (let i = n - 2; i > firstEnd; i--) {
    steps++;
    if (text.charCodeAt(i) === 10) {
      lastStart = i + 1;
      break;
    }
  }
  if (lastStart < 0 || text.slice(lastStart, n - 1) !== `${END}${label}${DASHES}`)
    return { ok: false, steps };
  // Between them: a run of 16 base64 characters somewhere.
  let run = 0;
  for (let i = firstEnd + 1; i < lastStart; i++) {
    steps++;
    run = isBase64Char(text.charCodeAt(i)) ? run + 1 : 0;
    if (run >= 16) return { ok: true, steps };
  }
  return { ok: false, steps };
}
