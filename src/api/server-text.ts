/**
 * A server's own words about a refusal or failure, fit for an error message: the envelope's
 * error_message (or errorMessage / message / error / error_description) of a JSON body, else the
 * body text (never an HTML page); control characters dropped, anything shaped like a credential or a
 * registered secret masked, length capped. Used by the envelope decoder and the HTTP layer.
 */
import { scrubSecrets } from '../log.js';
import { UNSAFE_LINE_CHARS } from '../unsafe-text.js';

/** The server's explanation in a response body, cleaned (see the file comment); '' when none. */
export function serverText(body: string): string {
  let msg = '';
  const t = body.trim();
  if (t.startsWith('{')) {
    try {
      const j = JSON.parse(t) as Record<string, unknown>;
      for (const k of ['error_message', 'errorMessage', 'message', 'error', 'error_description']) {
        const v = j[k];
        if (typeof v === 'string' && v.trim()) {
          msg = v;
          break;
        }
      }
    } catch {
      // not JSON after all: fall through to the text
    }
  }
  if (!msg && !t.startsWith('{') && !/^<(!doctype|html)/i.test(t)) msg = t;
  return cleanServerText(msg);
}

/** A server's text fit for a message: control characters dropped, secrets masked, length capped. */
export function cleanServerText(text: string, max = 200): string {
  // Control characters and the invisible / bidi ones (src/unsafe-text.ts) become a space.
  const msg = scrubSecrets(text.replace(UNSAFE_LINE_CHARS, ' ')).trim();
  return msg.length > max ? `${msg.slice(0, max)}…` : msg;
}
