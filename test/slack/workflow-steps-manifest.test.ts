/**
 * manifest.yml's `functions` section: parses (it is JSON-style YAML 1.2, so JSON.parse reads it
 * exactly), is the last top-level key, equals the steps' definition in code, and has what Slack's
 * manifest schema requires of a custom step (title, description, typed input and output
 * parameters with titles, `required` naming existing parameters, callback ids as registered).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { STEP_IDS } from '../../src/slack/features/workflow-steps/ids.js';
import { type ManifestFunction, STEP_MANIFEST } from '../../src/slack/features/workflow-steps/manifest.js';

const manifest = readFileSync(new URL('../../manifest.yml', import.meta.url), 'utf8');

/** Parameter types Slack accepts for custom step inputs/outputs (those used here). */
const TYPES = new Set([
  'string',
  'integer',
  'number',
  'boolean',
  'slack#/types/user_id',
  'slack#/types/channel_id',
]);

function functionsSection(): unknown {
  const m = /\nfunctions:\n([\s\S]*)$/.exec(manifest);
  if (!m) throw new Error('manifest.yml has no top-level functions: section');
  return JSON.parse(m[1]!);
}

describe('manifest.yml functions section', () => {
  it('is the last top-level key, appears once, and parses', () => {
    expect(manifest.match(/^functions:/gm)).toHaveLength(1);
    const after = manifest
      .slice(manifest.indexOf('\nfunctions:\n') + 1)
      .split('\n')
      .slice(1);
    expect(after.filter((l) => /^\S/.test(l) && !/^[}\]]/.test(l))).toEqual([]);
    expect(() => functionsSection()).not.toThrow();
  });

  it('equals the definition in code (regenerate with manifestSection())', () => {
    expect(functionsSection()).toEqual(JSON.parse(JSON.stringify(STEP_MANIFEST)));
  });

  it('declares exactly the registered steps', () => {
    expect(Object.keys(functionsSection() as object).sort()).toEqual(Object.values(STEP_IDS).sort());
  });

  it('has the fields Slack requires for each step and parameter', () => {
    const fns = functionsSection() as Record<string, ManifestFunction>;
    for (const [id, f] of Object.entries(fns)) {
      expect(id).toMatch(/^[a-z0-9_]{1,100}$/);
      expect(f.title.length, id).toBeGreaterThan(0);
      expect(f.title.length, id).toBeLessThanOrEqual(255);
      expect(f.description.length, id).toBeGreaterThan(0);
      for (const side of ['input_parameters', 'output_parameters'] as const) {
        const p = f[side];
        const names = Object.keys(p.properties);
        expect(names.length, `${id} ${side}`).toBeGreaterThan(0);
        for (const r of p.required) expect(names, `${id} ${side} required`).toContain(r);
        for (const [name, param] of Object.entries(p.properties)) {
          expect(name).toMatch(/^[a-z0-9_]+$/);
          expect(TYPES.has(param.type), `${id}.${name} type ${param.type}`).toBe(true);
          expect(param.title.length, `${id}.${name}`).toBeGreaterThan(0);
          expect(param.description.length, `${id}.${name}`).toBeGreaterThan(0);
        }
      }
    }
  });
});
