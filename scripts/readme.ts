/**
 * The README's generated sections: the environment variable table (from CONFIG_DOC in
 * src/config.ts) and the commands reference (from the command registry). `npm run readme`
 * (scripts/gen-readme.ts) rewrites them; test/readme.test.ts fails when the README differs.
 */
import { configDocMarkdown } from '../src/config.js';
import { withCommandsSection } from '../src/slack/kit/help.js';
import type { CommandRegistry } from '../src/slack/kit/registry.js';

export const CONFIG_START = '<!-- config:start (generated from src/config.ts: do not edit) -->';
export const CONFIG_END = '<!-- config:end -->';

/** Replace the text between two markers (kept) with `body`; unchanged when a marker is missing. */
export function replaceBetween(doc: string, start: string, end: string, body: string): string {
  const i = doc.indexOf(start);
  const j = doc.indexOf(end);
  if (i < 0 || j < i) return doc;
  return `${doc.slice(0, i + start.length)}\n\n${body.trimEnd()}\n\n${doc.slice(j)}`;
}

/** The README with both generated sections regenerated. */
export function generateReadme(readme: string, registry: CommandRegistry): string {
  const withConfig = replaceBetween(readme, CONFIG_START, CONFIG_END, configDocMarkdown());
  return withCommandsSection(withConfig, registry);
}
