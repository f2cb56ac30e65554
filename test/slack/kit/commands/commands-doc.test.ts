/**
 * The commands reference (docs/commands.md) must match the registry (help and docs cannot drift). To
 * (re)generate it, run `npm run readme` (scripts/gen-readme.ts), which does the equivalent of:
 *   npx tsx -e "import('../../src/slack/features/index.js').then(async (m) => { const fs = await import('node:fs'); const h = await import('../../src/slack/kit/help.js'); fs.writeFileSync('README.md', h.withCommandsSection(fs.readFileSync('README.md','utf8'), m.registry)); })"
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { registry } from '../../../../src/slack/features/index.js';
import {
  COMMANDS_END,
  COMMANDS_START,
  commandsMarkdown,
  withCommandsSection,
} from '../../../../src/slack/kit/commands/help.js';

const readme = readFileSync(new URL('../../../../docs/commands.md', import.meta.url), 'utf8');

describe('commands reference', () => {
  it('covers every registered command', () => {
    const md = commandsMarkdown(registry);
    for (const e of registry.entries()) {
      if (e.hidden) continue;
      for (const c of e.commands) expect(md).toContain(`\`${[c, ...e.path].join(' ')}`);
    }
    expect(md).toContain('/dwm setup status');
    expect(md).toContain('/drm audit [<1-100>]');
  });
  it('names the site option one way in /dwm and /drm (site:<site id>)', () => {
    const hints = new Map<string, string[]>();
    for (const e of registry.entries()) {
      const site = (e.args as Record<string, { kind: string; hint: string }>).site;
      if (site?.kind !== 'option') continue;
      const names = hints.get(site.hint) ?? [];
      names.push([e.commands[0], ...e.path].join(' '));
      hints.set(site.hint, names);
    }
    expect([...hints.keys()]).toEqual(['<site id>']);
    expect(hints.get('<site id>')!.some((n) => n.startsWith('/dwm'))).toBe(true);
    expect(hints.get('<site id>')!.some((n) => n.startsWith('/drm'))).toBe(true);
    expect(readme).not.toContain('site:XXXX');
  });
  it('replaces only the marked section', () => {
    const doc = `# T\n\n${COMMANDS_START}\nSTALE-PLACEHOLDER-TEXT\n${COMMANDS_END}\n\nafter\n`;
    const out = withCommandsSection(doc, registry);
    expect(out).toContain(commandsMarkdown(registry));
    expect(out).not.toContain('STALE-PLACEHOLDER-TEXT');
    expect(out.endsWith(`${COMMANDS_END}\n\nafter\n`)).toBe(true);
    expect(withCommandsSection(out, registry)).toBe(out);
  });
  it('docs/commands.md is up to date with the registry (regenerate with `npm run readme`)', () => {
    expect(readme).toContain(COMMANDS_START);
    expect(readme).toContain(COMMANDS_END);
    expect(readme).toBe(withCommandsSection(readme, registry));
  });
});
