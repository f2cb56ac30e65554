/**
 * `npm run manifest`: the manifest printed for Socket Mode, for a public URL and with the minimal
 * scopes is the shipped manifest.yml with exactly the lines those options change, nothing to edit
 * by hand; bad options are refused in words.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import {
  DM_READ_SCOPES,
  generateManifest,
  HISTORY_SCOPES,
  ManifestUsageError,
  PLACEHOLDER,
  parseManifestArgs,
} from '../../scripts/manifest.js';
import { botScopesOf } from '../../src/slack/oauth.js';

const root = new URL('../../', import.meta.url);
const shipped = readFileSync(new URL('manifest.yml', root), 'utf8');
const body = (text: string) => text.split('\n').filter((l) => !l.startsWith('#'));

function botScopes(text: string): string[] {
  const m = /\n {2}scopes:\n {4}bot:\n((?: {6}- [^\n]+\n)+)/.exec(text);
  if (!m) throw new Error('no bot scopes');
  return m[1]!
    .trim()
    .split('\n')
    .map((l) => l.replace(/^\s*-\s*/, '').trim());
}

/** True when every line of `sub` appears in `all` in order (lines were only removed). */
function isSubsequence(sub: readonly string[], all: readonly string[]): boolean {
  let j = 0;
  for (const line of all) if (j < sub.length && sub[j] === line) j++;
  return j === sub.length;
}

describe('npm run manifest', () => {
  it('--socket: Socket Mode on, no URL left to edit, everything else as shipped', () => {
    const out = generateManifest(shipped, { socket: true });
    expect(out).not.toContain(PLACEHOLDER);
    expect(out).toMatch(/\n {2}socket_mode_enabled: true\n/);
    expect(out).not.toMatch(/^\s+(url|request_url):/m);
    expect(out).not.toContain('redirect_urls');
    const removed = body(shipped).filter((l) => !body(out).includes(l));
    // Only the five placeholder URLs, the redirect key and the socket switch changed.
    expect(removed.filter((l) => !l.includes(PLACEHOLDER))).toEqual([
      '  redirect_urls:',
      '  socket_mode_enabled: false',
    ]);
    expect(
      isSubsequence(
        body(out).filter((l) => l !== '  socket_mode_enabled: true'),
        body(shipped),
      ),
    ).toBe(true);
    expect(botScopes(out)).toEqual(botScopes(shipped));
    // The Workflow Builder steps are carried over unchanged (JSON-style YAML).
    expect(out.slice(out.indexOf('\nfunctions:\n'))).toBe(shipped.slice(shipped.indexOf('\nfunctions:\n')));
  });

  it('--url: every placeholder replaced by the public URL (with a path prefix), HTTP mode kept', () => {
    const out = generateManifest(shipped, {
      url: parseManifestArgs(['--url', 'https://chat.example.org/bot/']).url!,
    });
    expect(out).not.toContain(PLACEHOLDER);
    expect(out.match(/https:\/\/chat\.example\.org\/bot\/slack\/events/g)).toHaveLength(4);
    expect(out).toContain('    - https://chat.example.org/bot/slack/oauth_redirect');
    expect(out).toMatch(/\n {2}socket_mode_enabled: false\n/);
    expect(body(out)).toEqual(
      body(shipped).map((l) => l.replace(PLACEHOLDER, 'https://chat.example.org/bot')),
    );
  });

  it('--minimal-scopes: no history scopes, and no DM reads unless --dm-watches', () => {
    const full = botScopes(shipped);
    for (const s of [...HISTORY_SCOPES, ...DM_READ_SCOPES]) expect(full).toContain(s);
    const min = botScopes(generateManifest(shipped, { socket: true, minimalScopes: true }));
    expect(min).toEqual(
      full.filter(
        (s) =>
          !(HISTORY_SCOPES as readonly string[]).includes(s) &&
          !(DM_READ_SCOPES as readonly string[]).includes(s),
      ),
    );
    const dm = botScopes(generateManifest(shipped, { socket: true, minimalScopes: true, dmWatches: true }));
    expect(dm).toEqual(full.filter((s) => !(HISTORY_SCOPES as readonly string[]).includes(s)));
    expect(min).toEqual(expect.arrayContaining(['commands', 'chat:write', 'im:write']));
    // The bot asks for (OAuth) and expects (start-up check) the same sets: SLACK_BOT_SCOPES.
    const sorted = (x: readonly string[]) => [...x].sort();
    expect(sorted(botScopesOf({ slack: { scopeSet: 'minimal' } }))).toEqual(sorted(min));
    expect(sorted(botScopesOf({ slack: { scopeSet: 'minimal-dm' } }))).toEqual(sorted(dm));
    expect(sorted(botScopesOf({ slack: {} }))).toEqual(sorted(full));
  });

  it('refuses what Slack would refuse, in words', () => {
    const err = (args: string[]) => {
      try {
        parseManifestArgs(args);
      } catch (e) {
        expect(e).toBeInstanceOf(ManifestUsageError);
        return (e as Error).message;
      }
      throw new Error(`accepted ${args.join(' ')}`);
    };
    expect(err(['--url', 'http://chat.example.org'])).toMatch(
      /not https: Slack calls only https URLs\. Put a TLS-terminating reverse proxy/,
    );
    expect(err([])).toMatch(/^Give --socket or --url/);
    expect(err(['--sockets'])).toMatch(/^Unknown option --sockets/);
    expect(err(['--socket', '--dm-watches'])).toMatch(/goes with --minimal-scopes/);
    expect(() =>
      generateManifest(shipped.replace(`url: ${PLACEHOLDER}`, 'url: https://x.example'), { socket: true }),
    ).toThrow(/expected 5 placeholder URLs/);
  });

  it('is an npm script that prints the manifest (the command README names)', () => {
    const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(pkg.scripts.manifest).toBe('tsx scripts/manifest.ts');
    const tsx = createRequire(import.meta.url).resolve('tsx/cli');
    const r = spawnSync(process.execPath, [tsx, 'scripts/manifest.ts', '--socket'], {
      cwd: root.pathname,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toBe(generateManifest(shipped, { socket: true }));
  }, 70_000);
});
