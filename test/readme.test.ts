/**
 * The README and docs/ must stay true: the generated parts (README's command overview,
 * docs/configuration.md's variables, docs/commands.md's reference, .env.example) match the code,
 * the README's scopes table matches manifest.yml, the manifest's usage hints name every command,
 * every dependency is explained, and the quick start and troubleshooting say what they must.
 * Regenerate with `npm run readme` (scripts/gen-readme.ts).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  CONFIG_END,
  CONFIG_START,
  generatedFiles,
  OVERVIEW_END,
  OVERVIEW_START,
  replaceBetween,
} from '../scripts/readme.js';
import { CONFIG_DOC, MINIMUM_VARIABLES } from '../src/config.js';
import { registry } from '../src/slack/features/index.js';
import { COMMANDS_END, COMMANDS_START } from '../src/slack/kit/commands/help.js';
import { BOT_SCOPES } from '../src/slack/oauth.js';

const root = new URL('..', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, root), 'utf8');
const readme = read('README.md');
const manifest = readFileSync(new URL('manifest.yml', root), 'utf8');
const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  scripts: Record<string, string>;
};

/** The bot scopes of the manifest (oauth_config.scopes.bot list). */
function manifestBotScopes(): string[] {
  const m = /\n {2}scopes:\n {4}bot:\n((?: {6}- [^\n]+\n)+)/.exec(manifest);
  if (!m) throw new Error('manifest.yml has no oauth_config.scopes.bot list');
  return m[1]!
    .trim()
    .split('\n')
    .map((l) => l.replace(/^\s*-\s*/, '').trim());
}

function section(title: string): string {
  const i = readme.indexOf(`\n## ${title}\n`);
  if (i < 0) throw new Error(`README has no "## ${title}" section`);
  const j = readme.indexOf('\n## ', i + 4);
  return readme.slice(i, j < 0 ? undefined : j);
}

describe('README', () => {
  it('has the generated parts, up to date with the code (run npm run readme)', () => {
    for (const m of [OVERVIEW_START, OVERVIEW_END]) expect(readme).toContain(m);
    for (const m of [CONFIG_START, CONFIG_END]) expect(read('docs/configuration.md')).toContain(m);
    for (const m of [COMMANDS_START, COMMANDS_END]) expect(read('docs/commands.md')).toContain(m);
    for (const f of generatedFiles(read, registry)) expect(f.before, f.path).toBe(f.after);
  });

  it('lists every environment variable (docs, .env.example) and every command (overview, reference)', () => {
    const configuration = read('docs/configuration.md');
    const example = read('.env.example');
    for (const v of CONFIG_DOC) {
      expect(configuration).toContain(`| \`${v.name}\` |`);
      expect(example).toMatch(new RegExp(`^# ${v.name}=`, 'm'));
    }
    // Every line of .env.example is a comment or blank: copying it changes nothing until edited.
    expect(example.split('\n').every((l) => l === '' || l.startsWith('#'))).toBe(true);
    const reference = read('docs/commands.md');
    const overview = readme.slice(readme.indexOf(OVERVIEW_START), readme.indexOf(OVERVIEW_END));
    for (const e of registry.entries()) {
      if (e.hidden) continue;
      for (const c of e.commands) expect(reference).toContain(`\`${[c, ...e.path].join(' ')}`);
      expect(overview).toContain(`| \`${e.path[0]}`);
    }
  });

  it("manifest: each command's usage hint names all its commands; the Messages tab is on and read-only", () => {
    for (const command of ['/dwm', '/drm'] as const) {
      const block = manifest.split(/\n {4}- command: /).find((b) => b.startsWith(`${command}\n`))!;
      const hint = /\n {6}usage_hint: "([^"]*)"/.exec(block)?.[1] ?? '';
      const words = new Set(hint.split(/[\s|[\]<>]+/));
      for (const e of registry.entries(command))
        if (!e.hidden) expect(words, `${command} ${e.path[0]}`).toContain(e.path[0]);
    }
    expect(manifest).toMatch(/\n {4}messages_tab_enabled: true\n/);
    expect(manifest).toMatch(/\n {4}messages_tab_read_only_enabled: true\n/);
  });

  it('the scopes table matches manifest.yml exactly, and the app requests no scope outside it', () => {
    const table = [...section('Slack scopes').matchAll(/^\| `([a-z:.]+)` \|/gm)].map((m) => m[1]!);
    const scopes = manifestBotScopes();
    expect(new Set(table)).toEqual(new Set(scopes));
    expect(table.length).toBe(scopes.length);
    for (const s of BOT_SCOPES) expect(scopes).toContain(s);
  });

  it('has Slack escape mentions in both slash commands (user and channel ids, never bare @names)', () => {
    const blocks = manifest.split(/\n {4}- command: /).slice(1);
    expect(blocks.map((b) => b.split('\n')[0])).toEqual(['/dwm', '/drm']);
    for (const b of blocks) expect(b).toMatch(/\n {6}should_escape: true(\n|$)/);
  });

  it('names every dependency, and docs/dependencies.md explains each', () => {
    const deps = section('Dependencies');
    const why = read('docs/dependencies.md');
    for (const name of [...Object.keys(pkg.dependencies), ...Object.keys(pkg.devDependencies)]) {
      expect(deps, name).toContain(`\`${name}\``);
      expect(why, name).toContain(`\`${name}\``);
    }
    expect(deps).toContain('](docs/dependencies.md)');
  });

  it('keeps the two-command quick start true, and npm start runs the build (no tsx)', () => {
    expect(readme).toContain('npm ci && npm run demo');
    expect(readme).toContain('npm test');
    expect(pkg.scripts.demo).toBe('tsx dev/demo/main.ts');
    expect(pkg.scripts.test).toMatch(/^vitest run/);
    expect(pkg.scripts.start).not.toMatch(/\btsx\b/);
    expect(pkg.scripts.start).toContain('node dist/src/main.js');
    expect(pkg.scripts.dev).toMatch(/^tsx /);
  });

  it('covers what a newcomer needs, and links the rest', () => {
    for (const s of [
      'Try it in your own workspace',
      'HTTP mode and many workspaces',
      'Commands',
      'Documentation',
    ])
      section(s);
    expect(readme.indexOf('## Try it in your own workspace')).toBeLessThan(readme.indexOf('## HTTP mode'));
    expect(section('Try it in your own workspace')).toMatch(
      /^\s*## Try it in your own workspace\s+Socket Mode/,
    );
    for (const doc of [
      'docs/deployment.md',
      'docs/configuration.md',
      'docs/commands.md',
      'docs/operations.md',
      'docs/troubleshooting.md',
      'docs/security.md',
      'docs/scale-out.md',
      'ARCHITECTURE.md',
    ])
      expect(section('Documentation')).toContain(`](${doc})`);
    const t = read('docs/troubleshooting.md');
    for (const code of [
      'not_in_channel',
      'channel_not_found',
      'invalid_auth',
      'expired_trigger_id',
      'dispatch_failed',
      'missing_scope',
      'ratelimited',
    ])
      expect(t).toContain(`\`${code}\``);
  });
});

/** The numbered steps of a section: "1. …" lines with their continuation lines. */
function steps(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split('\n')) {
    if (/^\d+\. /.test(line)) out.push(line);
    else if (out.length && /^ {3}\S/.test(line)) out[out.length - 1] += ` ${line.trim()}`;
  }
  return out;
}

describe("README's path into a workspace", () => {
  const socket = section('Try it in your own workspace');
  const http = section('HTTP mode and many workspaces');

  it('is numbered 1..n, at most 10 steps in Socket Mode, and names the whole minimum', () => {
    const s = steps(socket);
    expect(s.length).toBeGreaterThanOrEqual(8);
    expect(s.length).toBeLessThanOrEqual(10);
    for (const [i, step] of s.entries()) expect(step.startsWith(`${i + 1}. `), step).toBe(true);
    for (const [i, step] of steps(http).entries()) expect(step.startsWith(`${i + 1}. `), step).toBe(true);
    const named = new Set([...socket.matchAll(/`([A-Z][A-Z0-9_]{3,})`/g)].map((m) => m[1]!));
    for (const v of MINIMUM_VARIABLES.socket) expect(named, v).toContain(v);
    const httpNamed = new Set([...http.matchAll(/`([A-Z][A-Z0-9_]{3,})`/g)].map((m) => m[1]!));
    expect(httpNamed).toContain('SLACK_SIGNING_SECRET');
  });

  it('every command and variable it names exists', () => {
    const text = `${socket}\n${http}`;
    const variables = new Set(CONFIG_DOC.map((v) => v.name));
    for (const m of text.matchAll(/`([A-Z][A-Z0-9_]{3,})/g)) expect(variables, m[1]).toContain(m[1]);
    for (const m of text.matchAll(/npm run ([a-z:]+)/g))
      expect(Object.keys(pkg.scripts), m[0]).toContain(m[1]);
    for (const m of text.matchAll(/`npm (start|ci|test)\b/g))
      expect(m[1] === 'ci' || m[1]! in pkg.scripts).toBe(true);
    const slash = [...text.matchAll(/`\/(dwm|drm) ([a-z]+)/g)];
    expect(slash.length).toBeGreaterThanOrEqual(2);
    for (const m of slash)
      expect(
        registry.entries(`/${m[1]}` as '/dwm').some((e) => e.path[0] === m[2]),
        m[0],
      ).toBe(true);
    // The manifest options it names are the generator's.
    for (const m of text.matchAll(/npm run manifest -- (--[a-z-]+)/g))
      expect(['--socket', '--url', '--minimal-scopes']).toContain(m[1]);
    for (const link of text.matchAll(/\]\(((?:docs\/)[a-z-]+\.md)/g)) read(link[1]!);
  });

  it('stays under 15 KB (reference material lives in docs/)', () => {
    expect(Buffer.byteLength(readme)).toBeLessThan(15 * 1024);
  });

  it('gives one figure for the install time everywhere', () => {
    let seen = 0;
    for (const doc of ['README.md', 'docs/operations.md', 'docs/troubleshooting.md']) {
      // Sentences about the install alone (`npm ci` taking time), not about whole CI runs.
      const sentences = read(doc)
        .replace(/\s+/g, ' ')
        .split(/(?<=\.) /)
        .filter((x) => /npm ci/.test(x) && /\bminutes?\b/.test(x) && /takes|spends|first/.test(x));
      for (const x of sentences) {
        const figures = [...x.matchAll(/(?:about |\d+ to )?\d+ minutes?/g)].map((m) => m[0]);
        if (figures.length === 0) continue;
        expect(figures, `${doc}: ${x}`).toEqual(['about 4 minutes']);
        seen++;
      }
    }
    expect(seen).toBeGreaterThanOrEqual(3);
  });
});

describe('replaceBetween', () => {
  it('replaces only between the markers, idempotently, and leaves a doc without markers alone', () => {
    const doc = `a\n${CONFIG_START}\nold\n${CONFIG_END}\nb\n`;
    const once = replaceBetween(doc, CONFIG_START, CONFIG_END, 'new');
    expect(once).toBe(`a\n${CONFIG_START}\n\nnew\n\n${CONFIG_END}\nb\n`);
    expect(replaceBetween(once, CONFIG_START, CONFIG_END, 'new')).toBe(once);
    expect(replaceBetween('no markers', CONFIG_START, CONFIG_END, 'x')).toBe('no markers');
  });
});
