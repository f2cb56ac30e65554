/**
 * The offline demo doubles as a smoke test: `npm run demo` must exit 0 after every step produced
 * what it should, and 1 naming the step otherwise.
 */
import { spawn } from 'node:child_process';
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { sampleCard, withoutDates } from '../../dev/demo/card-sample.js';
import { changedLines, runDemo, TRUNCATE_LINES, truncateOutput } from '../../dev/demo/main.js';
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
    expect(r.out).toContain('All 9 steps produced what they should');
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
    expect(r.out).toContain('feature-2026-final failed: 1 of 2 recipients');
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
    expect(out).not.toMatch(/more lines? \(npm run demo -- --full\)/);
    // Every output has its link.
    expect(out.split('  ▸ ').length - 1).toBe(out.split('Open in Block Kit Builder: ').length - 1);
    // The README's picture is drawn from dev/demo/card-sample.ts: its card and thread reply are the
    // ones the demo's bot really sent for the failed job (dates aside).
    const sent = [...out.matchAll(/Open in Block Kit Builder: \S+#(\S+)/g)].map(
      (m) => (JSON.parse(decodeURIComponent(m[1]!)) as { blocks?: unknown[] }).blocks ?? [],
    );
    const sample = sampleCard();
    // The last message sent whose first block is the sample's (the card is edited in place).
    const lastLike = (blocks: unknown[] | undefined) =>
      sent.filter((b) => isDeepStrictEqual(withoutDates(b[0]), withoutDates(blocks?.[0]))).at(-1);
    expect(
      withoutDates(lastLike(sample.card.blocks)),
      'the demo posts another card than dev/demo/card-sample.ts: update the sample, then run npm run picture',
    ).toEqual(withoutDates(sample.card.blocks));
    expect(withoutDates(lastLike(sample.reply.blocks))).toEqual(withoutDates(sample.reply.blocks));
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
  it('a cut output says how many lines are left, in the singular for one', () => {
    const lines = (n: number) => Array.from({ length: n }, (_, i) => `l${i}`).join('\n');
    expect(truncateOutput(lines(TRUNCATE_LINES))).toBe(lines(TRUNCATE_LINES));
    expect(truncateOutput(lines(TRUNCATE_LINES + 1))).toMatch(/… 1 more line \(npm run demo -- --full\)$/);
    expect(truncateOutput(lines(TRUNCATE_LINES + 3))).toMatch(/… 3 more lines \(npm run demo -- --full\)$/);
  });

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
  it('channels show by name, as Slack shows them, when the stand-in knows the name', () => {
    const r = renderCall(
      {
        seq: 1,
        method: 'chat.postMessage',
        args: { channel: 'C0RELEASES', text: 'Watch of <#C0RELEASES> and <#C0OTHER00|ops>' },
        at: 0,
        status: 200,
        ok: true,
      },
      (id) => (id === 'C0RELEASES' ? 'releases' : undefined),
    );
    expect(r?.title).toBe('Message in #releases');
    expect(r?.text).toBe('Watch of #releases and #ops');
  });
  it('a surface shown again prints its new lines and counts the rest', () => {
    const before = ['Home', '====', 'a', 'b', 'c', 'd', 'e'].join('\n');
    const after = ['Home', '====', 'new failure', 'a', 'b', 'c', 'd', 'e'].join('\n');
    expect(changedLines(before, after)).toBe(
      'new failure\n… 7 lines as shown before (npm run demo -- --full)',
    );
    // Mostly new, or nothing new: the whole text.
    expect(changedLines('x', 'y\nz')).toBe('y\nz');
    expect(changedLines(after, after)).toBe(after);
  });
});
