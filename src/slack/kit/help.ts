/**
 * Help cards from the registry (every level: command, group, entry) and the Markdown commands
 * reference for the README (`commandsMarkdown`), so help and docs can never drift apart.
 */

import { type Block, context, header, type Message, message, section } from './blocks.js';
import type { RegisteredEntry } from './command-entry.js';
import type { SlashCommand } from './context-types.js';
import { code, esc } from './mrkdwn.js';
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

/** Lines "`usage` — summary", chunked into sections under 3000 characters. */
function listBlocks(command: SlashCommand, entries: RegisteredEntry[]): Block[] {
  const blocks: Block[] = [];
  let chunk = '';
  for (const e of entries) {
    const line = `${code(usage(command, e))}\n      ${esc(e.summary)}${lock(e)}`;
    if (chunk.length + line.length + 1 > 2900) {
      blocks.push(section(chunk));
      chunk = '';
    }
    chunk += (chunk ? '\n' : '') + line;
  }
  if (chunk) blocks.push(section(chunk));
  return blocks;
}

/** Help for a command or a group of subcommands (`/dwm help`, `/drm plan help`). */
export function groupHelp(reg: CommandRegistry, command: SlashCommand, path: readonly string[]): Message {
  const entries = reg.under(command, path).filter((e) => !e.hidden);
  const title = path.length ? `${name(command, path)} commands` : `${command}: ${TITLES[command]}`;
  const blocks: Block[] = [header(title)];
  if (entries.length === 0) blocks.push(section('No commands here yet.'));
  else blocks.push(...listBlocks(command, entries));
  blocks.push(
    context(
      `Options are written ${code('key:value')}; quote values with spaces (${code('content:"a b"')}). Add ${code('share')} to post the answer in the channel. ${code(`${name(command, path)} help <command>`)} explains one command.`,
    ),
  );
  return message(`${title}: ${entries.map((e) => name(command, e.path)).join(', ')}`, blocks);
}

/** Help card of one entry: usage, description, arguments, examples, who may run it. */
export function entryHelp(_reg: CommandRegistry, command: SlashCommand, e: RegisteredEntry): Message {
  const blocks: Block[] = [
    header(name(command, e.path)),
    section(`${esc(e.summary)}\n${code(usage(command, e))}`),
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
  if (e.aliases?.length) blocks.push(context(`Also: ${e.aliases.map((a) => code(a)).join(', ')}`));
  blocks.push(
    context(
      e.role !== 'admin'
        ? 'Anyone in the workspace can run this.'
        : e.personalData
          ? ":lock: Admins only, and members of the user groups in PERSONAL_DATA_USERGROUP: it shows end viewers' personal data."
          : ':lock: Admins only.',
    ),
  );
  return message(`${name(command, e.path)}: ${e.summary}`, blocks);
}

/** "Unknown command `jbos`. Did you mean `/dwm jobs`?" plus the list at that level. */
export function unknownCommand(
  reg: CommandRegistry,
  command: SlashCommand,
  path: readonly string[],
  word: string,
  suggestions: readonly string[],
): Message {
  const where = path.length ? ` under ${code(name(command, path))}` : '';
  const mean = suggestions.length ? ` Did you mean ${suggestions.map((s) => code(s)).join(' or ')}?` : '';
  const first = `:grey_question: There is no ${code(word)} command${where}.${mean}`;
  const help = groupHelp(reg, command, path);
  return message(
    `There is no ${esc(word)} command${path.length ? ` under ${name(command, path)}` : ''}.${mean ? mean.replace(/`/g, '') : ''}`,
    [section(first), ...(help.blocks ?? []).slice(1)],
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
