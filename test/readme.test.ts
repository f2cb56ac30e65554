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
import { CONFIG_DOC } from '../src/config.js';
import { BOT_SCOPES } from '../src/slack/app.js';
import { registry } from '../src/slack/features/index.js';
import { COMMANDS_END, COMMANDS_START } from '../src/slack/kit/help.js';

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

  it('explains every dependency', () => {
    const deps = section('Dependencies');
    for (const name of [...Object.keys(pkg.dependencies), ...Object.keys(pkg.devDependencies)])
      expect(deps, name).toContain(`\`${name}\``);
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
    for (const s of ['Create the Slack app', 'Run it', 'Commands', 'Documentation']) section(s);
    expect(section('Run it')).toContain('Socket Mode');
    for (const doc of [
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

describe('replaceBetween', () => {
  it('replaces only between the markers, idempotently, and leaves a doc without markers alone', () => {
    const doc = `a\n${CONFIG_START}\nold\n${CONFIG_END}\nb\n`;
    const once = replaceBetween(doc, CONFIG_START, CONFIG_END, 'new');
    expect(once).toBe(`a\n${CONFIG_START}\n\nnew\n\n${CONFIG_END}\nb\n`);
    expect(replaceBetween(once, CONFIG_START, CONFIG_END, 'new')).toBe(once);
    expect(replaceBetween('no markers', CONFIG_START, CONFIG_END, 'x')).toBe('no markers');
  });
});
