/**
 * Data that leaves Slack's message surfaces as a file (CSV of a job's tasks, licenses, users, a
 * registration preview or report) is an export, and every export is an audit entry: each source
 * file that uploads a file also writes an audit entry.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const SLACK = new URL('../../../src/slack/', import.meta.url).pathname;

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? tsFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

const code = (f: string) =>
  readFileSync(f, 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/^\s*\/\/.*$/gm, '');

describe('exports are audited', () => {
  it('every file that uploads a file (uploadFile) also appends an audit entry', () => {
    const uploaders = tsFiles(SLACK)
      .filter((f) => !f.endsWith('kit/web/files.ts'))
      .map((f) => ({ path: relative(SLACK, f), src: code(f) }))
      .filter((f) => /\buploadFile\(/.test(f.src));
    expect(uploaders.length).toBeGreaterThanOrEqual(4);
    const unaudited = uploaders.filter((f) => !/\baudit\(/.test(f.src)).map((f) => f.path);
    expect(unaudited).toEqual([]);
  });
});
