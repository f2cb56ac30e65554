/**
 * manifest.yml's `functions` section: parses (it is JSON-style YAML 1.2, so JSON.parse reads it
 * exactly), is the last top-level key, equals the steps' definition in code, and follows Slack's
 * documented rules for custom steps (checked with a strict schema below, which a wrong type name,
 * a misspelt field, a too long title or a default of the wrong type fails; the schema itself is
 * shown to refuse each of those).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ServiceClient } from '../../../../src/api/types.js';
import { parseServiceCode } from '../../../../src/ops/service/index.js';
import { requestTrialExtension, StepInputError } from '../../../../src/ops/workflow-steps.js';
import { STEP_IDS } from '../../../../src/slack/features/workflow-steps/ids.js';
import {
  type ManifestFunction,
  STEP_MANIFEST,
} from '../../../../src/slack/features/workflow-steps/manifest.js';

const manifest = readFileSync(new URL('../../../../manifest.yml', import.meta.url), 'utf8');

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

  it('declares the manifest schema version whose functions take properties + required (2)', () => {
    // Under major_version 1 a function's input_parameters is a flat map of parameters (each with
    // `name` and `is_required`): `properties` would be read as a parameter and refused.
    const meta = /^_metadata:\n((?:[ ]+.*\n)+)/m.exec(manifest);
    expect(meta?.[1]).toMatch(/^ {2}major_version: 2$/m);
    const fns = functionsSection() as Record<string, ManifestFunction>;
    for (const f of Object.values(fns)) {
      expect(Object.keys(f.input_parameters).sort()).toEqual(['properties', 'required']);
      expect(Object.keys(f.output_parameters).sort()).toEqual(['properties', 'required']);
    }
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

// ---------------------------------------------------------------------------------------------
// Slack's documented rules for `functions` (custom steps), as a strict schema.
// Sources (read 2026-11): docs.slack.dev "Custom steps" (Bolt): the key is the step's callback_id,
// at most 100 characters; `title` is required, at most 255 characters; `description` a string;
// `input_parameters` / `output_parameters` objects whose `properties` map a unique name to a
// parameter with `type`, `title`, `description`, `hint` (and `dynamic_options`); `required` lists
// names defined in `properties`. @slack/web-api's manifest types: at most 50 properties per
// parameter set; `minLength`/`maxLength` for strings, `minimum`/`maximum` for numbers.
// docs.slack.dev "string type": `enum` (string[]: Workflow Builder shows a dropdown) and `choices`
// (EnumChoice: `value` of the enum, `title`, `description`).
// docs.slack.dev "Slack types" and the Deno Slack SDK's schema types: the type names below.
// Rules of this project on top (not Slack's): every step and parameter has a non-empty title
// and description (Workflow Builder users read them).
// ---------------------------------------------------------------------------------------------

// Built-in types (Deno Slack SDK `Schema.types`): string, boolean, integer, number, object and
// array, one branch each in `paramSchema`.
/** Slack types (`slack#/types/...`), as documented. */
const SLACK_TYPES = [
  'user_id',
  'channel_id',
  'usergroup_id',
  'date',
  'timestamp',
  'blocks',
  'credential/oauth2',
  'rich_text',
  'expanded_rich_text',
  'message_ts',
  'message_context',
  'user_context',
  'interactivity',
  'canvas_id',
  'canvas_template_id',
  'list_id',
  'file_id',
].map((t) => `slack#/types/${t}`);

const common = {
  title: z.string().min(1, 'a parameter needs a title (this project)'),
  description: z.string().min(1, 'a parameter needs a description (this project)'),
  hint: z.string().min(1).optional(),
  name: z.string().optional(),
};
const paramSchema = z.discriminatedUnion('type', [
  z
    .strictObject({
      ...common,
      type: z.literal('string'),
      default: z.string().optional(),
      minLength: z.number().int().nonnegative().optional(),
      maxLength: z.number().int().positive().optional(),
      enum: z.array(z.string()).min(1).optional(),
      choices: z
        .array(
          z.strictObject({
            value: z.string(),
            title: z.string().min(1),
            description: z.string().optional(),
          }),
        )
        .optional(),
    })
    .superRefine((p, ctx) => {
      // docs.slack.dev "string type": `choices` label the values of the sibling `enum`.
      for (const c of p.choices ?? []) {
        if (!p.enum?.includes(c.value))
          ctx.addIssue({ code: 'custom', message: `choice "${c.value}" is not in enum` });
      }
      if (p.default !== undefined && p.enum && !p.enum.includes(p.default))
        ctx.addIssue({ code: 'custom', message: `default "${p.default}" is not in enum` });
    }),
  z.strictObject({
    ...common,
    type: z.literal('integer'),
    default: z.number().int().optional(),
    minimum: z.number().optional(),
    maximum: z.number().optional(),
    enum: z.array(z.number().int()).optional(),
  }),
  z.strictObject({
    ...common,
    type: z.literal('number'),
    default: z.number().optional(),
    minimum: z.number().optional(),
    maximum: z.number().optional(),
  }),
  z.strictObject({ ...common, type: z.literal('boolean'), default: z.boolean().optional() }),
  z.strictObject({ ...common, type: z.literal('array'), items: z.object({ type: z.string() }) }),
  z.strictObject({ ...common, type: z.literal('object'), properties: z.record(z.string(), z.unknown()) }),
  z.strictObject({
    ...common,
    type: z.enum(SLACK_TYPES as [string, ...string[]]),
    default: z.string().optional(),
  }),
]);
const paramSetSchema = z
  .strictObject({
    properties: z
      .record(z.string().regex(/^[a-z0-9_]+$/), paramSchema)
      .refine((p) => Object.keys(p).length <= 50, 'at most 50 parameters'),
    required: z.array(z.string()),
  })
  .superRefine((set, ctx) => {
    for (const r of set.required) {
      if (!(r in set.properties))
        ctx.addIssue({ code: 'custom', message: `required names "${r}", not a parameter` });
    }
  });
const functionsSchema = z.record(
  z.string().min(1).max(100),
  z.strictObject({
    title: z.string().min(1).max(255),
    description: z.string().min(1, 'a step needs a description (this project)'),
    input_parameters: paramSetSchema,
    output_parameters: paramSetSchema,
  }),
);

function problems(fns: unknown): string[] {
  const r = functionsSchema.safeParse(fns);
  return r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
}

describe("the trial step's Service dropdown", () => {
  it('offers exactly what the step accepts at run time; other text is still refused there', async () => {
    const service = STEP_MANIFEST[STEP_IDS.trial]!.input_parameters.properties.service!;
    expect(service.enum).toEqual(['DRM', 'FWM']);
    expect(service.choices?.map((c) => c.value)).toEqual(service.enum);
    for (const v of service.enum!) expect(() => parseServiceCode(v)).not.toThrow();
    // A workflow variable can carry anything: the step checks it before any call.
    const svc = {} as ServiceClient;
    await expect(requestTrialExtension(svc, 'DEMO', 'XYZ', undefined)).rejects.toThrow(StepInputError);
  });
});

describe("manifest.yml functions against Slack's documented rules", () => {
  it('the section passes', () => {
    expect(problems(functionsSection())).toEqual([]);
  });

  it('a wrong type name, a misspelt field, a long title, a bad required or default are refused', () => {
    const broken = (edit: (f: Record<string, ManifestFunction>) => void) => {
      const copy = JSON.parse(JSON.stringify(functionsSection())) as Record<string, ManifestFunction>;
      edit(copy);
      return problems(copy);
    };
    const wait = (f: Record<string, ManifestFunction>) => f[STEP_IDS.waitForJob] as ManifestFunction;
    for (const wrong of ['int', 'text', 'slack#/types/user', 'slack#/types/userid', 'String']) {
      expect(
        broken((f) => {
          wait(f).output_parameters.properties.complete_count!.type = wrong;
        }),
        wrong,
      ).not.toEqual([]);
    }
    expect(
      broken((f) => {
        (wait(f).input_parameters.properties.job_id as unknown as Record<string, unknown>).desciption =
          'typo';
      }),
    ).not.toEqual([]);
    expect(
      broken((f) => {
        wait(f).title = 'x'.repeat(256);
      }),
    ).not.toEqual([]);
    expect(
      broken((f) => {
        wait(f).input_parameters.required.push('job');
      }),
    ).toEqual([expect.stringContaining('required names "job"')]);
    expect(
      broken((f) => {
        wait(f).input_parameters.properties.timeout_hours!.default = '24';
      }),
    ).not.toEqual([]);
    expect(
      broken((f) => {
        f['x'.repeat(101)] = wait(f);
      }),
    ).not.toEqual([]);
    const service = (f: Record<string, ManifestFunction>) =>
      (f[STEP_IDS.trial] as ManifestFunction).input_parameters.properties.service!;
    expect(
      broken((f) => {
        service(f).choices!.push({ value: 'XYZ', title: 'Not a service' });
      }),
    ).toEqual([expect.stringContaining('choice "XYZ" is not in enum')]);
    expect(
      broken((f) => {
        (service(f).choices![0] as Record<string, unknown>).label = 'typo';
      }),
    ).not.toEqual([]);
  });
});
