/**
 * Help cards from the registry (every level: command, group, entry) and the Markdown commands
 * reference for the README (`commandsMarkdown`), so help and docs can never drift apart.
 */

import {
  actions,
  type Block,
  button,
  context,
  header,
  type Message,
  message,
  section,
} from '../blocks/blocks.js';
import { code, esc, truncate } from '../blocks/mrkdwn.js';
import { encodeValue } from '../blocks/values.js';
import type { Role, SlashCommand } from '../context/types.js';
import type { RegisteredEntry } from './command-entry.js';
import { type ArgsSpec, usageOf } from './parse.js';

/** What help reads from the registry (./registry.ts's CommandRegistry). */
export interface CommandRegistry {
  entries(command?: SlashCommand): RegisteredEntry[];
  under(command: SlashCommand, prefix: readonly string[]): RegisteredEntry[];
}

const TITLES: Record<SlashCommand, string> = {
  '/dwm': 'Forensic watermarking',
  '/drm': 'DRM service account, plans and data',
};

function name(command: SlashCommand, path: readonly string[]): string {
  return [command, ...path].join(' ');
}

function usage(command: SlashCommand, e: RegisteredEntry): string {
  return usageOf(name(command, e.path), e.args as ArgsSpec);
}

const lock = (e: RegisteredEntry) =>
  e.role === 'admin' ? (e.personalData ? ' :lock: _admins, personal-data group_' : ' :lock: _admins_') : '';

/**
 * The task a command serves, by its first word: help lists commands grouped by task, in the order
 * of each task's first command. A first word not listed here goes under "More".
 */
const TASKS: ReadonlyArray<readonly [task: string, words: readonly string[]]> = [
  ['Jobs', ['job', 'jobs']],
  ['Recipients', ['recipients', 'recipient', 'register']],
  ['Notifications in this channel', ['watch', 'unwatch', 'watches', 'digest', 'alerts']],
  ['Sites and plans', ['sites', 'site', 'plan']],
  ['Licenses and usage', ['licenses', 'users', 'devices', 'cids', 'packaging', 'stats']],
  ['Set-up', ['setup', 'members', 'settings', 'fpscert', 'audit', 'debug']],
];
const taskOf = (e: RegisteredEntry) => TASKS.find(([, ws]) => ws.includes(e.path[0] ?? ''))?.[0] ?? 'More';

/** The summary's first clause, for one line in a list ("Register recipients: a form…" -> "Register recipients"). */
const shortSummary = (summary: string) => summary.split(/ \(|: | — |; /)[0]!.replace(/[.,]$/, '');

/** One line per command, the bare command (no options), grouped by task, in sections under 3000. */
function listBlocks(command: SlashCommand, entries: RegisteredEntry[], grouped: boolean): Block[] {
  const byTask = new Map<string, RegisteredEntry[]>();
  for (const e of entries) {
    const t = grouped ? taskOf(e) : '';
    byTask.set(t, [...(byTask.get(t) ?? []), e]);
  }
  // Groups in the order of their first command (the registry's order: everyday commands first).
  const lines: string[] = [];
  for (const [t, es] of byTask) {
    if (t) lines.push(`*${t}*`);
    for (const e of es) lines.push(`${code(name(command, e.path))} ${esc(shortSummary(e.summary))}`);
  }
  const blocks: Block[] = [];
  let chunk = '';
  for (const line of lines) {
    if (chunk.length + line.length + 1 > 2900) {
      blocks.push(section(chunk));
      chunk = '';
    }
    chunk += (chunk ? '\n' : '') + line;
  }
  if (chunk) blocks.push(section(chunk));
  return blocks;
}

/**
 * Help for a command or a group of subcommands (`/dwm help`, `/drm plan help`): one line per
 * command, grouped by task. A member sees what they can run and one line saying admins have more;
 * an admin sees the admin-only commands in their own section. Full syntax: `help <command>`.
 */
export function groupHelp(
  reg: CommandRegistry,
  command: SlashCommand,
  path: readonly string[],
  role: Role = 'member',
): Message {
  const all = reg.under(command, path).filter((e) => !e.hidden);
  const everyone = all.filter((e) => e.role !== 'admin');
  const adminOnly = all.filter((e) => e.role === 'admin');
  const title = path.length ? `${name(command, path)} commands` : `${command}: ${TITLES[command]}`;
  const grouped = path.length === 0;
  const blocks: Block[] = [header(title)];
  if (all.length === 0) blocks.push(section('No commands here yet.'));
  if (everyone.length) blocks.push(...listBlocks(command, everyone, grouped));
  if (adminOnly.length && role === 'admin') {
    blocks.push(section(':lock: *Admins only*'), ...listBlocks(command, adminOnly, false));
  } else if (adminOnly.length) {
    blocks.push(
      context(
        `:lock: Admins have ${adminOnly.length} more command${adminOnly.length === 1 ? '' : 's'} here (set-up and administration).`,
      ),
    );
  }
  blocks.push(
    context(
      `${code(`${name(command, path)} help <command>`)} shows a command's options and examples. Add ${code('share')} to post an answer in the channel.`,
    ),
  );
  const shownEntries = role === 'admin' ? all : everyone;
  return message(`${title}. Commands: ${shownEntries.map((e) => name(command, e.path)).join(', ')}.`, blocks);
}

/** Help card of one entry: usage, description, arguments, examples, who may run it. */
export function entryHelp(_reg: CommandRegistry, command: SlashCommand, e: RegisteredEntry): Message {
  const blocks: Block[] = [
    header(name(command, e.path)),
    section(`${esc(e.summary)}${lock(e)}\n${code(usage(command, e))}`),
  ];
  if (e.description) blocks.push(section(e.description));
  const args = Object.entries(e.args as ArgsSpec);
  if (args.length) {
    const lines = args.map(([n, a]) => {
      const label = a.kind === 'option' ? `${n}:${a.hint || n}` : a.hint || n;
      return `• ${code(label)}${a.required ? '' : ' _(optional)_'}: ${esc(a.description)}`;
    });
    blocks.push(section(`*Arguments*\n${lines.join('\n')}`));
  }
  if (e.examples?.length) {
    blocks.push(section(`*Examples*\n${e.examples.map((x) => code(`${command} ${x}`)).join('\n')}`));
  }
  const also = e.aliases?.length ? `Also: ${e.aliases.map((a) => code(a)).join(', ')}. ` : '';
  const who =
    e.role !== 'admin'
      ? 'Anyone in the workspace can run this.'
      : e.personalData
        ? ":lock: Admins only, and members of the user groups in PERSONAL_DATA_USERGROUP: it shows end viewers' personal data."
        : ':lock: Admins only.';
  blocks.push(
    context(
      `${also}${who} Options are written ${code('key:value')}; quote values with spaces (${code('content:"a b"')}).`,
    ),
  );
  return message(`Help for ${name(command, e.path)}: ${e.summary.replace(/\.$/, '')}.`, blocks);
}

/** The action id of the "Run /dwm jobs" button of a typo reply (../interactions/run-suggestion.ts). */
export const RUN_SUGGESTION_ACTION = 'kit_run_suggestion';

/**
 * "No `jbos` command. Did you mean `/dwm jobs`?" with a button that runs the suggestion (the rest
 * of what was typed kept), and where the list is: at most 3 lines.
 */
export function unknownCommand(
  _reg: CommandRegistry,
  command: SlashCommand,
  path: readonly string[],
  word: string,
  suggestions: readonly string[],
  opts: { workspace?: string; rest?: string } = {},
): Message {
  const where = path.length ? ` under ${code(name(command, path))}` : '';
  const shown = suggestions.slice(0, 3);
  const mean = shown.length ? ` Did you mean ${shown.map((s) => code(s)).join(' or ')}?` : '';
  const first = `:grey_question: No ${code(truncate(word, 60))} command${where}.${mean}`;
  // The rest of what was typed goes with the suggestion, as Slack sends command text (entities
  // encoded: the run decodes it once, exactly as for a typed command). Its label shows it only when
  // it holds no angle brackets, so no label reads like a mention.
  const rest = opts.rest ? ` ${opts.rest}` : '';
  const runs = shown.map((s) => ({ s, t: `${s}${esc(rest)}` })).filter((r) => r.t.length <= 1500);
  const labelOf = (s: string) => (/[<>]/.test(rest) ? `Run ${s} …` : `Run ${s}${rest}`);
  const buttons = runs.map((r, i) =>
    button(truncate(labelOf(r.s), 75), `${RUN_SUGGESTION_ACTION}_${i}`, {
      value: encodeValue({ w: opts.workspace ?? '', t: r.t }),
    }),
  );
  const blocks: Block[] = [
    section(first, buttons.length === 1 ? { accessory: buttons[0] } : {}),
    ...(buttons.length > 1 ? [actions(buttons)] : []),
    context(`${code(`${name(command, path)} help`)} lists the commands.`),
  ];
  const plainWhere = path.length ? ` under ${name(command, path)}` : '';
  return message(
    `There is no ${esc(truncate(word, 60))} command${plainWhere}.${shown.length ? ` Did you mean ${shown.join(' or ')}?` : ''}`,
    blocks,
  );
}

/** The commands reference as Markdown (README section), generated from the registry. */
export function commandsMarkdown(reg: CommandRegistry): string {
  const out: string[] = [];
  for (const command of ['/dwm', '/drm'] as const) {
    const entries = reg.entries(command).filter((e) => !e.hidden);
    if (entries.length === 0) continue;
    out.push(`### \`${command}\`: ${TITLES[command]}`, '', '| Command | Who | What |', '|---|---|---|');
    for (const e of entries) {
      out.push(
        `| \`${usage(command, e).replace(/\|/g, '\\|')}\` | ${e.role === 'admin' ? (e.personalData ? 'admins, personal-data group' : 'admins') : 'everyone'} | ${e.summary.replace(/\|/g, '\\|')} |`,
      );
    }
    out.push('');
    for (const e of entries) {
      const args = Object.entries(e.args as ArgsSpec);
      if (args.length === 0 && !e.examples?.length) continue;
      out.push(`#### \`${name(command, e.path)}\``, '');
      for (const [n, a] of args) {
        const label = a.kind === 'option' ? `${n}:${a.hint || n}` : a.hint || n;
        out.push(`- \`${label}\`${a.required ? '' : ' (optional)'}: ${a.description}`);
      }
      for (const x of e.examples ?? []) out.push(`- Example: \`${command} ${x}\``);
      out.push('');
    }
  }
  return `${out.join('\n').trimEnd()}\n`;
}

export const COMMANDS_START = '<!-- commands:start (generated from the registry: do not edit) -->';
export const COMMANDS_END = '<!-- commands:end -->';

/**
 * The README with its commands section (between COMMANDS_START and COMMANDS_END) regenerated.
 * Returns the text unchanged when the markers are absent. A test fails when the README differs.
 */
export function withCommandsSection(readme: string, reg: CommandRegistry): string {
  const start = readme.indexOf(COMMANDS_START);
  const end = readme.indexOf(COMMANDS_END);
  if (start < 0 || end < start) return readme;
  return `${readme.slice(0, start + COMMANDS_START.length)}\n\n${commandsMarkdown(reg)}\n${readme.slice(end)}`;
}
