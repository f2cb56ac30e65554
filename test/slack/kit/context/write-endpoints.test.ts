/**
 * Every POST/PUT the API clients send is known to the error replies as a change (its failure may
 * leave the outcome unknown): a new write endpoint added without its "check before trying again"
 * words fails here.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { WRITE_ENDPOINTS } from '../../../../src/slack/kit/context/errors.js';

/** Endpoint names of the POST/PUT calls in a client's sources (its folder's files, in name order). */
function writesIn(folder: string, prefix: string, call: RegExp, name: RegExp): string[] {
  const dir = new URL(`../../../../src/api/${folder}/`, import.meta.url);
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.ts'))
    .sort();
  expect(files.length).toBeGreaterThan(1);
  return files.flatMap((f) =>
    writesInFile(readFileSync(new URL(f, dir), 'utf8'), `${folder}/${f}`, prefix, call, name),
  );
}

function writesInFile(src: string, file: string, prefix: string, call: RegExp, name: RegExp): string[] {
  const out: string[] = [];
  for (const m of src.matchAll(call)) {
    const before = src.slice(0, m.index);
    const named = m[1]?.startsWith("'") ? m[1].slice(1, -1) : [...before.matchAll(name)].at(-1)?.[1];
    if (!named) throw new Error(`no endpoint name before ${m[0]} in ${file}`);
    out.push(named.startsWith(prefix) ? named : `${prefix}${named}`);
  }
  return out;
}

describe('write endpoints', () => {
  it('every POST/PUT of the service and watermarking clients is listed', () => {
    const svc = writesIn('service', 'svc.', /call\((name|'\w+'), '(?:POST|PUT)'/g, /const name = '(\w+)'/g);
    const wm = writesIn(
      'watermarking',
      '',
      /call\((endpoint), siteId, '(?:POST|PUT)'/g,
      /const endpoint = '(wm\.\w+)'/g,
    );
    expect(svc.length).toBeGreaterThanOrEqual(8);
    expect(wm).toEqual(['wm.registerRecipients', 'wm.modifyRecipient']);
    expect([...svc, ...wm].sort()).toEqual([...WRITE_ENDPOINTS].sort());
  });
});
