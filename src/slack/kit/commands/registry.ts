/**
 * The ONE registry of subcommands of `/dwm` (watermarking) and `/drm` (service account, plans,
 * DRM data). Features export their entries (`commandList`); the registry is built from the
 * ordered feature list (src/slack/features/index.ts) and imports no feature. It drives parsing, help at every level, "did you mean", the
 * role check (the only place commands are authorised) and the missing-argument modal.
 *
 * Resolution of `/dwm a b c …`: the longest run of leading unquoted words that names a group or
 * entry path; `help`/`?` anywhere in that run (or `help <path>`) shows help for the path so far.
 */

import { commandsTotal } from '../../../metrics.js';
import type { ModalView } from '../blocks/blocks.js';
import { refuseSharingIn } from '../context/channels/replies.js';
import { type CommandContext, errorOptions } from '../context/context.js';
import { explainError, renderError } from '../context/errors.js';
import { admit } from '../context/roles/admission.js';
import { personalDataGroups, roleOfStanding } from '../context/roles/standing.js';
import type { Role, SlashCommand } from '../context/types.js';
import type { CommandEntry, RegisteredEntry } from './command-entry.js';
import { entryHelp, groupHelp, unknownCommand } from './help.js';
import { missingArgsView } from './missing-args.js';
import {
  type ArgsSpec,
  decodeSlackText,
  ParseError,
  parseArgs,
  suggest,
  type Token,
  tokenize,
  usageOf,
} from './parse.js';

/** What a dispatch may need beyond the context: the slash command's response_url. */
export interface DispatchExtra {
  responseUrl?: string;
}
export const SLASH_COMMANDS: readonly SlashCommand[] = ['/dwm', '/drm'];
export type { CommandEntry, RegisteredEntry, Role, SlashCommand };

/**
 * A feature's command list, built when its module loads and frozen: `add` entries (in help order),
 * then export `done()`. Nothing is registered anywhere until features/index.ts lists the feature.
 */
export function commandList() {
  const list: CommandEntry[] = [];
  let closed = false;
  return {
    add<A extends ArgsSpec>(entry: CommandEntry<A>): void {
      if (closed) throw new Error('command list already closed');
      list.push(entry as unknown as CommandEntry);
    },
    done(): readonly CommandEntry[] {
      closed = true;
      return Object.freeze([...list]);
    },
  };
}

export type Resolution =
  | { kind: 'entry'; entry: RegisteredEntry; rest: Token[] }
  | { kind: 'help'; command: SlashCommand; path: string[] }
  | {
      kind: 'unknown';
      command: SlashCommand;
      path: string[];
      word: string;
      suggestions: string[];
      /** What was typed after the unknown word (kept when the suggestion is run). */
      rest: string;
    };

const HELP_WORDS = new Set(['help', '?', '-h', '--help']);

export function fullName(command: SlashCommand, path: readonly string[]): string {
  return [command, ...path].join(' ');
}

export class CommandRegistry {
  private readonly list: RegisteredEntry[] = [];
  private sealed = false;

  /** No more entries (the registry of a feature list is complete once built). */
  seal(): this {
    this.sealed = true;
    return this;
  }

  add<A extends ArgsSpec>(entry: CommandEntry<A>): void {
    if (this.sealed) throw new Error('The command registry is sealed: list commands in a feature instead');
    const commands: readonly SlashCommand[] =
      typeof entry.command === 'string' ? [entry.command] : entry.command;
    const path = entry.path.map((w) => w.toLowerCase());
    for (const c of commands) {
      for (const e of this.list) {
        if (!e.commands.includes(c)) continue;
        if (e.path.join(' ') === path.join(' ')) throw new Error(`Duplicate command: ${fullName(c, path)}`);
      }
    }
    if (path.some((w) => HELP_WORDS.has(w))) throw new Error(`"help" is reserved: ${path.join(' ')}`);
    this.list.push({ ...(entry as unknown as CommandEntry), path, commands });
  }

  /** Entries of one command (or all), in registration order. */
  entries(command?: SlashCommand): RegisteredEntry[] {
    return command ? this.list.filter((e) => e.commands.includes(command)) : [...this.list];
  }

  /** The entry with exactly this path, if any. */
  find(command: SlashCommand, path: readonly string[]): RegisteredEntry | undefined {
    const p = path.join(' ');
    return this.entries(command).find((e) => e.path.join(' ') === p);
  }

  /** Entries under a path prefix (the path itself included). */
  under(command: SlashCommand, prefix: readonly string[]): RegisteredEntry[] {
    return this.entries(command).filter((e) => prefix.every((w, i) => e.path[i] === w));
  }

  /** Words that may follow `prefix` (canonical name -> names and aliases). */
  private next(command: SlashCommand, prefix: readonly string[]): Map<string, string> {
    const out = new Map<string, string>();
    const d = prefix.length;
    for (const e of this.under(command, prefix)) {
      const w = e.path[d];
      if (w === undefined) continue;
      out.set(w, w);
      if (e.path.length === d + 1) for (const a of e.aliases ?? []) out.set(a.toLowerCase(), w);
    }
    return out;
  }

  resolve(command: SlashCommand, tokens: Token[]): Resolution {
    const path: string[] = [];
    let i = 0;
    for (; i < tokens.length; i++) {
      const t = tokens[i]!;
      if (t.kind !== 'word' || t.quoted) break;
      const w = t.value.toLowerCase();
      if (HELP_WORDS.has(w)) {
        // `/dwm help jobs` (help first) or `/dwm jobs help`.
        const more = tokens
          .slice(i + 1)
          .filter((x) => x.kind === 'word')
          .map((x) => x.value.toLowerCase());
        const target = [...path];
        for (const m of more) {
          const canon = this.next(command, target).get(m);
          if (!canon) break;
          target.push(canon);
        }
        return { kind: 'help', command, path: target };
      }
      const canon = this.next(command, path).get(w);
      if (!canon) break;
      path.push(canon);
    }
    const entry = this.find(command, path);
    const rest = tokens.slice(i);
    if (entry) return { kind: 'entry', entry, rest };
    if (rest.length === 0) return { kind: 'help', command, path };
    const first = rest[0]!;
    const word = first.kind === 'word' ? first.value : first.raw;
    return {
      kind: 'unknown',
      command,
      path,
      word,
      suggestions: this.suggestions(command, path, word.toLowerCase()),
      rest: rest
        .slice(1)
        .map((t) => t.raw)
        .join(' '),
    };
  }

  /** "did you mean": close names at this level, then close full paths anywhere under the command. */
  suggestions(command: SlashCommand, path: readonly string[], word: string): string[] {
    const here = suggest(word, this.next(command, path).keys()).map((w) => fullName(command, [...path, w]));
    if (here.length) return here;
    const all = new Map<string, string>();
    for (const e of this.entries(command)) {
      for (let n = 1; n <= e.path.length; n++) {
        const p = e.path.slice(0, n);
        all.set(p[p.length - 1]!, fullName(command, p));
      }
    }
    return suggest(word, all.keys()).map((w) => all.get(w)!);
  }

  /** Usage line of an entry for one command. */
  usage(command: SlashCommand, entry: RegisteredEntry): string {
    return usageOf(fullName(command, entry.path), entry.args);
  }

  /**
   * Run a slash command: decode, resolve, the user check, help, parse, missing -> modal or
   * error, handler. Every failure is answered (ephemeral) and never thrown.
   *
   * The user check (`admit`) is the ONLY authorisation of commands and runs before anything is
   * answered, help and "did you mean" included: a barred user (a guest with GUEST_ACCESS=none,
   * or one Slack does not know in this workspace) is told why and who to ask instead of being shown commands
   * they cannot run; admin entries refuse members. When the command will open a form with the
   * trigger id (the entry opens a modal, or a form asks for a missing argument) the check waits
   * only a short budget, then a "Checking…" modal holds the trigger id (see `admit`).
   */
  async dispatch(ctx: CommandContext, text: string, extra: DispatchExtra = {}): Promise<void> {
    const command = ctx.command;
    let outcome = 'ok';
    // `what` names the command in replies and the metric label: never the user's free text.
    let what: string = command;
    try {
      // Read everything first (pure), answer after the check.
      let tokens: Token[] | undefined;
      let unreadable: unknown;
      try {
        tokens = tokenize(decodeSlackText(text));
      } catch (e) {
        unreadable = e;
      }
      const r = tokens ? this.resolve(command, tokens) : undefined;
      const entry = r?.kind === 'entry' ? r.entry : undefined;
      let parsed: ReturnType<typeof parseArgs> | undefined;
      let parseError: unknown;
      if (r?.kind === 'entry') {
        try {
          parsed = parseArgs(r.rest, r.entry.args);
        } catch (e) {
          parseError = e;
        }
      }
      if (entry) what = fullName(command, entry.path);
      const missingForm =
        entry && parsed && parsed.missing.length > 0 && entry.onMissing !== 'error'
          ? entry.openModal
            ? 'entry'
            : this.missingForm(ctx, command, entry, text, parsed.missing, extra)
          : undefined;
      const opensForm = Boolean(ctx.triggerId) && (entry?.opensModal === true || missingForm !== undefined);
      const admitted = await admit(ctx, {
        role: entry?.role ?? 'member',
        ...(entry?.personalData ? { groups: personalDataGroups(ctx.deps.config) } : {}),
        modal: opensForm,
        what: `run ${what}`,
        action: entry ? `command.${entry.path.join('.') || 'root'}` : `command.${r?.kind ?? 'unknown'}`,
        detail: what,
        title: what,
      });
      if (!admitted) {
        outcome = 'refused';
        return;
      }
      if (!r) {
        outcome = 'parse_error';
        await ctx.respond(renderError(`Couldn't read ${command}`, unreadable, this.errOpts(ctx)));
        return;
      }
      if (r.kind === 'help') {
        outcome = 'help';
        const helpEntry = this.find(command, r.path);
        const msg =
          helpEntry && this.under(command, r.path).length === 1
            ? entryHelp(this, command, helpEntry)
            : groupHelp(this, command, r.path, roleOfStanding(await ctx.standing()));
        await ctx.respond(msg);
        return;
      }
      if (r.kind === 'unknown') {
        outcome = 'unknown';
        await ctx.respond(
          unknownCommand(this, command, r.path, r.word, r.suggestions, {
            workspace: ctx.workspace,
            rest: r.rest,
          }),
        );
        return;
      }
      if (!parsed) {
        const e = parseError;
        outcome = 'parse_error';
        if (e instanceof ParseError) {
          e.usage ??= this.usage(command, r.entry);
          const first = r.rest[0];
          if (first?.kind === 'word') {
            const near = suggest(first.value, this.next(command, r.entry.path).keys());
            if (near.length) e.message += ` Did you mean ${fullName(command, [...r.entry.path, near[0]!])}?`;
          }
        }
        await ctx.respond(renderError(`Couldn't read ${what}`, e, this.errOpts(ctx)));
        return;
      }
      const found = r.entry;
      ctx.share = parsed.share;
      if (parsed.missing.length > 0) {
        if (missingForm === 'entry' && found.openModal) {
          outcome = 'modal';
          await found.openModal(ctx, parsed.values);
          return;
        }
        if (missingForm && missingForm !== 'entry' && (await this.openMissingForm(ctx, missingForm))) {
          outcome = 'modal';
          return;
        }
        outcome = 'parse_error';
        const names = parsed.missing.map((n) => found.args[n]?.hint || n);
        const err = new ParseError(`Missing ${names.join(', ')}.`, this.usage(command, found));
        await ctx.respond(renderError(`Couldn't run ${what}`, err, this.errOpts(ctx)));
        return;
      }
      if (
        parsed.share &&
        ctx.channelId &&
        (await refuseSharingIn(ctx, ctx.channelId, `${what} share`, 'share this reply in the channel'))
      ) {
        outcome = 'refused';
        return;
      }
      await found.handler(ctx, { ...parsed.values, share: parsed.share });
    } catch (e) {
      outcome = 'error';
      const opts = await errorOptions(ctx);
      const ex = explainError(e, opts);
      if (ex.unexpected) ctx.logger.error({ err: e, refId: ctx.refId, command: what }, 'command failed');
      else ctx.logger.info({ refId: ctx.refId, command: what, kind: (e as Error)?.name }, 'command failed');
      try {
        await ctx.respond(renderError(`${what} failed`, e, opts), { share: false });
      } catch (respondErr) {
        ctx.logger.error({ err: respondErr, refId: ctx.refId }, 'could not deliver the error reply');
      }
    } finally {
      commandsTotal.inc({ command: what, outcome });
    }
  }

  /**
   * The generic form for the missing required arguments (it needs the command's trigger id), or
   * undefined when there is none to open (no trigger id, metadata too long): the caller then
   * answers with the usage instead. Pure: the check before it must know whether a form opens.
   */
  private missingForm(
    ctx: CommandContext,
    command: SlashCommand,
    entry: RegisteredEntry,
    text: string,
    missing: string[],
    extra: DispatchExtra,
  ): ModalView | undefined {
    if (!ctx.triggerId || text.length > 2800) return undefined;
    return missingArgsView({
      name: fullName(command, entry.path),
      given: decodeSlackText(text).trim().split(/\s+/).slice(entry.path.length).join(' '),
      missing: missing.map((name) => ({ name, spec: entry.args[name]! })),
      meta: {
        w: ctx.workspace,
        c: command,
        t: text.slice(0, 2801),
        m: missing,
        ...(ctx.channelId ? { ch: ctx.channelId } : {}),
        ...(extra.responseUrl ? { ru: extra.responseUrl } : {}),
      },
    });
  }

  /** Open the missing-arguments form; false when views.open refuses it (the usage is answered). */
  private async openMissingForm(ctx: CommandContext, view: ModalView): Promise<boolean> {
    try {
      await ctx.openView(view);
      return true;
    } catch (err) {
      ctx.logger.warn({ err, refId: ctx.refId }, 'could not open the missing-arguments form');
      return false;
    }
  }

  private errOpts(ctx: CommandContext) {
    return { refId: ctx.refId, command: ctx.command };
  }
}
