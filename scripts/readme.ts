/**
 * The README's generated sections: the environment variable table (from CONFIG_DOC in
 * src/config.ts) and the commands reference (from the command registry). `npm run readme`
 * (scripts/gen-readme.ts) rewrites them; test/readme.test.ts fails when the README differs.
 */
import { CONFIG_DOC, configDocMarkdown } from '../src/config.js';
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

/** Wraps text into `# `-prefixed comment lines of at most `width` characters. */
function commentLines(text: string, width = 100): string[] {
  const out: string[] = [];
  let line = '#';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line.length + 1 + word.length > width && line !== '#') {
      out.push(line);
      line = '#';
    }
    line += ` ${word}`;
  }
  if (line !== '#') out.push(line);
  return out;
}

/**
 * `.env.example`: every setting of src/config.ts, commented out, with its description, when it is
 * required and its default. Written by `npm run readme`; test/readme.test.ts fails when it differs.
 */
export function envExample(): string {
  const head = [
    '# drm-chatops settings (generated from src/config.ts by `npm run readme`: do not edit).',
    '# cp .env.example .env, then uncomment and fill in what your set-up needs. `npm start` and',
    '# `docker compose up` read .env; a variable set in the environment wins over the file.',
    '# .env holds secrets: it is git- and docker-ignored, never commit it.',
    '# Minimum (one workspace, HTTP mode): SLACK_BOT_TOKEN, SLACK_SIGNING_SECRET, ENCRYPTION_KEY.',
    '# Socket Mode: SLACK_APP_TOKEN instead of SLACK_SIGNING_SECRET. Reference: docs/configuration.md',
  ];
  const blocks = CONFIG_DOC.map((v) => {
    const facts = [`Required: ${v.required}.`, v.default ? `Default: ${v.default}.` : ''].join(' ');
    // A default that is a literal value is shown as the value; a rule ("first of ...") only in the text.
    const literal = v.default && !/\s/.test(v.default) ? v.default : '';
    return [...commentLines(`${v.description} ${facts}`), `# ${v.name}=${literal}`].join('\n');
  });
  return `${head.join('\n')}\n\n${blocks.join('\n\n')}\n`;
}
