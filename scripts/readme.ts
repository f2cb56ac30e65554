/**
 * The generated documentation: the environment variable table in docs/configuration.md (from
 * CONFIG_DOC in src/config.ts), .env.example (the same settings, commented out), the commands
 * reference in docs/commands.md and the short command overview in README.md (from the command
 * registry). `npm run readme` (scripts/gen-readme.ts) rewrites them; test/readme.test.ts fails when
 * one differs.
 */
import { CONFIG_DOC, configDocMarkdown, MINIMUM_VARIABLES } from '../src/config.js';
import { withCommandsSection } from '../src/slack/kit/commands/help.js';
import type { CommandRegistry } from '../src/slack/kit/commands/registry.js';

export const CONFIG_START = '<!-- config:start (generated from src/config.ts: do not edit) -->';
export const CONFIG_END = '<!-- config:end -->';

/** Replace the text between two markers (kept) with `body`; unchanged when a marker is missing. */
export function replaceBetween(doc: string, start: string, end: string, body: string): string {
  const i = doc.indexOf(start);
  const j = doc.indexOf(end);
  if (i < 0 || j < i) return doc;
  return `${doc.slice(0, i + start.length)}\n\n${body.trimEnd()}\n\n${doc.slice(j)}`;
}

export const OVERVIEW_START = '<!-- commands-overview:start (generated from the registry: do not edit) -->';
export const OVERVIEW_END = '<!-- commands-overview:end -->';

/**
 * The README's short command overview: one row per top-level command of /dwm and /drm (its
 * sub-commands named in the same row), admin-only ones marked. The full reference with every
 * argument is docs/commands.md.
 */
export function commandsOverview(registry: CommandRegistry): string {
  const out: string[] = [];
  for (const command of ['/dwm', '/drm'] as const) {
    const groups = new Map<string, Array<{ path: readonly string[]; summary: string; admin: boolean }>>();
    for (const e of registry.entries(command)) {
      if (e.hidden || e.path.length === 0) continue;
      const key = e.path[0]!;
      const list = groups.get(key) ?? [];
      list.push({ path: e.path, summary: e.summary, admin: e.role === 'admin' });
      groups.set(key, list);
    }
    out.push(`| \`${command}\` | What |`, '|---|---|');
    for (const [key, list] of groups) {
      const top = list.find((x) => x.path.length === 1) ?? list[0]!;
      const subs = [...new Set(list.filter((x) => x !== top).map((x) => x.path.slice(1).join(' ')))];
      const more = subs.length ? ` Also: ${subs.map((x) => `\`${key} ${x}\``).join(', ')}.` : '';
      const who = list.every((x) => x.admin)
        ? ' _Admins._'
        : list.some((x) => x.admin)
          ? ' _Partly admins._'
          : '';
      const summary = top.summary.replace(/\|/g, '\\|').replace(/\.?$/, '.');
      out.push(`| \`${top.path.join(' ')}\` | ${summary}${more}${who} |`);
    }
    out.push('');
  }
  return out.join('\n').trimEnd();
}

/** A document with every generated section it has markers for regenerated (others untouched). */
export function generateReadme(doc: string, registry: CommandRegistry): string {
  const withConfig = replaceBetween(doc, CONFIG_START, CONFIG_END, configDocMarkdown());
  const withOverview = replaceBetween(withConfig, OVERVIEW_START, OVERVIEW_END, commandsOverview(registry));
  return withCommandsSection(withOverview, registry);
}

/** The files `npm run readme` keeps generated, relative to the repository root. */
export const GENERATED_DOCS = ['README.md', 'docs/configuration.md', 'docs/commands.md'] as const;

/**
 * Every generated file's expected content, given the current text of each (`read`): the marked
 * sections of GENERATED_DOCS, and the whole of .env.example.
 */
export function generatedFiles(
  read: (path: string) => string,
  registry: CommandRegistry,
): Array<{ path: string; before: string; after: string }> {
  const files: Array<{ path: string; before: string; after: string }> = GENERATED_DOCS.map((path) => {
    const before = read(path);
    return { path, before, after: generateReadme(before, registry) };
  });
  let example = '';
  try {
    example = read('.env.example');
  } catch {
    /* not there yet: written */
  }
  files.push({ path: '.env.example', before: example, after: envExample() });
  return files;
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
    `# Minimum, Socket Mode: ${MINIMUM_VARIABLES.socket.join(', ')}.`,
    `# Minimum, HTTP mode: ${MINIMUM_VARIABLES.http.join(', ')}.`,
    '# The two URLs come from your service provider (`npm run emulator` prints local ones).',
    '# Reference: docs/configuration.md',
    '# Quoting: the same file is read three ways. `npm start` cuts an unquoted value at `#`',
    '# (KEY=a#b gives a), Compose keeps a#b but expands `$`: put a value containing `#`, `$` or',
    "# spaces in single quotes (KEY='a#b$c'), which both read literally. `docker run --env-file`",
    '# does not strip quotes (they become part of the value): use Compose, or no quotes there.',
  ];
  const blocks = CONFIG_DOC.map((v) => {
    const facts = [`Required: ${v.required}.`, v.default ? `Default: ${v.default}.` : ''].join(' ');
    // A default that is a literal value is shown as the value; a rule ("first of ...") only in the text.
    const literal = v.default && !/\s/.test(v.default) ? v.default : '';
    return [...commentLines(`${v.description} ${facts}`), `# ${v.name}=${literal}`].join('\n');
  });
  return `${head.join('\n')}\n\n${blocks.join('\n\n')}\n`;
}
