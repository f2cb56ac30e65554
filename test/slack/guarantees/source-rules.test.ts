/**
 * Rules of the Slack layer's shape that no type checker or dependency rule sees:
 * - Bolt listeners are registered by the kit only (commands through the registry, buttons and
 *   modals through kit/interactions/registry.ts, custom steps through kit/interactions/steps.ts): a feature that
 *   called app.action / app.view / app.command / app.function itself would skip the kit's guards
 *   (workspace tag, role, schema-checked values, error replies).
 * - Block Kit is typed on @slack/types: no `as never` cast hides a payload from the compiler.
 * - Lists page with the kit's Previous / Next (kit/blocks/paging.ts) and a job's tasks are exported by
 *   shared/jobs/export.ts: one set of labels and one file name, not one per feature.
 * - A command that can open a form declares `opensModal`: it then runs at the ack, not behind the
 *   handler queue, where its trigger id (3 s) could expire.
 * - So does a button whose handler opens a view: the user check at click time (guests, admins)
 *   then waits for users.info only briefly before the trigger id is used.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FEATURES, registry } from '../../../src/slack/features/index.js';
import { interactionsOf } from '../../../src/slack/kit/features.js';

const SLACK = new URL('../../../src/slack/', import.meta.url).pathname;

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? tsFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** Source without comments (a doc comment may name the calls it forbids). */
function code(file: string): string {
  return readFileSync(file, 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/^\s*\/\/.*$/gm, '');
}

const files = tsFiles(SLACK).map((f) => ({ path: relative(SLACK, f), code: code(f) }));

describe('the Slack layer', () => {
  it('has its files (the walk found the features)', () => {
    expect(files.some((f) => f.path.startsWith('features/'))).toBe(true);
    expect(files.length).toBeGreaterThan(50);
  });

  it('registers Bolt listeners in the kit only', () => {
    const listener = /\bapp\.(action|view|command|function|shortcut|options)\(/;
    const outside = files
      .filter((f) => !f.path.startsWith('kit/') && listener.test(f.code))
      .map((f) => f.path);
    expect(outside).toEqual([]);
  });

  it('casts no Block Kit payload to never', () => {
    expect(files.filter((f) => /\bas never\b/.test(f.code)).map((f) => f.path)).toEqual([]);
  });

  it('builds paging buttons in kit/blocks/paging.ts only', () => {
    const paging = /\bbutton\(\s*['"`](◀ ?)?(Prev|Previous|Next)\b/;
    expect(
      files.filter((f) => f.path !== 'kit/blocks/paging.ts' && paging.test(f.code)).map((f) => f.path),
    ).toEqual([]);
  });

  it('checks a Service API site id with one schema (shared/svc/values.ts siteIdValue)', () => {
    expect(
      files
        .filter((f) => f.path !== 'shared/svc/values.ts' && /\bSITE_ID_RE\b/.test(f.code))
        .map((f) => f.path),
    ).toEqual([]);
  });

  it("names a job's task export in shared/jobs/export.ts only", () => {
    expect(
      files.filter((f) => f.path !== 'shared/jobs/export.ts' && /tasks\.csv/.test(f.code)).map((f) => f.path),
    ).toEqual([]);
  });
});

describe('ARCHITECTURE.md', () => {
  it('names every file of the kit (by its path in the kit) and of the shared feature code', () => {
    const doc = readFileSync(new URL('../../../ARCHITECTURE.md', import.meta.url), 'utf8');
    const kit = files.filter((f) => f.path.startsWith('kit/')).map((f) => f.path.slice('kit/'.length));
    expect(kit.length).toBeGreaterThan(10);
    expect(kit.filter((name) => !doc.includes(`\`${name}\``))).toEqual([]);
    const shared = files.filter((f) => f.path.startsWith('shared/')).map((f) => f.path);
    expect(shared.length).toBeGreaterThan(5);
    expect(shared.filter((name) => !doc.includes(`\`${name}\``))).toEqual([]);
  });
});

describe('the command registry', () => {
  it('every command whose handler opens a view declares opensModal', () => {
    const opening = registry.entries().filter((e) => /\bopenView\(/.test(String(e.handler)));
    expect(opening.length).toBeGreaterThan(0);
    expect(opening.filter((e) => !e.opensModal).map((e) => e.path.join(' '))).toEqual([]);
  });
});

describe('the interaction kit', () => {
  it('every button whose handler opens a view declares opensModal (or stands for a command)', () => {
    const buttons = interactionsOf(FEATURES).flatMap((i) => (i.kind === 'button' ? [i] : []));
    const opening = buttons.filter((b) => /\bopenView\(/.test(String(b.run)));
    expect(opening.length).toBeGreaterThan(0);
    expect(opening.filter((b) => !b.opensModal && !b.opens).map((b) => b.name)).toEqual([]);
  });
});
