/**
 * Text helpers for Slack mrkdwn. Every string that did not come from the bot's own code goes
 * through `esc()` (or `code()` for ids and codes) before it reaches a message.
 */
import { formatTime } from '../../../time.js';
import { UNSAFE_TEXT_CHARS } from '../../../unsafe-text.js';

/**
 * Control characters (except tab/newline), bidi controls, zero-width and other invisible
 * characters are replaced: they could hide or reorder text ("RTL override" spoofing of file names
 * and ids). The list is src/unsafe-text.ts, shared with the API layer.
 */
export function neutralise(text: string): string {
  return text.replace(UNSAFE_TEXT_CHARS, '\ufffd');
}

/** Escape `&`, `<`, `>` so no text can ping (`<!channel>`, `<@U1>`) or form a link. */
export function esc(text: string): string {
  return neutralise(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * Inline code. Backticks cannot be escaped inside Slack inline code, so they are replaced by a
 * look-alike (ˋ U+02CB); newlines become spaces. Empty input gives `` `(empty)` ``.
 */
export function code(text: string | number): string {
  const s = esc(String(text))
    .replace(/`/g, '\u02cb')
    .replace(/[\r\n]+/g, ' ');
  return s.length === 0 ? '`(empty)`' : `\`${s}\``;
}

/** Bold (asterisks inside are replaced by a look-alike so they cannot end the bold early). */
export function bold(text: string): string {
  return `*${esc(text).replace(/\*/g, '\u2217')}*`;
}

/**
 * Cut to at most `max` characters (code points, so a surrogate pair is never split), adding `…`
 * when something was cut.
 */
export function truncate(text: string, max: number): string {
  if (max <= 0) return '';
  if (text.length <= max) return text;
  const chars = Array.from(text);
  let out = '';
  for (const ch of chars) {
    if (out.length + ch.length > max - 1) break;
    out += ch;
  }
  return `${out}\u2026`;
}

/**
 * `truncate` for mrkdwn that is already escaped: the cut never ends inside an entity
 * (`&amp;`), a `<…>` token (`<!date^…|…>`, `<@U…>`, a link) or an inline code / code block span,
 * which would otherwise render as raw text. The unfinished piece is dropped whole and `…` ends the
 * text. Text within `max` is returned unchanged.
 */
export function truncateMrkdwn(text: string, max: number): string {
  const cut = truncate(text, max);
  if (cut === text || cut.length === 0) return cut;
  let out = cut.slice(0, -1); // without the ellipsis
  // An entity cut short: "&am".
  out = out.replace(/&[a-zA-Z#0-9]*$/, '');
  // An unclosed <…> token.
  const open = out.lastIndexOf('<');
  if (open > out.lastIndexOf('>')) out = out.slice(0, open);
  // An unclosed code block (```), then an unclosed inline code span (`).
  const fences = out.split('```').length - 1;
  if (fences % 2 === 1) out = out.slice(0, out.lastIndexOf('```'));
  // Fence ticks are masked (same length) so that only a lone backtick is found, never the last
  // tick of a closed ``` block (cutting there would reopen the block).
  const lone = out.replace(/```/g, '\u0000\u0000\u0000');
  const ticks = lone.split('`').length - 1;
  if (ticks % 2 === 1) out = out.slice(0, lone.lastIndexOf('`'));
  return `${out}\u2026`;
}

/**
 * A date that each reader sees in their own zone: `<!date^EPOCH^{date_short_pretty} {time}|FALLBACK>`.
 * The fallback (shown by clients that cannot render tokens, notifications, exports) is formatted
 * in `timeZone` (the requesting user's IANA zone), e.g. "2026-11-22 14:05 Asia/Seoul".
 */
export function dateToken(epochMs: number, timeZone = 'UTC'): string {
  const seconds = Math.floor(epochMs / 1000);
  return `<!date^${seconds}^{date_short_pretty} {time}|${esc(formatTime(epochMs, timeZone))}>`;
}

/** A Slack user id (U… or, on Enterprise Grid, W…). */
export const SLACK_USER_ID_RE = /^[UW][A-Z0-9]{2,}$/;

/** A user mention from a trusted Slack user id (validated, so it cannot smuggle anything else). */
export function userMention(userId: string): string {
  return SLACK_USER_ID_RE.test(userId) ? `<@${userId}>` : esc(userId);
}

/** A channel mention from a trusted id (validated), else the id in code. */
export function channelMention(channelId: string): string {
  return /^[CGD][A-Z0-9]{2,}$/.test(channelId) ? `<#${channelId}>` : code(channelId);
}

/** The style guide's name for `esc`. */
export { esc as escape };
