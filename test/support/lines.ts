/**
 * How many lines a reader sees: a line counter on the real Block Kit blocks, laid out the way Slack
 * lays them out in a desktop channel (the style guide's budgets, /work/shared/notes/slack-style.md,
 * are in these lines).
 *
 * - mrkdwn is read as Slack shows it: `*bold*`, `_italic_`, `~strike~` and back-ticks take no room,
 *   `<!date^…|fallback>` shows its fallback, `<url|label>` its label, `<#C…>` / `<@U…>` a name,
 *   `:emoji:` one wide glyph, `&amp;` one character;
 * - a text line longer than the column wraps (WIDTH characters across a message, half of that in
 *   a section field, more in a context line's small print); an empty line still takes a line;
 * - a section's fields sit in TWO columns: each row is as tall as its taller field;
 * - a header, a divider and a row of up to BUTTONS_PER_ROW buttons are one line each; an image is
 *   IMAGE_LINES; an input is its label plus its control.
 */
import type { Block } from '../../src/slack/kit/blocks/blocks.js';

/** Characters across a message column (desktop, default font). */
export const WIDTH = 90;
/** Characters across one field column (two columns side by side). */
export const FIELD_WIDTH = 42;
/** Characters across a context line (smaller print). */
export const CONTEXT_WIDTH = 110;
/** Characters across a header (larger print). */
export const HEADER_WIDTH = 60;
/** Buttons side by side before Slack wraps them. */
export const BUTTONS_PER_ROW = 5;
export const IMAGE_LINES = 5;

/** Text as a reader sees it (one string, line breaks kept). */
export function visibleText(mrkdwn: string): string {
  return mrkdwn
    .replace(/<!date\^[^|>]*\|([^>]*)>/g, '$1')
    .replace(/<#[A-Z0-9]+(?:\|([^>]*))?>/g, (_m, n: string | undefined) => `#${n ?? 'channel-name'}`)
    .replace(/<@[A-Z0-9]+(?:\|([^>]*))?>/g, (_m, n: string | undefined) => `@${n ?? 'person-name'}`)
    .replace(/<!(here|channel|everyone)(?:\|[^>]*)?>/g, '@$1')
    .replace(/<!subteam\^[^|>]*(?:\|([^>]*))?>/g, (_m, n: string | undefined) => n ?? '@group')
    .replace(/<([^|>]+)\|([^>]*)>/g, '$2')
    .replace(/<([^>]+)>/g, '$1')
    .replace(/:[a-z0-9_+-]+:/g, '◼')
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/[*_~`]/g, '');
}

/** Lines a text takes in a column `width` characters wide. */
export function textLines(text: string, width: number, mrkdwn = true): number {
  const shown = mrkdwn ? visibleText(text) : text;
  if (shown.trim() === '') return 0;
  return shown
    .replace(/\n+$/, '')
    .split('\n')
    .reduce((n, l) => n + Math.max(1, Math.ceil([...l].length / width)), 0);
}

interface TextLike {
  type?: string;
  text?: string;
}
const textOf = (t: TextLike | undefined, width: number) =>
  t?.text === undefined ? 0 : textLines(t.text, width, t.type !== 'plain_text');

/** Lines one block takes. */
export function blockLines(b: Block): number {
  const any = b as Record<string, unknown> & { type: string };
  switch (any.type) {
    case 'header':
      return Math.max(1, textOf(any.text as TextLike, HEADER_WIDTH));
    case 'divider':
      return 1;
    case 'section': {
      let n = textOf(any.text as TextLike | undefined, WIDTH);
      const fs = (any.fields as TextLike[] | undefined) ?? [];
      for (let i = 0; i < fs.length; i += 2) {
        n += Math.max(textOf(fs[i], FIELD_WIDTH), textOf(fs[i + 1], FIELD_WIDTH), 1);
      }
      // A section with only an accessory (a button, an overflow) still takes the accessory's line.
      return Math.max(n, any.accessory ? 1 : 0);
    }
    case 'context': {
      const els = (any.elements as TextLike[]) ?? [];
      const joined = els
        .filter((e) => e.type === 'mrkdwn' || e.type === 'plain_text')
        .map((e) => (e.type === 'plain_text' ? (e.text ?? '') : visibleText(e.text ?? '')))
        .join('  ');
      return Math.max(1, textLines(joined, CONTEXT_WIDTH, false));
    }
    case 'actions':
      return Math.ceil(((any.elements as unknown[]) ?? []).length / BUTTONS_PER_ROW) || 0;
    case 'image':
      return IMAGE_LINES;
    case 'input':
      return textOf(any.label as TextLike, WIDTH) + 1;
    case 'rich_text':
      return Math.max(1, textLines(JSON.stringify(any.elements).replace(/[{}[\]"]/g, ''), WIDTH, false));
    default:
      return 1;
  }
}

/** Lines a message takes: its blocks as laid out, or its text when it has no blocks. */
export function countLines(m: { text?: string; blocks?: readonly Block[] } | readonly Block[]): number {
  const blocks = Array.isArray(m) ? (m as readonly Block[]) : (m as { blocks?: readonly Block[] }).blocks;
  if (blocks?.length) return blocks.reduce((n, b) => n + blockLines(b), 0);
  return textLines((m as { text?: string }).text ?? '', WIDTH);
}

/** The message as a reader sees it, one string per line (for failure messages of budget tests). */
export function shown(m: { text?: string; blocks?: readonly Block[] }): string {
  return (m.blocks ?? [])
    .map((b) => {
      const any = b as Record<string, unknown> & { type: string };
      const t = (x: unknown) => visibleText((x as TextLike | undefined)?.text ?? '');
      if (any.type === 'section')
        return [t(any.text), ...((any.fields as TextLike[]) ?? []).map(t)].filter(Boolean).join('\n');
      if (any.type === 'context') return ((any.elements as TextLike[]) ?? []).map(t).join('  ');
      if (any.type === 'actions')
        return `[${((any.elements as Array<{ text?: TextLike }>) ?? []).map((e) => e.text?.text ?? '').join('] [')}]`;
      if (any.type === 'header') return t(any.text);
      return `(${any.type})`;
    })
    .join('\n');
}
