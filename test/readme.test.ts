/**
 * The README must stay true: its generated sections (environment variables from CONFIG_DOC,
 * commands from the registry) match the code, its scopes table matches manifest.yml, every
 * dependency is explained, and the quick start and troubleshooting say what the issue asks.
 * Regenerate with `npx tsx scripts/gen-readme.ts` (npm run readme).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CONFIG_END, CONFIG_START, generateReadme, replaceBetween } from '../scripts/readme.js';
import { CONFIG_DOC } from '../src/config.js';
import { BOT_SCOPES } from '../src/slack/app.js';
import { registry } from '../src/slack/features/index.js';
import { COMMANDS_END, COMMANDS_START } from '../src/slack/kit/help.js';

const root = new URL('..', import.meta.url);
const readme = readFileSync(new URL('README.md', root), 'utf8');
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
  it('has the generated sections, up to date with the code (run npm run readme)', () => {
    for (const m of [CONFIG_START, CONFIG_END, COMMANDS_START, COMMANDS_END]) expect(readme).toContain(m);
    expect(readme).toBe(generateReadme(readme, registry));
  });

  it('lists every environment variable and every command', () => {
    for (const v of CONFIG_DOC) expect(readme).toContain(`| \`${v.name}\` |`);
    for (const e of registry.entries()) {
      if (e.hidden) continue;
      for (const c of e.commands) expect(readme).toContain(`\`${[c, ...e.path].join(' ')}`);
    }
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

  it('keeps the two-command quick start true', () => {
    expect(readme).toContain('npm ci && npm run demo');
    expect(readme).toContain('npm test');
    expect(pkg.scripts.demo).toBe('tsx dev/demo/main.ts');
    expect(pkg.scripts.test).toMatch(/^vitest run/);
  });

  it('covers the issue: setup from the manifest, both modes, Redis, security, troubleshooting', () => {
    for (const s of ['Create the Slack app', 'Run it', 'Scale out with Redis', 'Security', 'Troubleshooting'])
      section(s);
    expect(section('Run it')).toContain('Socket Mode');
    expect(section('Security')).toContain('A256GCM');
    expect(section('Security')).toContain('ENCRYPTION_KEYS_PREVIOUS');
    expect(section('Security')).toContain('kid');
    const t = section('Troubleshooting');
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
