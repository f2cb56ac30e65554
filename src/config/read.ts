/**
 * The environment read against the variable table: each setting's text (NAME, else NAME_FILE for
 * a secret one, else a default that is a value rather than words), parsed with its schema. A text
 * that does not parse is an issue naming the variable, with its description (a secret one is never
 * echoed). What the settings mean together is checked afterwards (./checks.ts,
 * ./env-credentials.ts).
 */
import { secretFilesOf } from './secret-files.js';
import type { VariableSpec } from './spec.js';
import type { ConfigIssue, Env } from './types.js';
import { VARIABLES } from './variables.js';

/** The environment as read: what is given, and the values that parsed. */
export interface Settings {
  /** Parsed values by variable name: the valid ones given or defaulted. */
  readonly values: Readonly<Record<string, unknown>>;
  /** Whether the variable is given (NAME, or NAME_FILE for a secret one), valid or not. */
  has(name: string): boolean;
  /** A parsed value read as text (undefined when not given, not defaulted or not valid). */
  str(name: string): string | undefined;
}

/** Every setting of `env` parsed; `issues` lists the unreadable files and the invalid values. */
export function readSettings(env: Env): { settings: Settings; issues: ConfigIssue[] } {
  const files = secretFilesOf(env);
  const issues: ConfigIssue[] = [...files.issues];
  const raw = (name: string): string | undefined => {
    const s = env[name]?.trim();
    return s ? s : files.values.get(name);
  };
  const values: Record<string, unknown> = {};
  for (const spec of VARIABLES) {
    const text = raw(spec.name) ?? (spec.default && !spec.default.includes(' ') ? spec.default : undefined);
    if (text === undefined) continue;
    const r = spec.schema.safeParse(text);
    if (r.success) values[spec.name] = r.data;
    else issues.push(invalidValue(spec, text, r.error.issues[0]?.message));
  }
  const settings: Settings = {
    values,
    has: (name) => raw(name) !== undefined,
    str: (name) => values[name] as string | undefined,
  };
  return { settings, issues };
}

/** The issue of a value its schema refuses: why, the value (unless secret), what the setting is. */
function invalidValue(spec: VariableSpec, text: string, message: string | undefined): ConfigIssue {
  const why = message ?? 'is not valid';
  const shown = spec.secret ? '' : ` (got "${text.length > 60 ? `${text.slice(0, 60)}...` : text}")`;
  return { variable: spec.name, message: `${why}${shown}. ${spec.description}` };
}
