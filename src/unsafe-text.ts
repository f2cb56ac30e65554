/**
 * Characters that can hide or reorder text ("RTL override" spoofing of file names and ids, text
 * hidden in tag characters) or break a line where none shows: the ONE list, used by the Slack
 * renderers (`neutralise` in src/slack/kit/blocks/mrkdwn.ts) and by the API layer when it turns an
 * upstream error body into a message. No module imports: the API layer sits below everything.
 *
 * - bidi controls: U+061C (Arabic letter mark), U+200E/U+200F (LRM/RLM), U+202A-U+202E
 *   (embeddings and overrides), U+2066-U+2069 (isolates);
 * - zero-width and invisible: U+00AD (soft hyphen), U+180E (Mongolian vowel separator),
 *   U+200B-U+200D (zero-width space/non-joiner/joiner), U+2060-U+2064 (word joiner, invisible
 *   operators), U+FEFF (BOM / zero-width no-break space), U+E0000-U+E007F (tag characters);
 * - line and paragraph separators U+2028/U+2029 (break a line in some clients, not in others);
 * - half of a surrogate pair (U+D800-U+DFFF alone: with the `u` flag a whole pair is one code
 *   point and never matches): left by a cut of text at a UTF-16 length, or sent by the service;
 *   Slack refuses a whole payload that holds one.
 */
const INVISIBLE_OR_BIDI_CLASS =
  '\\u00ad\\u061c\\u180e\\u200b-\\u200f\\u2028\\u2029\\u202a-\\u202e\\u2060-\\u2064\\u2066-\\u2069\\ufeff\\u{e0000}-\\u{e007f}\\ud800-\\udfff';

/** Control characters except tab and newline, and every invisible or bidi character above. */
export const UNSAFE_TEXT_CHARS = new RegExp(
  `[\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f${INVISIBLE_OR_BIDI_CLASS}]`,
  'gu',
);

/** Every control character (tab and newline too) and every invisible or bidi character: one line. */
export const UNSAFE_LINE_CHARS = new RegExp(
  `[\\u0000-\\u001f\\u007f-\\u009f${INVISIBLE_OR_BIDI_CLASS}]+`,
  'gu',
);
