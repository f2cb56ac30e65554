/**
 * `npm run demo`: the offline demo and smoke test. Starts the emulator, the fake Slack and the bot
 * (HTTP mode) in this process, plays a session through signed requests, and prints every message
 * and view the bot produced as text with a Block Kit Builder link. Exits 0 only when every step
 * produced what it should; otherwise 1, naming the failing step.
 *
 * Options: --quiet (only step results), --links=none (no Block Kit Builder links),
 * --debug-logs (print the bot's JSON logs at the end).
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

export interface DemoOptions {
  write?: (s: string) => void;
  quiet?: boolean;
  links?: boolean;
  debugLogs?: boolean;
  /** The steps to play (default the demo session); tests pass their own. */
  steps?: DemoStep[];
}

/** Plays the demo; never throws (the result says what failed). */
export async function runDemo(opts: DemoOptions = {}): Promise<DemoResult> {
  const write = opts.write ?? ((s: string) => void process.stdout.write(s));
  const links = opts.links ?? true;
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
      const from = stack.lastSeq();
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
        for (const c of calls) {
          const r = renderCall(c);
          if (!r) continue;
          outputs++;
          write(`\n  ▸ ${r.title}\n${r.text.replace(/^/gm, '    │ ')}\n`);
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
      const lines = stack.logLines().filter((l) => opts.debugLogs || /"level":(40|50|60)/.test(l));
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
  return result;
}

const invokedDirectly =
  process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
if (invokedDirectly) {
  const args = new Set(process.argv.slice(2));
  runDemo({
    quiet: args.has('--quiet'),
    links: !args.has('--links=none'),
    debugLogs: args.has('--debug-logs'),
  }).then(
    (r) => process.exit(r.ok ? 0 : 1),
    () => process.exit(1),
  );
}
