/**
 * Command text parsing: Slack's escaping is decoded first, then the text is split into free words
 * and `key:value` options, then matched against an entry's argument spec (zod schemas).
 *
 * Rules:
 * - Words are separated by whitespace. A word may be quoted with "…", '…', “…” or ‘…’ (smart quotes
 *   from Slack clients); inside quotes, `\` escapes the closing quote and itself.
 * - `key:value` is an option when key is a letter followed by letters/digits/`_`/`-` and the value
 *   does not start with `//` (so `https://x` stays a word). The value may be quoted: `content:"a b"`.
 * - The bare word `share` (unquoted, any case) is the share flag: the reply goes to the channel.
 * - A list option splits unquoted values on commas (`status:ready,error`); repeating a list
 *   option adds to it. Repeating a single-valued option is an error.
 * Every failure is a ParseError whose message says what to fix.
 */
import { z } from 'zod';
import { editDistance } from '../../../edit-distance.js';

/** A Slack channel id (public C…, private G…), as a linked `#channel` decodes to. */
export function isChannelId(text: string): boolean {
  return /^[CG][A-Z0-9]{2,}$/.test(text);
}

export class ParseError extends Error {
  /** Usage line(s) to show with the message, filled in by the dispatcher when known. */
  usage?: string;
  constructor(message: string, usage?: string) {
    super(message);
    this.name = 'ParseError';
    if (usage) this.usage = usage;
  }
}

// ---------------------------------------------------------------------------------------------
// Slack escaping
// ---------------------------------------------------------------------------------------------

/**
 * Decode what Slack does to command text: `<@U123|name>` -> `U123`, `<#C123|name>` -> `C123`,
 * `<!subteam^S123|@team>` -> `S123`, `<mailto:a@b.c|a@b.c>` -> `a@b.c`, `<http://x|label>` -> `http://x`,
 * other `<!…>` specials -> `@here`-style words; then `&lt;` `&gt;` `&amp;`. The angle-bracket forms
 * are decoded before the entities, so a user who typed `&lt;@U1&gt;` gets the literal text back,
 * never a mention.
 */
export function decodeSlackText(text: string): string {
  const replaced = text.replace(/<([^<>]*)>/g, (_m, inner: string) => {
    const [target = '', label] = inner.split('|', 2);
    if (target.startsWith('@') || target.startsWith('#')) return target.slice(1);
    if (target.startsWith('!subteam^')) return target.slice('!subteam^'.length);
    if (target.startsWith('!')) {
      const name = target.slice(1).split('^')[0] ?? '';
      return label ?? `@${name}`;
    }
    if (target.toLowerCase().startsWith('mailto:')) return target.slice('mailto:'.length);
    return target;
  });
  return replaced.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

// ---------------------------------------------------------------------------------------------
// Tokenizer
// ---------------------------------------------------------------------------------------------

export type Token =
  | { kind: 'word'; value: string; quoted: boolean; raw: string }
  | { kind: 'option'; key: string; value: string; quoted: boolean; raw: string };

const OPEN_QUOTES: Record<string, string[]> = {
  '"': ['"'],
  "'": ["'"],
  '\u201c': ['\u201d', '\u201c', '"'],
  '\u201d': ['\u201d', '\u201c', '"'],
  '\u2018': ['\u2019', '\u2018'],
};
const KEY_RE = /^([A-Za-z][A-Za-z0-9_-]*):/;
const isSpace = (ch: string) => /\s/.test(ch);

/** Read a quoted string starting at `start` (the opening quote). Returns the value and the end index. */
function readQuoted(text: string, start: number): { value: string; end: number } {
  const open = text[start]!;
  const closers = OPEN_QUOTES[open]!;
  let value = '';
  let i = start + 1;
  while (i < text.length) {
    const ch = text[i]!;
    if (ch === '\\' && i + 1 < text.length) {
      const next = text[i + 1]!;
      if (next === '\\' || closers.includes(next)) {
        value += next;
        i += 2;
        continue;
      }
    }
    if (closers.includes(ch)) return { value, end: i + 1 };
    value += ch;
    i += 1;
  }
  const from = text.slice(Math.max(0, start - 20), start + 20);
  throw new ParseError(
    `The quote ${open} in \`${from.replace(/`/g, "'")}\` is never closed. Add the closing ${closers[0]} after the value.`,
  );
}

/** Split decoded command text into words and options. Throws ParseError only. */
export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    if (isSpace(text[i]!)) {
      i += 1;
      continue;
    }
    const start = i;
    const ch = text[i]!;
    if (OPEN_QUOTES[ch]) {
      const q = readQuoted(text, i);
      i = q.end;
      if (i < text.length && !isSpace(text[i]!)) {
        throw new ParseError(
          `Put a space after the closing quote of "${q.value.slice(0, 40)}" (found \`${text[i]}\` right after it).`,
        );
      }
      tokens.push({ kind: 'word', value: q.value, quoted: true, raw: text.slice(start, i) });
      continue;
    }
    const key = KEY_RE.exec(text.slice(i, i + 64));
    if (key && !text.startsWith('//', i + key[0].length)) {
      i += key[0].length;
      const vch = text[i];
      if (vch !== undefined && OPEN_QUOTES[vch]) {
        const q = readQuoted(text, i);
        i = q.end;
        if (i < text.length && !isSpace(text[i]!)) {
          throw new ParseError(
            `Put a space after the closing quote of \`${key[1]}:\` (found \`${text[i]}\` right after it).`,
          );
        }
        tokens.push({
          kind: 'option',
          key: key[1]!,
          value: q.value,
          quoted: true,
          raw: text.slice(start, i),
        });
        continue;
      }
      let value = '';
      while (i < text.length && !isSpace(text[i]!)) value += text[i++];
      tokens.push({ kind: 'option', key: key[1]!, value, quoted: false, raw: text.slice(start, i) });
      continue;
    }
    let value = '';
    while (i < text.length && !isSpace(text[i]!)) value += text[i++];
    tokens.push({ kind: 'word', value, quoted: false, raw: value });
  }
  return tokens;
}

/** Quote a value so that `tokenize` gives it back unchanged (used by help examples and tests). */
export function quoteValue(value: string): string {
  // A value starting with `//` is quoted too: unquoted after `key:` it would read as a URL word.
  if (
    value !== '' &&
    !/[\s"'\u201c\u201d\u2018\u2019\\]/.test(value) &&
    !KEY_RE.test(value) &&
    !value.startsWith('//')
  ) {
    if (value.toLowerCase() !== 'share') return value;
  }
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

// ---------------------------------------------------------------------------------------------
// Argument specs
// ---------------------------------------------------------------------------------------------

export interface ArgSpec<V = unknown> {
  kind: 'positional' | 'option' | 'rest';
  /** Schema of ONE value (each item for lists and rest). */
  schema: z.ZodType;
  required: boolean;
  list: boolean;
  /** How to write the value, shown in usage: `<job id>`, `ready|error`. */
  hint: string;
  description: string;
  /** The input offered when the argument is missing (default a text field). */
  picker?: 'users' | 'channel';
  /** Phantom: the value type the handler receives. */
  readonly __value?: V;
}

export type ArgsSpec = Record<string, ArgSpec>;
export type ArgsOf<A extends ArgsSpec> = { [K in keyof A]: A[K] extends ArgSpec<infer V> ? V : never } & {
  share: boolean;
};

interface ArgMeta {
  hint: string;
  description: string;
  /** The input offered when the argument is missing (default a text field). */
  picker?: 'users' | 'channel';
}

/** A required positional word. */
export function required<S extends z.ZodType>(schema: S, meta: ArgMeta): ArgSpec<z.output<S>> {
  return { kind: 'positional', schema, required: true, list: false, ...meta };
}
/** An optional positional word. */
export function optional<S extends z.ZodType>(schema: S, meta: ArgMeta): ArgSpec<z.output<S> | undefined> {
  return { kind: 'positional', schema, required: false, list: false, ...meta };
}
/** Every remaining word (after the positionals), each checked by the schema. */
export function rest<S extends z.ZodType>(
  schema: S,
  meta: ArgMeta & { required?: boolean },
): ArgSpec<z.output<S>[]> {
  return { kind: 'rest', schema, required: meta.required ?? false, list: true, ...meta };
}
/** A `key:value` option given at most once. The key is the record key of the spec. */
export function option<S extends z.ZodType>(
  schema: S,
  meta: ArgMeta & { required?: false },
): ArgSpec<z.output<S> | undefined>;
export function option<S extends z.ZodType>(
  schema: S,
  meta: ArgMeta & { required: true },
): ArgSpec<z.output<S>>;
export function option<S extends z.ZodType>(
  schema: S,
  meta: ArgMeta & { required?: boolean },
): ArgSpec<z.output<S> | undefined> {
  return { kind: 'option', schema, required: meta.required ?? false, list: false, ...meta };
}
/** A `key:a,b` option; repeated keys add to the list. Empty list when not given. */
export function listOption<S extends z.ZodType>(schema: S, meta: ArgMeta): ArgSpec<z.output<S>[]> {
  return { kind: 'option', schema, required: false, list: true, ...meta };
}

/** Common value schemas with user-facing messages. */
export const values = {
  /** Digits only, as typed (a sign allowed): `0x10`, `1e3` or `12.0` would read as another number. */
  int: (min: number, max: number) =>
    z.preprocess(
      (v) => (typeof v === 'string' && !/^\s*[+-]?\d+\s*$/.test(v) ? Number.NaN : v),
      z.coerce
        .number({ error: `must be a whole number from ${min} to ${max}` })
        .int({ error: `must be a whole number from ${min} to ${max}` })
        .min(min, { error: `must be at least ${min}` })
        .max(max, { error: `must be at most ${max}` }),
    ),
  text: (max = 3000) =>
    z
      .string()
      .min(1, { error: 'must not be empty' })
      .max(max, { error: `must be at most ${max} characters` }),
  oneOf: <T extends string>(choices: readonly [T, ...T[]]) =>
    z
      .string()
      .transform((s) => s.toLowerCase())
      .pipe(z.enum(choices, { error: `must be one of ${choices.join(', ')}` })),
};

/** One line of usage: `/dwm jobs [<status>] [site:<site id>]`. */
export function usageOf(prefix: string, spec: ArgsSpec): string {
  const parts: string[] = [prefix];
  for (const [name, a] of Object.entries(spec)) {
    const hint = a.hint || name;
    // A hint may already carry its own brackets ("[user id]", "[drm|fwm] [message]") or its own
    // ellipsis ("@user…"): never doubled.
    const bracketed = /^\[.*\]$/.test(hint);
    let p: string;
    if (a.kind === 'option') p = `${name}:${hint}`;
    else if (a.kind === 'rest') {
      if (hint.endsWith('…')) p = hint;
      else if (hint.endsWith(']')) p = `${hint.slice(0, -1)}…]`;
      else p = `${hint}…`;
    } else p = hint;
    parts.push(a.required || bracketed ? p : `[${p}]`);
  }
  return parts.join(' ');
}

export interface ParsedArgs {
  values: Record<string, unknown>;
  share: boolean;
  /** Names of required arguments that were not given (the dispatcher decides: error or modal). */
  missing: string[];
}

function checkValue(name: string, a: ArgSpec, raw: string, shown: string): unknown {
  const r = a.schema.safeParse(raw);
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  const why = issue && !/^Invalid input/i.test(issue.message) ? issue.message : `must be ${a.hint || name}`;
  throw new ParseError(`\`${shown.slice(0, 80)}\` is not valid: ${name} ${why}.`);
}

/** The closest candidates to `word` (distance <= max(1, len/3)), best first, at most 3. */
export function suggest(word: string, candidates: Iterable<string>): string[] {
  const w = word.toLowerCase();
  const limit = Math.max(1, Math.floor(w.length / 3));
  const scored: Array<[string, number]> = [];
  for (const c of new Set(candidates)) {
    const dist = editDistance(w, c.toLowerCase());
    const prefix = c.toLowerCase().startsWith(w) && w.length >= 3;
    if (dist <= limit || prefix) scored.push([c, prefix ? Math.min(dist, 1) : dist]);
  }
  return scored
    .sort((x, y) => x[1] - y[1] || x[0].localeCompare(y[0]))
    .slice(0, 3)
    .map(([c]) => c);
}

/**
 * Match tokens against a spec. Positionals fill in order, then `rest` takes the remainder.
 * Missing required arguments are reported in `missing` (not thrown) so the caller may open a modal.
 */
export function parseArgs(tokens: Token[], spec: ArgsSpec): ParsedArgs {
  const values: Record<string, unknown> = {};
  let share = false;
  const entries = Object.entries(spec);
  const positionals = entries.filter(([, a]) => a.kind === 'positional');
  const restArg = entries.find(([, a]) => a.kind === 'rest');
  const options = new Map(entries.filter(([, a]) => a.kind === 'option'));
  for (const [name, a] of entries) if (a.list) values[name] = [];

  let pos = 0;
  for (const t of tokens) {
    if (t.kind === 'word') {
      if (!t.quoted && t.value.toLowerCase() === 'share') {
        share = true;
        continue;
      }
      const p = positionals[pos];
      if (p) {
        values[p[0]] = checkValue(p[0], p[1], t.value, t.raw);
        pos += 1;
      } else if (restArg) {
        (values[restArg[0]] as unknown[]).push(checkValue(restArg[0], restArg[1], t.value, t.raw));
      } else {
        throw new ParseError(`Unexpected \`${t.raw.slice(0, 80)}\`: this command takes no more words.`);
      }
      continue;
    }
    const key = t.key.toLowerCase();
    const a = options.get(key);
    if (!a) {
      const known = [...options.keys()];
      const near = suggest(key, known);
      const hint = near.length
        ? ` Did you mean \`${near[0]}:\`?`
        : known.length
          ? ` Options here: ${known.map((k) => `\`${k}:\``).join(', ')}.`
          : ' This command takes no options.';
      throw new ParseError(`Unknown option \`${t.key}:\`.${hint}`);
    }
    if (t.value === '' && !t.quoted) {
      throw new ParseError(`\`${t.key}:\` needs a value right after the colon, like \`${key}:${a.hint}\`.`);
    }
    if (a.list) {
      const items = t.quoted
        ? [t.value]
        : t.value
            .split(',')
            .map((s) => s.trim())
            .filter(Boolean);
      for (const item of items) (values[key] as unknown[]).push(checkValue(key, a, item, `${key}:${item}`));
    } else {
      if (key in values) throw new ParseError(`\`${key}:\` is given twice; give it once.`);
      values[key] = checkValue(key, a, t.value, t.raw);
    }
  }
  const missing = entries
    .filter(
      ([name, a]) => a.required && (a.list ? (values[name] as unknown[]).length === 0 : !(name in values)),
    )
    .map(([name]) => name);
  return { values, share, missing };
}
