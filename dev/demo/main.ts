/**
 * `npm run demo`: the offline demo and smoke test. Starts the emulator, the fake Slack and the bot
 * (HTTP mode) in this process, plays a session through signed requests, and prints a short
 * transcript of what the bot showed as text. Exits 0 only when every step produced what it should;
 * otherwise 1, naming the failing step.
 *
 * The transcript is short by default: per step, the final state of each message, modal or Home tab
 * (a progress message updated in place shows once, as it ended), nothing that did not change since
 * it was last shown, at most TRUNCATE_LINES lines each.
 * Options: --full (every call, untruncated), --links (a Block Kit Builder link under each output:
 * long URLs holding the exact payload), --quiet (only step results), --debug-logs (print the bot's
 * JSON logs at the end).
 */
import { pathToFileURL } from 'node:url';
import type { FakeCall } from '../fakeslack/index.js';
import { renderCall } from './render-text.js';
import { type DemoState, type DemoStep, DemoStepError, STEPS } from './session.js';
import { startDemoStack } from './stack.js';

export interface DemoResult {
  ok: boolean;
  failedStep?: string;
  error?: string;
  steps: Array<{ title: string; ok: boolean; outputs: number }>;
}

/** Lines of one output in the short transcript (the rest is counted, --full prints it). */
export const TRUNCATE_LINES = 14;

/** What a call shows on: a message (channel + ts), a modal (by title), a user's Home tab. */
function surfaceOf(c: FakeCall): string {
  const a = c.args;
  switch (c.method) {
    case 'chat.postMessage': {
      const ts = (c.response as { ts?: unknown } | undefined)?.ts;
      return typeof ts === 'string' ? `msg:${String(a.channel)}:${ts}` : `call:${c.seq}`;
    }
    case 'chat.update':
      return `msg:${String(a.channel)}:${String(a.ts)}`;
    case 'views.publish':
      return `home:${String(a.user_id)}`;
    case 'views.open':
    case 'views.update':
    case 'views.push':
      return `modal:${JSON.stringify((a.view as { title?: unknown } | undefined)?.title ?? '')}`;
    default:
      return `call:${c.seq}`;
  }
}

/** An output cut to TRUNCATE_LINES lines, saying how many more there are ("1 more line", "3 more lines"). */
export function truncateOutput(text: string): string {
  const lines = text.split('\n');
  if (lines.length <= TRUNCATE_LINES) return text;
  const more = lines.length - TRUNCATE_LINES;
  return [
    ...lines.slice(0, TRUNCATE_LINES),
    `… ${more} more line${more === 1 ? '' : 's'} (npm run demo -- --full)`,
  ].join('\n');
}

/**
 * A surface shown before (the Home tab again, a card updated): only its new lines, in order, and
 * how many lines stayed the same; the whole text when most of it changed.
 */
export function changedLines(before: string, after: string): string {
  const old = new Map<string, number>();
  for (const l of before.split('\n')) old.set(l, (old.get(l) ?? 0) + 1);
  const lines = after.split('\n');
  const fresh = lines.filter((l) => {
    const n = old.get(l) ?? 0;
    if (n === 0) return true;
    old.set(l, n - 1);
    return false;
  });
  const same = lines.length - fresh.length;
  if (same < 5 || fresh.length === 0) return after;
  return [...fresh, `… ${same} line${same === 1 ? '' : 's'} as shown before (npm run demo -- --full)`].join(
    '\n',
  );
}

export interface DemoOptions {
  write?: (s: string) => void;
  quiet?: boolean;
  /** A Block Kit Builder link under each output (default false). */
  links?: boolean;
  /** Every call, untruncated (default false: the short transcript). */
  full?: boolean;
  debugLogs?: boolean;
  /** The steps to play (default the demo session); tests pass their own. */
  steps?: DemoStep[];
}

/** Plays the demo; never throws (the result says what failed). */
export async function runDemo(opts: DemoOptions = {}): Promise<DemoResult> {
  const write = opts.write ?? ((s: string) => void process.stdout.write(s));
  const links = opts.links ?? false;
  const lastShown = new Map<string, string>();
  const result: DemoResult = { ok: true, steps: [] };
  write('drm-chatops demo: emulator + Slack stand-in + the bot, all offline on 127.0.0.1\n\n');
  let stack: Awaited<ReturnType<typeof startDemoStack>> | undefined;
  try {
    stack = await startDemoStack();
    write(
      `Bot listening at ${stack.url} (HTTP mode), service emulator at ${stack.emulator.wmBaseUrl.replace(/\/wm$/, '')}\n`,
    );
    const state: DemoState = { jobs: {} };
    const steps = opts.steps ?? STEPS;
    for (const [i, step] of steps.entries()) {
      const from = stack.fake.lastSeq();
      write(`\n━━ Step ${i + 1}/${steps.length}: ${step.title} ━━\n${step.about}\n`);
      let error: unknown;
      try {
        await step.run(stack, state);
      } catch (e) {
        error = e;
      }
      // Let trailing deliveries land before printing (the step's assertions already passed).
      await new Promise((r) => setTimeout(r, 50));
      const calls = stack.fake.calls().filter((c: FakeCall) => c.seq > from);
      let outputs = 0;
      if (!opts.quiet) {
        let shown = calls.flatMap((c) => {
          const r = renderCall(c, (id) => stack?.fake.channelName(id));
          return r ? [{ key: surfaceOf(c), r }] : [];
        });
        if (!opts.full) {
          // The last state of each surface, in the order the surfaces last changed; unchanged ones skipped.
          // A step whose surfaces are all unchanged still shows them (its point may be to show them).
          const last = new Map(shown.map((x) => [x.key, x]));
          const finals = shown.filter((x) => last.get(x.key) === x);
          const changed = finals.filter((x) => lastShown.get(x.key) !== x.r.text);
          shown = changed.length ? changed : finals;
        }
        for (const { key, r } of shown) {
          const before = lastShown.get(key);
          lastShown.set(key, r.text);
          outputs++;
          const text = opts.full
            ? r.text
            : truncateOutput(before === undefined ? r.text : changedLines(before, r.text));
          write(`\n  ▸ ${r.title}\n${text.replace(/^/gm, '    │ ')}\n`);
          if (links) write(`    Open in Block Kit Builder: ${r.link}\n`);
        }
      }
      if (error) {
        const msg =
          error instanceof DemoStepError
            ? error.message
            : error instanceof Error
              ? (error.stack ?? error.message)
              : String(error);
        write(`\n✗ Step "${step.title}" failed: ${msg}\n`);
        result.ok = false;
        result.failedStep = step.title;
        result.error = msg;
        result.steps.push({ title: step.title, ok: false, outputs });
        break;
      }
      write(`\n✓ ${step.title}\n`);
      result.steps.push({ title: step.title, ok: true, outputs });
    }
  } catch (e) {
    result.ok = false;
    result.failedStep ??= 'start';
    result.error = e instanceof Error ? e.message : String(e);
    write(`\n✗ The demo could not start: ${result.error}\n`);
  } finally {
    if (stack && (opts.debugLogs || !result.ok)) {
      const lines = stack.logs.lines().filter((l) => opts.debugLogs || /"level":(40|50|60)/.test(l));
      if (lines.length)
        write(`\nBot log (${opts.debugLogs ? 'all' : 'warnings and errors'}):\n${lines.join('')}`);
    }
    await stack?.close();
  }
  write(
    result.ok
      ? `\nAll ${result.steps.length} steps produced what they should. ✓\n`
      : `\nThe demo failed at step "${result.failedStep}".\n`,
  );
  if (result.ok && !opts.quiet && !opts.full)
    write(
      'Everything the bot sent, untruncated: npm run demo -- --full (add --links for Block Kit Builder links)\n',
    );
  return result;
}

const invokedDirectly =
  process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
if (invokedDirectly) {
  const args = new Set(process.argv.slice(2));
  const known = ['--quiet', '--full', '--links', '--links=none', '--debug-logs'];
  const unknown = [...args].filter((a) => !known.includes(a));
  if (unknown.length) {
    process.stderr.write(
      `Unknown option ${unknown.join(' ')}. Options: --full --links --quiet --debug-logs\n`,
    );
    process.exit(2);
  }
  runDemo({
    quiet: args.has('--quiet'),
    full: args.has('--full'),
    links: args.has('--links'),
    debugLogs: args.has('--debug-logs'),
  }).then(
    (r) => process.exit(r.ok ? 0 : 1),
    () => process.exit(1),
  );
}
