/**
 * The offline demo doubles as a smoke test: `npm run demo` must exit 0 after every step produced
 * what it should, and 1 naming the step otherwise.
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { runDemo } from '../../dev/demo/main.js';
import { builderLink, mrkdwnToText, renderCall } from '../../dev/demo/render-text.js';
import { DemoStepError } from '../../dev/demo/session.js';

function runCli(args: string[]): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, ['--import', 'tsx', 'dev/demo/main.ts', ...args], {
      cwd: new URL('../..', import.meta.url).pathname,
      env: { ...process.env, NODE_OPTIONS: '' },
    });
    let out = '';
    p.stdout.on('data', (d) => {
      out += d;
    });
    p.stderr.on('data', (d) => {
      out += d;
    });
    p.on('close', (code) => resolve({ code, out }));
  });
}

describe('npm run demo', () => {
  it('plays the whole session offline and exits 0, printing a short transcript without links', async () => {
    const r = await runCli([]);
    expect(r.out).toContain('All 10 steps produced what they should');
    expect(r.code).toBe(0);
    for (const step of [
      'Setup',
      'Register recipients',
      'List jobs',
      'Watch a channel',
      'A job completes and another fails',
      'A Workflow Builder run',
    ])
      expect(r.out).toContain(`✓ ${step}`);
    expect(r.out).not.toContain('block-kit-builder');
    expect(r.out).toContain('Invalid lines');
    expect(r.out).toContain('feature-2026-final ended in ERROR');
    expect(r.out).toContain('npm run demo -- --full');
    // Short: the final state of each message or view, truncated (the full output is ~650 lines).
    expect(r.out.split('\n').length).toBeLessThan(300);
    expect(r.out.split('\n').every((l) => l.length < 400)).toBe(true);
  }, 120_000);

  it('--full --links prints every call untruncated, each with a Block Kit Builder link', async () => {
    const lines: string[] = [];
    const r = await runDemo({ full: true, links: true, write: (s) => void lines.push(s) });
    expect(r.ok).toBe(true);
    const out = lines.join('');
    expect(out).toContain('Open in Block Kit Builder: https://app.slack.com/block-kit-builder/#');
    expect(out).not.toContain('more lines (npm run demo -- --full)');
    // Every output has its link.
    expect(out.split('  ▸ ').length - 1).toBe(out.split('Open in Block Kit Builder: ').length - 1);
  }, 120_000);

  it('a step that does not produce what it should fails the run, naming the step', async () => {
    const lines: string[] = [];
    const r = await runDemo({
      quiet: true,
      write: (s) => void lines.push(s),
      steps: [
        { title: 'Fine', about: 'ok', run: async () => undefined },
        {
          title: 'Broken on purpose',
          about: 'expects a reply that never comes',
          async run(s) {
            await s.command('no-such-command-here');
            throw new DemoStepError('expected something else');
          },
        },
        { title: 'Never reached', about: '', run: async () => undefined },
      ],
    });
    expect(r.ok).toBe(false);
    expect(r.failedStep).toBe('Broken on purpose');
    expect(r.steps.map((s) => s.title)).toEqual(['Fine', 'Broken on purpose']);
    expect(lines.join('')).toContain('The demo failed at step "Broken on purpose"');
  }, 60_000);
});

describe('text rendering', () => {
  it('mrkdwn to readable text', () => {
    expect(
      mrkdwnToText(
        '<!date^1700000000^{date_short_pretty} {time}|2023-11-14 22:13 UTC> by <@U1ABC> in <#C1ABC> &lt;b&gt; &amp;',
      ),
    ).toBe('2023-11-14 22:13 UTC by @U1ABC in #C1ABC <b> &');
  });
  it('a message call renders with a Block Kit Builder link that holds the blocks', () => {
    const blocks = [{ type: 'section', text: { type: 'mrkdwn', text: '*Hi* <@U1ABC>' } }];
    const r = renderCall({
      seq: 1,
      method: 'chat.postMessage',
      args: { channel: 'C1ABC', text: 'Hi', blocks },
      at: 0,
      status: 200,
      ok: true,
    });
    expect(r?.title).toBe('Message in #C1ABC');
    expect(r?.text).toBe('*Hi* @U1ABC');
    expect(r?.link).toBe(builderLink({ blocks }));
    expect(JSON.parse(decodeURIComponent(r!.link.split('#')[1]!))).toEqual({ blocks });
  });
});
